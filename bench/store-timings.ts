// --scale: the list queries timed in the bench process, straight through the store functions the
// routes use (no HTTP, no service process, no authentication), one call at a time. Beside the HTTP
// figures, this tells the database's share of a request from the rest, which on a busy machine is
// what moves.
import type { Kysely } from 'kysely';
import { listActiveInvestors } from '../src/store/active-investors.ts';
import { pageJourneyInvestors } from '../src/store/journeys.ts';
import type { DB } from '../src/store/schema.ts';

export interface StoreTiming {
  name: string;
  calls: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  max: number;
  /** What the call found: the total behind totalPages. */
  total: number;
}

export async function timeStoreQueries(
  db: Kysely<DB>,
  cases: { name: string; run: (db: Kysely<DB>) => Promise<{ total: number }> }[],
  calls = 200,
): Promise<StoreTiming[]> {
  const out: StoreTiming[] = [];
  for (const c of cases) {
    for (let i = 0; i < 10; i++) await c.run(db); // warm the cache and the plan
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < calls; i++) {
      const started = process.hrtime.bigint();
      total = (await c.run(db)).total;
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    times.sort((a, b) => a - b);
    out.push({ name: c.name, calls, p50: times[Math.floor(calls / 2)]!, p99: times[Math.floor(calls * 0.99)]!, max: times.at(-1)!, total });
  }
  return out;
}

export const storeCases = (deals: { dealId: string; investors: number; query: string }[], nameOrEmail: (string | undefined)[]) => [
  ...nameOrEmail.map((search) => ({
    name: `store: all-transactions page 1${search ? `, nameOrEmail "${search}"` : ''}`,
    run: (db: Kysely<DB>) => listActiveInvestors(db, { nameOrEmail: search, limit: 20, offset: 0 }),
  })),
  ...deals.map((deal) => ({
    name: `store: all-investor-workflows page ids, ${deal.investors.toLocaleString('en')} investors, query "${deal.query}"`,
    run: (db: Kysely<DB>) => pageJourneyInvestors(db, deal.dealId, { limit: 20, offset: 0, query: deal.query }),
  })),
];
