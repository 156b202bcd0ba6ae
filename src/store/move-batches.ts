// Which events were written together (migration 0025), for undoing a batch as one action. The rows
// are written with the moves themselves (store/moves.ts moveStatements).
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

const toRow = (r: {
  event_id: string;
  batch_id: string;
  kind: string;
  undoes: string | null;
  deal_id: string;
  investor_user_id: string;
  from_step_id: string | null;
  to_step_id: string;
  created_by: string;
  created_at: Date;
}): BatchEventRow => ({
  eventId: r.event_id,
  batchId: r.batch_id,
  kind: r.kind,
  undoes: r.undoes,
  dealId: r.deal_id,
  investorUserId: r.investor_user_id,
  fromStepId: r.from_step_id,
  toStepId: r.to_step_id,
  createdBy: r.created_by,
  createdAt: new Date(r.created_at),
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
export async function latestEvents(
  db: Kysely<DB>,
  dealId: string,
  investorUserIds: readonly string[],
): Promise<Map<string, { eventId: string; toStepId: string; createdAt: Date }>> {
  const { rows } = await sql<{ investor_user_id: string; id: string; to_step_id: string; created_at: Date }>`
    select distinct on (investor_user_id) investor_user_id, id::text as id, to_step_id, created_at
    from workflow_events where deal_id = ${dealId} and investor_user_id = any(${[...investorUserIds]}::text[])
    order by investor_user_id, seq desc`.execute(db);
  return new Map(rows.map((r) => [r.investor_user_id, { eventId: r.id, toStepId: r.to_step_id, createdAt: new Date(r.created_at) }]));
}

/** Locks the journeys of the investors (investor id order, as moves take them). */
export async function lockJourneys(db: Kysely<DB>, dealId: string, investorUserIds: readonly string[]): Promise<void> {
  await sql`select 1 from journeys where deal_id = ${dealId} and investor_user_id = any(${[...investorUserIds]}::text[]) order by investor_user_id for update`.execute(
    db,
  );
}

export interface BatchOfEvent {
  batchId: string;
  kind: string;
  undoes: string | null;
  /** Investors moved by the batch (all of them, whatever page shows its entries). */
  size: number;
  createdAt: Date;
  /** The batch that undid it, if any. */
  undoneBy: string | null;
  /**
   * Something stands in the way of its undo whatever the time: an investor moved since (a later
   * event) or entered the workflow with it (undo.ts refuses both with 409).
   */
  blocked: boolean;
}

/**
 * Per event id asked for that a batch holds: its batch, in one statement. Each distinct batch's
 * figures are read once, over all its rows, so they are exact whatever page the entries are on.
 */
export async function batchesOfEvents(db: Kysely<DB>, eventIds: readonly string[]): Promise<Map<string, BatchOfEvent>> {
  if (eventIds.length === 0) return new Map();
  const { rows } = await sql<{
    event_id: string;
    batch_id: string;
    kind: string;
    undoes: string | null;
    size: number;
    created_at: Date;
    undone_by: string | null;
    blocked: boolean;
  }>`
    with m as (
      select event_id, batch_id, kind, undoes, created_at from move_batch_events where event_id = any(${[...eventIds]}::uuid[])
    ), b as (
      select d.batch_id,
        (select count(*)::int from move_batch_events x where x.batch_id = d.batch_id) as size,
        (select u.batch_id::text from move_batch_events u where u.undoes = d.batch_id limit 1) as undone_by,
        exists (select 1 from move_batch_events x join workflow_events e on e.id = x.event_id
          where x.batch_id = d.batch_id and (x.from_step_id is null or exists (select 1 from workflow_events w
            where w.deal_id = e.deal_id and w.investor_user_id = e.investor_user_id and w.seq > e.seq))) as blocked
      from (select distinct batch_id from m) d
    )
    select m.event_id::text as event_id, m.batch_id::text as batch_id, m.kind, m.undoes::text as undoes, m.created_at, b.size, b.undone_by, b.blocked
    from m join b using (batch_id)`.execute(db);
  return new Map(
    rows.map((r) => [
      r.event_id,
      {
        batchId: r.batch_id,
        kind: r.kind,
        undoes: r.undoes,
        size: r.size,
        createdAt: new Date(r.created_at),
        undoneBy: r.undone_by,
        blocked: r.blocked,
      },
    ]),
  );
}

/**
 * Per investor of an undo batch: the current data of the event it reversed (the undone batch's
 * event of the same investor). Undoing the undo carries it again, since an undone event's data no
 * longer counts as captured (`counted_events`, migration 0029).
 */
export async function reversedData(db: Kysely<DB>, undoBatchId: string): Promise<Map<string, Record<string, string>>> {
  const { rows } = await sql<{ investor_user_id: string; data: Record<string, string> }>`
    select u.investor_user_id, e.data from move_batch_events u
    join move_batch_events b on b.batch_id = u.undoes and b.investor_user_id = u.investor_user_id
    join workflow_events e on e.id = b.event_id
    where u.batch_id = ${undoBatchId}`.execute(db);
  return new Map(rows.map((r) => [r.investor_user_id, r.data]));
}
