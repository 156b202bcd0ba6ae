// The benchmark's scenarios (docs/benchmarks.md) and the two baselines. Throughput scenarios (reads, writes) run with
// many connections and are compared with the baseline of their kind; list scenarios run one request
// at a time (1 connection), so their latency is the service time of one request, which is what
// their targets are about.
import { type Fixtures, jumpBody, STEP_COUNT } from './fixtures.ts';
import { BASELINE_ROWS, type LoadSpec } from './load.ts';
import type { SeededDeal } from './seed.ts';

export const THROUGHPUT_CONNECTIONS = 10;
export const LATENCY_CONNECTIONS = 1;

/** read and write at THROUGHPUT_CONNECTIONS; read-1 at LATENCY_CONNECTIONS, for the list scenarios. */
export type BaselineKind = 'read' | 'read-1' | 'write';

export interface Scenario {
  id: string;
  name: string;
  /** The route it measures, as in the OpenAPI document; absent for baselines. */
  route?: string;
  compareTo?: BaselineKind;
  /** A load, or why the scenario cannot run in this build. */
  load: LoadSpec | { unavailable: string };
}

export interface Inputs {
  fixtures: Fixtures;
  routes: Set<string>;
  /** The seeded deal of about 100,000 (quick: a few thousand) investors, for scenarios 4 and 5. */
  largeDeal?: SeededDeal;
  /** The seeded deal of about 10,000 (quick: fewer) investors, for scenario 6. */
  referencesDeal?: SeededDeal;
  /** Active investors in the directory with a journey (scenario 5's population). */
  activeInvestors: number;
  /** --scale: the most common surname's first letters, for scenario 5c (the most matches). */
  common?: { query: string; matches: number };
  /** How deep "page 500" may go in this data set (quick runs have fewer pages). */
  deepPage: number;
}

let sequence = 0;
const next = () => sequence++;
const runId = Date.now().toString(36);

export function baselineScenarios(): Scenario[] {
  const row = () => `item-${(next() % BASELINE_ROWS) + 1}`;
  return [
    {
      id: 'B-read',
      name: 'baseline: read one row by primary key',
      load: { method: 'GET', path: () => `/read/${row()}`, expect: [200], connections: THROUGHPUT_CONNECTIONS },
    },
    {
      id: 'B-read-1',
      name: 'baseline: read one row by primary key, 1 connection',
      load: { method: 'GET', path: () => `/read/${row()}`, expect: [200], connections: LATENCY_CONNECTIONS },
    },
    {
      id: 'B-write',
      name: 'baseline: lock row, insert event, update row',
      load: { method: 'POST', path: () => `/write/${row()}`, body: { note: 'moved' }, expect: [201], connections: THROUGHPUT_CONNECTIONS },
    },
  ];
}

const missing = (route: string) => ({ unavailable: `not available: ${route} is not in this build` });

/** Cycles every investor of `investors` through the steps: consecutive moves of one investor differ. */
function jumps(fixtures: Fixtures, investors: string[]) {
  let count = 0;
  return () => {
    const n = count++;
    const investor = investors[n % investors.length]!;
    const round = Math.floor(n / investors.length);
    return jumpBody(fixtures, investor, round % STEP_COUNT);
  };
}

