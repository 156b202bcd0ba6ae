// Which events were written together (migration 0025), for undoing a batch as one action. The rows
// are written with the moves themselves (store/moves.ts writeMoves).
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

export interface BatchEventRow {
  eventId: string;
  batchId: string;
  kind: string;
  undoes: string | null;
  dealId: string;
  investorUserId: string;
  fromStepId: string | null;
  toStepId: string;
  createdBy: string;
  createdAt: Date;
}

const toRow = (r: { event_id: string; batch_id: string; kind: string; undoes: string | null; deal_id: string; investor_user_id: string; from_step_id: string | null; to_step_id: string; created_by: string; created_at: Date }): BatchEventRow => ({
  eventId: r.event_id, batchId: r.batch_id, kind: r.kind, undoes: r.undoes, dealId: r.deal_id, investorUserId: r.investor_user_id,
  fromStepId: r.from_step_id, toStepId: r.to_step_id, createdBy: r.created_by, createdAt: new Date(r.created_at),
});

/** A batch's rows, by investor. */
export async function listBatchEvents(db: Kysely<DB>, batchId: string): Promise<BatchEventRow[]> {
  const rows = await db.selectFrom('move_batch_events').selectAll().where('batch_id', '=', batchId).orderBy('investor_user_id').execute();
  return rows.map(toRow);
}

/** The batch that undid `batchId`, if any. */
export async function findUndoOf(db: Kysely<DB>, batchId: string): Promise<string | undefined> {
  const row = await db.selectFrom('move_batch_events').select('batch_id').where('undoes', '=', batchId).limit(1).executeTakeFirst();
  return row?.batch_id;
}

/**
 * Per investor of the batch's deal: their latest event (id, step it went to, time), read after the
 * caller has locked their journeys, so nothing can move them until it commits.
 */
export async function latestEvents(db: Kysely<DB>, dealId: string, investorUserIds: readonly string[]): Promise<Map<string, { eventId: string; toStepId: string; createdAt: Date }>> {
  const { rows } = await sql<{ investor_user_id: string; id: string; to_step_id: string; created_at: Date }>`
    select distinct on (investor_user_id) investor_user_id, id::text as id, to_step_id, created_at
    from workflow_events where deal_id = ${dealId} and investor_user_id = any(${[...investorUserIds]}::text[])
    order by investor_user_id, seq desc`.execute(db);
  return new Map(rows.map((r) => [r.investor_user_id, { eventId: r.id, toStepId: r.to_step_id, createdAt: new Date(r.created_at) }]));
}

/** Locks the journeys of the investors (investor id order, as moves take them). */
export async function lockJourneys(db: Kysely<DB>, dealId: string, investorUserIds: readonly string[]): Promise<void> {
  await sql`select 1 from journeys where deal_id = ${dealId} and investor_user_id = any(${[...investorUserIds]}::text[]) order by investor_user_id for update`.execute(db);
}

export interface BatchOfEvent {
  batchId: string;
  kind: string;
  undoes: string | null;
  /** Investors moved by the batch. */
  size: number;
  createdAt: Date;
  /** The batch that undid it, if any. */
  undoneBy: string | null;
}

/** Per event id asked for that a batch holds: its batch, in one statement. */
export async function batchesOfEvents(db: Kysely<DB>, eventIds: readonly string[]): Promise<Map<string, BatchOfEvent>> {
  if (eventIds.length === 0) return new Map();
  const { rows } = await sql<{ event_id: string; batch_id: string; kind: string; undoes: string | null; size: number; created_at: Date; undone_by: string | null }>`
    select m.event_id::text as event_id, m.batch_id::text as batch_id, m.kind, m.undoes::text as undoes, m.created_at,
      (select count(*)::int from move_batch_events b where b.batch_id = m.batch_id) as size,
      (select u.batch_id::text from move_batch_events u where u.undoes = m.batch_id limit 1) as undone_by
    from move_batch_events m where m.event_id = any(${[...eventIds]}::uuid[])`.execute(db);
  return new Map(rows.map((r) => [r.event_id, { batchId: r.batch_id, kind: r.kind, undoes: r.undoes, size: r.size, createdAt: new Date(r.created_at), undoneBy: r.undone_by }]));
}
