// The funnel's upkeep (migrations 0017, 0024 and 0031): the kept sums follow the audit log in
// transactions of their own, off the move's path; a long backlog is caught up by recomputing the
// deals it names. One upkeep at a time holds the funnel_upkeep row.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

/** What one upkeep transaction takes at most: audit entries taken in, and pending journeys applied. */
export const FUNNEL_BATCH = 2000;

/** PostgreSQL's serialization failure: another upkeep applied (or is applying) the same rows. */
export const isUpkeepConflict = (err: unknown) => (err as { code?: unknown }).code === '40001';

/**
 * One upkeep transaction (migrations 0017 and 0024): takes the funnel_upkeep row, takes in the
 * audit log's next `maxRows` entries below the horizon (the journeys of moves and edits among them
 * become pending), then applies the journeys of the oldest `maxRows` pending rows, all in one
 * REPEATABLE READ snapshot. Returns the entries and pending rows taken (0: nothing to do). Throws a
 * serialization failure (isUpkeepConflict) when another upkeep held the row and committed meanwhile.
 */
export async function applyPendingFunnel(db: Kysely<DB>, maxRows = FUNNEL_BATCH): Promise<number> {
  return underUpkeep(db, async (trx) => {
    const { rows } = await sql<{ followed: number }>`select funnel_follow(${maxRows}::int) as followed`.execute(trx);
    // The journeys it has just noted are applied in the same transaction, after any noted before.
    const { rows: applied } = await sql<{ applied: number }>`select funnel_apply(${maxRows + Number(rows[0]!.followed)}::int) as applied`.execute(trx);
    return Number(rows[0]!.followed) + Number(applied[0]!.applied);
  });
}

/**
 * The catch-up of a long backlog as one upkeep (migration 0031): when at least `minEntries` audit
 * entries wait below the horizon, every deal they name is recomputed from its events and the cursor
 * moves past them. Returns the entries passed; 0 when fewer wait (the ordinary upkeep then follows them).
 */
export async function catchUpFunnelByRebuild(db: Kysely<DB>, minEntries: number): Promise<number> {
  return underUpkeep(db, async (trx) => {
    const { rows } = await sql<{ passed: number }>`select funnel_catch_up(${minEntries}::int) as passed`.execute(trx);
    return Number(rows[0]!.passed);
  });
}

/** Recomputes the deal's kept funnel (every deal's: null) from its events, as one upkeep. */
export async function rebuildFunnel(db: Kysely<DB>, dealId: string | null): Promise<void> {
  await underUpkeep(db, (trx) => sql`select funnel_rebuild(${dealId}::text)`.execute(trx));
}

/** What the funnel has yet to take in: whether anything waits, and the time of the oldest waiting audit entry. */
export interface FunnelBacklog {
  waiting: boolean;
  /** The `at` of the first audit entry after the cursor (undefined: none; only noted journeys wait, if anything). */
  oldestAt: Date | undefined;
}

/** One index probe of the log after the cursor, and one of the noted journeys. */
export async function findFunnelBacklog(db: Kysely<DB>): Promise<FunnelBacklog> {
  const { rows } = await sql<{ at: Date | string | null; pending: boolean }>`
    select (select a.at from audit_log a
        where (a.xid, a.position) > ((select followed_xid from funnel_upkeep where id = 1), (select followed_position from funnel_upkeep where id = 1))
        order by a.xid, a.position limit 1) as at,
      exists (select 1 from funnel_pending) as pending`.execute(db);
  const at = rows[0]!.at;
  return { waiting: at !== null || rows[0]!.pending, oldestAt: at === null ? undefined : new Date(at) };
}

/** Where the log ends now: what the funnel must have taken in to count every change committed so far. */
export interface FunnelMark {
  xid: string;
  position: string;
}

export async function findFunnelMark(db: Kysely<DB>): Promise<FunnelMark> {
  const { rows } = await sql<{
    xid: string;
    position: string;
  }>`select a.xid::text as xid, a.position::text as position from audit_log a order by a.xid desc, a.position desc limit 1`.execute(db);
  return rows[0] ?? { xid: '0', position: '0' };
}

/**
 * Whether the funnel has applied everything up to the mark: its cursor is there, and no journey
 * waits (an upkeep applies the journeys it notes in the same transaction; only a change of an
 * investor's classes notes journeys otherwise).
 */
export async function hasReachedFunnelMark(db: Kysely<DB>, mark: FunnelMark): Promise<boolean> {
  const { rows } = await sql<{ reached: boolean }>`
    select (u.followed_xid, u.followed_position) >= (${mark.xid}::xid8, ${mark.position}::bigint)
      and not exists (select 1 from funnel_pending) as reached
    from funnel_upkeep u where u.id = 1`.execute(db);
  return rows[0]!.reached;
}

async function underUpkeep<T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  const run = async (trx: Kysely<DB>) => {
    await sql`update funnel_upkeep set runs = runs + 1, ran_at = now() where id = 1`.execute(trx);
    return work(trx);
  };
  // Inside a caller's transaction (a test's fixture), its isolation is the caller's to choose.
  if (db.isTransaction) return run(db);
  return db.transaction().setIsolationLevel('repeatable read').execute(run);
}