export function serviceScenarios(inputs: Inputs): Scenario[] {
  const { fixtures, routes } = inputs;
  const has = (route: string) => routes.has(route);
  const scenarios: Scenario[] = [];

  const workflowStatus = 'GET /deals/deal/{dealId}/workflow-status';
  scenarios.push({
    id: '1',
    name: 'workflow-status, 10-step workflow',
    route: workflowStatus,
    compareTo: 'read',
    load:
      has(workflowStatus) && has('PUT /deals/deal/{dealId}/workflow')
        ? { method: 'GET', path: `/deals/deal/${fixtures.dealId}/workflow-status`, expect: [200], connections: THROUGHPUT_CONNECTIONS }
        : missing(workflowStatus),
  });

  const investorData = 'GET /deals/deal/{dealId}/investor-data/{investorUserId}';
  scenarios.push({
    id: '2',
    name: 'investor-data, 8 events',
    route: investorData,
    compareTo: 'read',
    load:
      has(investorData) && fixtures.journeyInvestorId
        ? {
            method: 'GET',
            path: `/deals/deal/${fixtures.dealId}/investor-data/${fixtures.journeyInvestorId}`,
            expect: [200],
            connections: THROUGHPUT_CONNECTIONS,
          }
        : missing(investorData),
  });
  scenarios.push({
    id: '2b',
    name: 'investor-data, 8 events, If-None-Match (304)',
    route: investorData,
    compareTo: 'read',
    load:
      has(investorData) && fixtures.journeyInvestorId && fixtures.journeyEtag
        ? {
            method: 'GET',
            path: `/deals/deal/${fixtures.dealId}/investor-data/${fixtures.journeyInvestorId}`,
            headers: { 'if-none-match': fixtures.journeyEtag },
            expect: [304],
            connections: THROUGHPUT_CONNECTIONS,
          }
        : { unavailable: 'investor-data answers without an ETag in this build' },
  });

  const jump = 'POST /deals/deal/{dealId}/jump-to-step';
  const canJump = has(jump) && has('PUT /deals/deal/{dealId}/workflow');
  scenarios.push({
    id: '3a',
    name: `jump-to-step, ${fixtures.manyInvestorIds.length} investors (low contention)`,
    route: jump,
    compareTo: 'write',
    load: canJump
      ? {
          method: 'POST',
          path: `/deals/deal/${fixtures.dealId}/jump-to-step`,
          body: jumps(fixtures, fixtures.manyInvestorIds),
          expect: [201],
          connections: THROUGHPUT_CONNECTIONS,
        }
      : missing(jump),
  });
  scenarios.push({
    id: '3b',
    name: 'jump-to-step, 10 investors (high contention)',
    route: jump,
    compareTo: 'write',
    load: canJump
      ? {
          method: 'POST',
          path: `/deals/deal/${fixtures.dealId}/jump-to-step`,
          body: jumps(fixtures, fixtures.fewInvestorIds),
          expect: [201],
          tolerated: [409],
          connections: THROUGHPUT_CONNECTIONS,
        }
      : missing(jump),
  });

  const allWorkflows = 'GET /deals/deal/{dealId}/all-investor-workflows';
  const large = inputs.largeDeal;
  for (const [suffix, page, query] of [
    ['a', 1, undefined],
    ['b', inputs.deepPage, undefined],
    ['c', 1, large?.query],
    ['d', inputs.deepPage, large?.query],
  ] as const) {
    const search = query !== undefined ? `&query=${encodeURIComponent(query)}` : '';
    scenarios.push({
      id: `4${suffix}`,
      name: `all-investor-workflows, ${large ? large.investors.toLocaleString('en') : '?'} investors, page ${page}${query !== undefined ? `, query "${query}"` : ''}`,
      route: allWorkflows,
      compareTo: 'read-1',
      load: !has(allWorkflows)
        ? missing(allWorkflows)
        : !large
          ? { unavailable: 'not available: no seeded deal (dealflow seed is not in this build)' }
          : {
              method: 'GET',
              path: `/deals/deal/${large.dealId}/all-investor-workflows?page=${page}${search}`,
              expect: [200],
              connections: LATENCY_CONNECTIONS,
            },
    });
  }

  const allTransactions = 'POST /deals/deal/all-transactions';
  const searches: [string, string | undefined, string][] = [
    ['a', undefined, ''],
    ['b', large?.query, ''],
    ...(inputs.common
      ? [['c', inputs.common.query, ` (the most common surname: ${inputs.common.matches.toLocaleString('en')} matches)`] as [string, string, string]]
      : []),
  ];
  for (const [suffix, nameOrEmail, note] of searches) {
    scenarios.push({
      id: `5${suffix}`,
      name: `all-transactions, ${inputs.activeInvestors.toLocaleString('en')} active investors${nameOrEmail !== undefined ? `, nameOrEmail "${nameOrEmail}"` : ''}${note}`,
      route: allTransactions,
      compareTo: 'read-1',
      load: !has(allTransactions)
        ? missing(allTransactions)
        : !large
          ? { unavailable: 'not available: no seeded deal (dealflow seed is not in this build)' }
          : {
              method: 'POST',
              path: '/deals/deal/all-transactions?page=1',
              body: nameOrEmail !== undefined ? { nameOrEmail } : {},
              expect: [200],
              connections: LATENCY_CONNECTIONS,
            },
    });
  }

  const references = 'GET /deals/deal/{dealId}/all-payment-refernces';
  const refs = inputs.referencesDeal;
  scenarios.push({
    id: '6',
    name: `all-payment-refernces, ${refs ? refs.investors.toLocaleString('en') : '?'} investors`,
    route: references,
    compareTo: 'read-1',
    load: !has(references)
      ? missing(references)
      : !refs
        ? { unavailable: 'not available: no seeded deal (dealflow seed is not in this build)' }
        : { method: 'GET', path: `/deals/deal/${refs.dealId}/all-payment-refernces`, expect: [200], connections: LATENCY_CONNECTIONS },
  });

  const subscriptions = 'POST /portfolio/transactions/subscriptions';
  const subscriber = fixtures.manyInvestorIds[0];
  scenarios.push({
    id: '7',
    name: 'subscriptions, distinct Idempotency-Keys',
    route: subscriptions,
    compareTo: 'write',
    load:
      has(subscriptions) && fixtures.assetId !== undefined && subscriber
        ? {
            method: 'POST',
            path: '/portfolio/transactions/subscriptions',
            headers: () => ({ 'idempotency-key': `bench-${runId}-${next()}` }),
            body: {
              asset_id: fixtures.assetId,
              investor_id: subscriber,
              units: 1000,
              price_per_unit: 25.5,
              total: 25500,
              fee: 12.75,
              funding_source: 'bank_transfer',
              invoice_date: '2026-01-10',
              settlement_date: '2026-01-12',
              description: 'benchmark subscription',
            },
            expect: [201],
            connections: THROUGHPUT_CONNECTIONS,
          }
        : missing(subscriptions),
  });
  return scenarios;
}

