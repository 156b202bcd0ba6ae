// Data for the checks, made through the service's own HTTP API as an integration would: a deal, its
// workflow, investors. A build may lack some of these routes, so every function here
// says what it could make instead of assuming (`workflow: false` when PUT …/workflow is absent).
import { randomUUID } from 'node:crypto';
import { investorBody } from '../../support/fixtures.ts';
import type { Client, Received } from './http.ts';

export interface SeededDeal {
  dealId: string;
  /** False when the workflow route does not exist (yet). */
  workflow: boolean;
  /** The linear chain entry → … → complete; every one reachable from every other. */
  chain: string[];
  withdrawnStepId: string;
  formStepId: string;
  investors: string[];
}

const must = (what: string, response: Received, ...ok: number[]) => {
  if (!ok.includes(response.status)) {
    throw new Error(`${what}: expected ${ok.join(' or ')}, got ${response.status} ${response.error ?? ''} ${response.text.slice(0, 500)}`);
  }
  return response;
};

export const shortId = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

export function workflowBody(prefix: string) {
  const id = (name: string) => `${prefix}-${name}`;
  const step = (name: string, label: string, type = 'default', extra: Record<string, unknown> = {}) => ({
    id: id(name),
    label,
    type,
    stepFields: [] as unknown[],
    ...extra,
  });
  return {
    label: 'Reliability workflow',
    description: 'Linear chain with a withdrawal branch',
    investorEngagementEnabled: true,
    steps: [
      step('interest', 'Interest'),
      step('commit', 'Commitment', 'default', {
        stepFields: [
          { fieldKey: 'committed_amount', required: false, kind: 'amount' },
          { fieldKey: 'currency', required: false, kind: 'currency' },
        ],
        formId: 'form-commitment',
      }),
      step('docs', 'Documents'),
      step('pay', 'Payment'),
      step('complete', 'Complete', 'complete'),
      step('withdrawn', 'Withdrawn', 'withdrawn'),
    ],
    links: [
      { fromStepId: id('interest'), toStepId: id('commit') },
      { fromStepId: id('commit'), toStepId: id('docs') },
      { fromStepId: id('docs'), toStepId: id('pay') },
      { fromStepId: id('pay'), toStepId: id('complete') },
      { fromStepId: id('interest'), toStepId: id('withdrawn') },
    ],
  };
}

export async function seedDeal(client: Client, adminToken: string, investorCount: number): Promise<SeededDeal> {
  const dealId = shortId('rel-deal');
  must('PUT deal', await client.put(`/deals/deal/${dealId}`, { name: `Reliability ${dealId}`, currency: 'EUR' }, adminToken), 201);
  const body = workflowBody(dealId);
  const wf = await client.put(`/deals/deal/${dealId}/workflow`, body, adminToken);
  const workflow = wf.status === 200 || wf.status === 201;
  if (!workflow && wf.status !== 404) must('PUT workflow', wf, 200, 201);
  const investors: string[] = [];
  for (let i = 0; i < investorCount; i++) investors.push(await seedInvestor(client, adminToken, i));
  return {
    dealId,
    workflow,
    chain: ['interest', 'commit', 'docs', 'pay', 'complete'].map((s) => `${dealId}-${s}`),
    withdrawnStepId: `${dealId}-withdrawn`,
    formStepId: `${dealId}-commit`,
    investors,
  };
}

const forenames = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Tony'];
const surnames = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Perlman', 'Hoare'];

export async function seedInvestor(client: Client, adminToken: string, i = 0): Promise<string> {
  const id = shortId('rel-inv');
  const body = investorBody({ forename: forenames[i % 10], surname: `${surnames[(i * 7) % 10]}${i}`, kycCheckLevel: 3 });
  must('PUT investor', await client.put(`/investors/${id}`, body, adminToken), 201);
  return id;
}

/** PUT /portfolio/assets/{id}, or undefined when the route does not exist (yet). */
export async function seedAsset(client: Client, adminToken: string): Promise<number | undefined> {
  const assetId = 100_000 + Math.floor(Math.random() * 800_000_000);
  const response = await client.put(`/portfolio/assets/${assetId}`, { name: `Reliability asset ${assetId}`, currency: 'EUR' }, adminToken);
  if (response.status === 404) return undefined;
  must('PUT asset', response, 200, 201);
  return assetId;
}

/** A valid subscription body (total = units × price exactly). */
export function subscriptionBody(assetId: number, investorId: string, sourceId: string, units = 10) {
  return {
    asset_id: assetId,
    investor_id: investorId,
    units,
    price_per_unit: 12.5,
    total: units * 12.5,
    fee: 1.25,
    funding_source: 'bank_transfer',
    invoice_date: '2026-01-15',
    settlement_date: '2026-01-20',
    source: 'reliability',
    source_id: sourceId,
    description: 'reliability suite',
  };
}

/** The routes the running service serves, as `METHOD /path/{param}` keys, from its own /openapi.json. */
export async function routeKeys(client: Client): Promise<Set<string>> {
  const doc = (await client.get('/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
  const keys = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) for (const method of Object.keys(item)) keys.add(`${method.toUpperCase()} ${path}`);
  return keys;
}
