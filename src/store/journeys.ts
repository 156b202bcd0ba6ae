// Journeys: one row per investor per deal, holding the current position, the number of events, the
// payment reference, and (as a row lock) the serialization point of that investor's moves.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

export interface JourneyState {
  dealId: string;
  investorUserId: string;
  /** null before the first event (a row just created under the lock). */
  currentStepId: string | null;
  eventCount: number;
  paymentReference: string;
  /** The head of the journey's audit chain (read where the row is locked). */
  auditHead?: { seq: number; hash: string | null };
}

/** A locked journey row: its state, and what its events captured and the steps it visited (migration 0021). */
export interface LockedJourneyRow extends JourneyState {
  auditHead: { seq: number; hash: string | null };
  captured: Record<string, string>;
  visited: string[];
}

/** The journey row, unlocked; undefined when the investor has no event in the deal. */
export async function findJourney(db: Kysely<DB>, dealId: string, investorUserId: string): Promise<JourneyState | undefined> {
  const row = await db
    .selectFrom('journeys')
    .select(['deal_id', 'investor_user_id', 'current_step_id', 'event_count', 'payment_reference'])
    .where('deal_id', '=', dealId)
    .where('investor_user_id', '=', investorUserId)
    .executeTakeFirst();
  return row && toState(row);
}

const toState = (row: {
  deal_id: string;
  investor_user_id: string;
  current_step_id: string;
  event_count: number;
  payment_reference: string;
}): JourneyState => ({
  dealId: row.deal_id,
  investorUserId: row.investor_user_id,
  currentStepId: row.event_count === 0 ? null : row.current_step_id,
  eventCount: row.event_count,
  paymentReference: row.payment_reference,
});

/**
 * Locks the journey row of an investor in a deal (SELECT … FOR UPDATE) for the rest of the
 * transaction, creating it first when the investor has no journey yet.
 *
 * Moves of one investor in one deal are serialized on this row lock: a second move waits here until
 * the first commits, then reads the position the first one left (READ COMMITTED takes a new snapshot
 * per statement), so two moves never both apply from the same position. A row that does not exist
 * cannot be locked, so the first move inserts it with ON CONFLICT DO NOTHING (event_count 0, meaning
 * "no position yet"), which leaves the row locked by this transaction: two first moves racing both
 * reach the insert, the second waits on the primary key until the first commits (and then does
 * nothing, and locks the winner's row) or rolls back (and then inserts). ON CONFLICT without a target
 * also absorbs a clash of the fresh payment reference with another journey's (about 1 in 10^15):
 * then no row exists, and we retry with a new reference. `created` says the row is new, so a move
 * that is refused can remove it again (the caller's transaction may commit: an idempotency record).
 */
export async function lockJourney(
  db: Kysely<DB>,
  key: { dealId: string; investorUserId: string },
  /** `absent`: the caller has just seen no row, so the first lookup is skipped. */
  create: { stepId: string; now: Date; newReference: () => string; absent?: boolean },
): Promise<LockedJourneyRow & { created: boolean }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = attempt === 0 && create.absent ? undefined : await selectForUpdate(db, key);
    if (existing) return { ...existing, created: false };
    // A row this transaction inserted is locked by it until it ends: returned, it needs no lookup.
    const inserted = await db
      .insertInto('journeys')
      .values(newJourneyRow(key.dealId, { investorUserId: key.investorUserId, stepId: create.stepId }, create))
      .onConflict((oc) => oc.doNothing())
      .returning(LOCKED_COLUMNS)
      .executeTakeFirst();
    if (inserted) return { ...toLocked(inserted), created: true };
    const locked = await selectForUpdate(db, key);
    if (locked) return { ...locked, created: false };
  }
  throw new Error('could not create a journey row: payment references kept colliding');
}

/** A journey row before its first event (event_count 0: no position yet), with a fresh payment reference. */
const newJourneyRow = (dealId: string, first: { investorUserId: string; stepId: string; at?: Date }, create: { now: Date; newReference: () => string }) => ({
  deal_id: dealId,
  investor_user_id: first.investorUserId,
  current_step_id: first.stepId,
  event_count: 0,
  payment_reference: create.newReference(),
  started_at: first.at ?? create.now,
  moved_at: first.at ?? create.now,
});

const LOCKED_COLUMNS = [
  'deal_id',
  'investor_user_id',
  'current_step_id',
  'event_count',
  'payment_reference',
  'audit_seq',
  'audit_head',
  'captured',
  'visited',
] as const;

const toLocked = (
  row: Parameters<typeof toState>[0] & { audit_seq: string; audit_head: string | null; captured: Record<string, string>; visited: string[] },
): LockedJourneyRow => ({
  ...toState(row),
  auditHead: { seq: Number(row.audit_seq), hash: row.audit_head },
  captured: row.captured,
  visited: row.visited,
});

/** Locks an existing journey row (FOR UPDATE); undefined when there is none. */
export async function selectForUpdate(db: Kysely<DB>, key: { dealId: string; investorUserId: string }): Promise<LockedJourneyRow | undefined> {
  const row = await db
    .selectFrom('journeys')
    .select(LOCKED_COLUMNS)
    .where('deal_id', '=', key.dealId)
    .where('investor_user_id', '=', key.investorUserId)
    .forUpdate()
    .executeTakeFirst();
  return row && toLocked(row);
}

/**
 * The journey rows of first moves of one deal, inserted in one statement (in investor id order, so
 * that two batches inserting the same new journeys wait for each other instead of deadlocking) and so
 * locked by this transaction. An investor whose row another transaction inserted first (or whose
 * fresh payment reference clashed) goes through lockJourney, which waits for and locks that row or
 * retries with a new reference. Keyed by investor.
 */
