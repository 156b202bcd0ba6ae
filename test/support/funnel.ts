// The kept funnel of a deal row by row (the funnel tests): what each kept table holds, emptied,
// and computed again by the upkeep batch from the deal's events.
import { type Kysely, sql } from 'kysely';
import { applyPendingFunnel, findFunnelMark, hasReachedFunnelMark } from '../../src/store/funnel-upkeep.ts';

/** Every kept table of the funnel, and the columns that are sums (empty: the table holds rows, not sums). */
const kept: Record<string, string[]> = {
  funnel_stays: [],
  funnel_positions: [],
  funnel_counts: ['standing', 'entered', 'left_count'],
  funnel_transitions: ['investors'],
  funnel_money: ['total', 'investors'],
  funnel_daily: ['entered', 'left_count'],
  funnel_durations: ['stays'],
  funnel_cohort_counts: ['standing', 'entered', 'left_count'],
  funnel_cohort_transitions: ['investors'],
  funnel_cohort_money: ['total', 'investors'],
  funnel_cohort_durations: ['stays'],
};

/** The kept tables' names. */
export const keptTables = Object.keys(kept);

/**
 * A deal's rows of every kept table, each row as JSON (columns by name), in one order. `asRead`
 * compares them as the reads use them, which sum the rows: sum rows whose sums are all zero are left
 * out (the upkeep leaves one where it took away all it had added: a journey's money after it left a
 * step, the sums of a recount's old classes), and a money total is a number whatever its scale
 * (100.25 taken away from 350.75 leaves 250.50 where a sum of 250.5 alone is 250.5).
 */
export async function keptFunnel(db: Kysely<any>, dealId: string, { asRead = false } = {}): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const [table, sums] of Object.entries(kept)) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)} where deal_id = ${dealId}`.execute(db);
    tables[table] = rows
      .filter((row) => !asRead || sums.length === 0 || sums.some((column) => Number(row[column]) !== 0))
      .map((row) => {
        const columns = Object.entries(row).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        if (asRead && typeof row.total === 'string' && row.total.includes('.')) columns.push(['total', row.total.replace(/\.?0+$/, '')]);
        return JSON.stringify(Object.fromEntries(columns));
      })
      .sort();
  }
  return tables;
}

/** Deletes the deal's kept rows (the sums' delete triggers told to skip, as a rebuild does). */
export async function emptyKeptFunnel(db: Kysely<any>, dealId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select set_config('dealflow.funnel_rebuilding', 'on', true)`.execute(trx);
    for (const table of keptTables) await sql`delete from ${sql.table(table)} where deal_id = ${dealId}`.execute(trx);
  });
}

/**
 * The deal's kept funnel computed again as the upkeep computes it, batch by batch: its rows
 * emptied, every journey of the deal noted, and the noted journeys applied (funnel_apply: the
 * positions, then the stays, with the sums added by the triggers).
 */
export async function applyDealByUpkeep(db: Kysely<any>, dealId: string): Promise<void> {
  await emptyKeptFunnel(db, dealId);
  await sql`insert into funnel_pending (deal_id, investor_user_id)
    select deal_id, investor_user_id from journeys where deal_id = ${dealId} and event_count > 0`.execute(db);
  while ((await applyPendingFunnel(db)) > 0) {}
}

/**
 * Runs the upkeep until it has taken in every audit entry written before the call. One run takes
 * entries only below its horizon, the oldest transaction still running that may write the database
 * (migration 0024): on a shared PostgreSQL server that is any other test file's writing transaction
 * (each file's schema is in the same database; a schema being migrated holds it for a second or
 * more, and a fresh read waits five at most). Once this returns, the transactions that wrote those
 * entries and every one with an older id have ended, so a later upkeep's horizon is past them all.
 */
export async function followWholeLog(db: Kysely<any>): Promise<void> {
  const mark = await findFunnelMark(db);
  const until = Date.now() + 120_000;
  while (!(await hasReachedFunnelMark(db, mark))) {
    if (Date.now() > until) throw new Error('the funnel stayed behind the audit log for two minutes: a long transaction on the server holds its horizon');
    if ((await applyPendingFunnel(db)) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