/** Scenario 4 (page 1, no query) on each seeded deal size, for --scale. */
export function scaleScenarios(deals: SeededDeal[], routes: Set<string>): Scenario[] {
  const allWorkflows = 'GET /deals/deal/{dealId}/all-investor-workflows';
  return deals.flatMap((deal) => [
    {
      id: `S-${deal.investors}-p1`,
      name: `all-investor-workflows, ${deal.investors.toLocaleString('en')} investors, page 1`,
      route: allWorkflows,
      load: routes.has(allWorkflows)
        ? { method: 'GET', path: `/deals/deal/${deal.dealId}/all-investor-workflows?page=1`, expect: [200], connections: LATENCY_CONNECTIONS }
        : missing(allWorkflows),
    } satisfies Scenario,
    {
      id: `S-${deal.investors}-q`,
      name: `all-investor-workflows, ${deal.investors.toLocaleString('en')} investors, page 1, query "${deal.query}"`,
      route: allWorkflows,
      load: routes.has(allWorkflows)
        ? {
            method: 'GET',
            path: `/deals/deal/${deal.dealId}/all-investor-workflows?page=1&query=${encodeURIComponent(deal.query)}`,
            expect: [200],
            connections: LATENCY_CONNECTIONS,
          }
        : missing(allWorkflows),
    } satisfies Scenario,
  ]);
}