export async function createJourneys(
  db: Kysely<DB>,
  dealId: string,
  /** `at`: when the first move happened, if not `create.now` (a history recorded afterwards: the demo deal's seed). */
  firsts: readonly { investorUserId: string; stepId: string; at?: Date }[],
  create: { now: Date; newReference: () => string },
): Promise<Map<string, LockedJourneyRow & { created: boolean }>> {
  const sorted = [...firsts].sort((a, b) => (a.investorUserId < b.investorUserId ? -1 : a.investorUserId > b.investorUserId ? 1 : 0));
  const inserted = await db
    .insertInto('journeys')
    .values(sorted.map((f) => newJourneyRow(dealId, f, create)))
    .onConflict((oc) => oc.doNothing())
    .returning(LOCKED_COLUMNS)
    .execute();
  const rows = new Map(inserted.map((row) => [row.investor_user_id, { ...toLocked(row), created: true }]));
  for (const f of sorted) {
    if (!rows.has(f.investorUserId))
      rows.set(f.investorUserId, await lockJourney(db, { dealId, investorUserId: f.investorUserId }, { stepId: f.stepId, ...create, now: f.at ?? create.now }));
  }
  return rows;
}

/** Removes journey rows that have no event (first moves that were refused). */
export async function deleteEmptyJourneys(db: Kysely<DB>, dealId: string, investorUserIds: readonly string[]): Promise<void> {
  await db.deleteFrom('journeys').where('deal_id', '=', dealId).where('investor_user_id', 'in', investorUserIds).where('event_count', '=', 0).execute();
}

export async function countPendingEditRequests(db: Kysely<DB>, dealId: string, investorUserId: string): Promise<number> {
  const row = await db
    .selectFrom('edit_requests')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('deal_id', '=', dealId)
    .where('investor_user_id', '=', investorUserId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** `%`, `_` and `\` match themselves in the LIKE pattern built from a search text. */
export const likeContaining = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One page of the investors with a journey in the deal, ordered by full name then id, how many
 * there are in all, and whether the deal exists: one round trip. Only the page's ids are read; their
 * events come in one more query. Without a search the page is one range of journeys_deal_name and
 * the total comes from deal_journey_counts; with one, the deal's trigram index finds the matching
 * investors (migrations 0008, 0014).
 */
export async function pageJourneyInvestors(
  db: Kysely<DB>,
  dealId: string,
  options: { limit: number; offset: number; query?: string },
): Promise<{ dealExists: boolean; total: number; investorUserIds: string[] }> {
  type Row = { deal_exists: boolean; total: string | null; ids: string[] };
  const { rows } = options.query
    ? // deal_investor_search (migration 0014): the trigram index holds the deal too, so only this
      // deal's matches are read; they are counted as they are, and only the page's keys are sorted.
      await sql<Row>`
        with matches as materialized (
          select investor_user_id, full_name from deal_investor_search
          where deal_id = ${dealId} and search ilike ${likeContaining(options.query)}
            and (full_name ilike ${likeContaining(options.query)} or email ilike ${likeContaining(options.query)})
        )
        select exists (select 1 from deals where id = ${dealId}) as deal_exists,
          (select count(*) from matches)::text as total,
          array(select investor_user_id from matches order by full_name, investor_user_id
                limit ${options.limit} offset ${options.offset}) as ids`.execute(db)
    : await sql<Row>`
        select exists (select 1 from deals where id = ${dealId}) as deal_exists,
          (select sum(journeys) from deal_journey_counts where deal_id = ${dealId})::text as total,
          array(select investor_user_id from journeys where deal_id = ${dealId} and event_count > 0
                order by investor_full_name, investor_user_id limit ${options.limit} offset ${options.offset}) as ids`.execute(db);
  const row = rows[0]!;
  return { dealExists: row.deal_exists, total: Number(row.total ?? 0), investorUserIds: row.ids };
}

/**
 * Computes the journeys' captured data and visited steps (migration 0021) again from their events:
 * for loads that write events in SQL without the move's statement (the benches' seeds). Captured
 * data is read through `counted_events` (migration 0029), as recaptureJourneys does.
 */
export async function recomputeCaptured(db: Kysely<DB>, dealId: string): Promise<void> {
  await sql`with visits as (
      select investor_user_id, array_agg(to_step_id order by first_seq) as visited
      from (select investor_user_id, to_step_id, min(seq) as first_seq from workflow_events where deal_id = ${dealId} group by 1, 2) s
      group by 1
    ), data as (
      select e.investor_user_id, jsonb_object_agg(d.key, d.value order by e.seq) as captured
      from counted_events e cross join lateral jsonb_each(e.data) d where e.deal_id = ${dealId}
      group by 1
    )
    update journeys j set visited = v.visited, captured = coalesce(d.captured, '{}')
    from visits v left join data d on d.investor_user_id = v.investor_user_id
    where j.deal_id = ${dealId} and j.investor_user_id = v.investor_user_id`.execute(db);
}

/**
 * Computes the captured data of some journeys again from the events that count (`counted_events`,
 * migration 0029: an event of a batch an undo reversed does not), after an undo has written its
 * events. The one definition of "captured" that the jump rules, the console, the exports, the
 * payments and the funnel read from the journey row. The caller holds the journeys' locks.
 */
export async function recaptureJourneys(db: Kysely<DB>, dealId: string, investorUserIds: readonly string[]): Promise<void> {
  await sql`update journeys j set captured = (
      select coalesce(jsonb_object_agg(d.key, d.value order by e.seq), '{}')
      from counted_events e cross join lateral jsonb_each(e.data) d
      where e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id)
    where j.deal_id = ${dealId} and j.investor_user_id = any(${[...investorUserIds]}::text[])`.execute(db);
}
