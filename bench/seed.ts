// Bulk data through the `dealflow seed` command (its progress shown as it goes), then a look into
// the database for what it made: the seeded deals with their sizes, and a search term for each.
import { sql } from 'kysely';
import type { BenchDatabase } from './database.ts';
import { runCli } from './processes.ts';

export interface SeededDeal {
  dealId: string;
  investors: number;
  /** A search term (part of an investor's name) for the `query` and `nameOrEmail` scenarios. */
  query: string;
}

export interface SeedPlan {
  /** Deals to make, by number of investors with a journey, e.g. [100_000, 10_000, 1_000]. */
  dealSizes: number[];
}

/** True when this build has `dealflow seed`. */
export async function canSeed(database: BenchDatabase): Promise<boolean> {
  const help = await runCli(database.env, ['--help']).catch((err: Error) => err.message);
  return /^\s+seed\s/m.test(help);
}

export async function seed(database: BenchDatabase, plan: SeedPlan, log: (line: string) => void): Promise<void> {
  for (const size of plan.dealSizes) {
    log(`dealflow seed --investors ${size} --deals 1`);
    await runCli(database.env, ['seed', '--investors', String(size), '--deals', '1'], { inherit: true });
  }
}

export interface Discovered {
  deals: SeededDeal[];
  /** Active investors with at least one journey: the population of all-transactions. */
  activeInvestors: number;
  /** The most common surname's first letters, and how many active investors with a journey it matches (--scale). */
  common?: { query: string; matches: number };
}

/** Reads what the seed made (in the bench process: on PGlite, before the service opens the folder). */
export async function discover(database: BenchDatabase, sizes?: number[]): Promise<Discovered> {
  // A vacuum of ten million rows (--scale) takes minutes, far past the service's statement timeout.
  const { db, close } = await database.open({ timeoutMs: 3_600_000 });
  try {
    // After a bulk load the planner has no statistics yet (autovacuum would gather them within
    // minutes); figures should not depend on when it gets round to it.
    await sql`vacuum analyze`.execute(db);
    const { rows: deals } = await sql<{ deal_id: string; n: string }>`
      select deal_id, count(*)::text as n from journeys group by deal_id order by count(*) desc`.execute(db);
    const seeded: SeededDeal[] = [];
    for (const deal of deals) {
      const investors = Number(deal.n);
      // --scale: the filler deals that make up the events are not measured.
      if (sizes && !sizes.includes(investors)) continue;
      // The surname of the investor halfway down the deal's list: a realistic, partial, mixed-case search.
      const { rows } = await sql<{ full_name: string }>`
        select i.full_name from journeys j join investors i on i.id = j.investor_user_id
        where j.deal_id = ${deal.deal_id} order by i.full_name, i.id offset ${Math.floor(investors / 2)} limit 1`.execute(db);
      const name = rows[0]?.full_name ?? 'a';
      const surname = name.split(/\s+/).pop() ?? name;
      seeded.push({ dealId: deal.deal_id, investors, query: surname.slice(0, Math.min(5, surname.length)).toLowerCase() });
    }
    const { rows } = await sql<{ n: string }>`
      select count(*)::text as n from investors i
      where i.status = 'active' and exists (select 1 from journeys j where j.investor_user_id = i.id)`.execute(db);
    let common: Discovered['common'];
    if (sizes) {
      const { rows: top } = await sql<{ surname: string }>`
        select split_part(full_name, ' ', 2) as surname from investors group by 1 order by count(*) desc limit 1`.execute(db);
      const query = (top[0]?.surname ?? 'a').slice(0, 5).toLowerCase();
      const { rows: matching } = await sql<{ n: string }>`
        select count(*)::text as n from investors i where i.status = 'active'
          and (i.full_name ilike ${`%${query}%`} or i.email ilike ${`%${query}%`})
          and exists (select 1 from journeys j where j.investor_user_id = i.id)`.execute(db);
      common = { query, matches: Number(matching[0]?.n ?? 0) };
    }
    return { deals: seeded, activeInvestors: Number(rows[0]?.n ?? 0), ...(common ? { common } : {}) };
  } finally {
    await close();
  }
}
