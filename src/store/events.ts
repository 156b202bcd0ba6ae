// Workflow events and the revisions of their data. `workflow_events.data` is the current version;
// `event_revisions` holds the versions an edit made, with revision 1 stored by the event's first
// edit (or by a move that records a reason); until then revision 1 is the event itself.
// `all_event_revisions` (migration 0042) reads both as one: every revision of every event.
import { type Kysely, type Selectable, sql } from 'kysely';
import type { EventRevision, WorkflowEvent } from '../domain/event.ts';
import { prepared } from './prepared.ts';
import type { DB, WorkflowEventsTable } from './schema.ts';

export interface StoredEvent extends WorkflowEvent {
  dealId: string;
  investorUserId: string;
  seq: number;
}

/** The columns an event is made of (the version it was made under is read where it matters, not here). */
type EventRow = Omit<Selectable<WorkflowEventsTable>, 'workflow_version'>;

const toEvent = (row: EventRow): StoredEvent => ({
  id: row.id,
  fromStepId: row.from_step_id,
  toStepId: row.to_step_id,
  data: row.data,
  createdByUserId: row.created_by_user_id,
  createdAt: row.created_at.toISOString(),
  dealId: row.deal_id,
  investorUserId: row.investor_user_id,
  seq: row.seq,
});

export const publicEvent = ({ id, fromStepId, toStepId, data, createdByUserId, createdAt }: WorkflowEvent): WorkflowEvent => ({
  id,
  fromStepId,
  toStepId,
  data,
  createdByUserId,
  createdAt,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findEvent(db: Kysely<DB>, eventId: string): Promise<StoredEvent | undefined> {
  if (!UUID.test(eventId)) return undefined; // the column is uuid: any other text would be a SQL error
  const row = await db.selectFrom('workflow_events').selectAll().where('id', '=', eventId).executeTakeFirst();
  return row && toEvent(row);
}

/** The journey of one investor in one deal, oldest first (a hot read: a named prepared statement). */
export async function listJourneyEvents(db: Kysely<DB>, dealId: string, investorUserId: string): Promise<StoredEvent[]> {
  const { rows } = await sql<EventRow>`${prepared('journey-events')}
    select id, deal_id, investor_user_id, seq, from_step_id, to_step_id, data, created_by_user_id, created_at
    from workflow_events where deal_id = ${dealId} and investor_user_id = ${investorUserId} order by seq`.execute(db);
  return rows.map(toEvent);
}

/**
 * getInvestorJourney's body for one investor's journey, as JSON text built by PostgreSQL in the response's
 * exact shape (`{ investor: { id }, journey: [WorkflowEvent…] }`, events oldest first), with the
 * number of events. The service sends the text as it comes: no rows to parse into objects and
 * serialise again, which was most of this read's CPU. `row_to_json` writes compact JSON; `data` is
 * the jsonb column's own text, and `createdAt` the form every other response uses (the column holds
 * milliseconds, `timestamptz(3)`).
 */
export async function findJourneyJson(db: Kysely<DB>, dealId: string, investorUserId: string): Promise<{ events: number; json: string; version: string }> {
  const { rows } = await sql<{ events: number; json: string; version: string }>`${prepared('journey-json')}
    select count(*)::int as events,
      coalesce((select audit_seq from journeys where deal_id = ${dealId} and investor_user_id = ${investorUserId}), 0)::text as version,
      '{"investor":{"id":' || to_json(${investorUserId}::text)::text || '},"journey":['
        || coalesce(string_agg(row_to_json(v)::text, ',' order by e.seq), '') || ']}' as json
    from workflow_events e
    cross join lateral (
      select e.id, e.from_step_id as "fromStepId", e.to_step_id as "toStepId", e.data, e.created_by_user_id as "createdByUserId",
        to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt"
    ) v
    where e.deal_id = ${dealId} and e.investor_user_id = ${investorUserId}`.execute(db);
  return rows[0]!;
}

/**
 * A journey's version: the length of its audit chain, which every move and every edit of its
 * events lengthens (undefined: no journey). One primary-key read.
 */
export async function findJourneyVersion(db: Kysely<DB>, dealId: string, investorUserId: string): Promise<string | undefined> {
  const { rows } = await sql<{ version: string }>`${prepared('journey-version')}
    select audit_seq::text as version from journeys where deal_id = ${dealId} and investor_user_id = ${investorUserId}`.execute(db);
  return rows[0]?.version;
}

/** The journeys of several investors in one deal, in one query, each oldest first. */
export async function listJourneysEvents(db: Kysely<DB>, dealId: string, investorUserIds: string[]): Promise<Map<string, StoredEvent[]>> {
  const byInvestor = new Map<string, StoredEvent[]>(investorUserIds.map((id) => [id, []]));
  if (investorUserIds.length === 0) return byInvestor;
  const rows = await db
    .selectFrom('workflow_events')
    .selectAll()
    .where('deal_id', '=', dealId)
    .where('investor_user_id', 'in', investorUserIds)
    .orderBy('investor_user_id')
    .orderBy('seq')
    .execute();
  for (const row of rows) byInvestor.get(row.investor_user_id)?.push(toEvent(row));
  return byInvestor;
}

/** Every revision of an event, oldest first; revision 1 read from the event when no row holds it. */
export async function listRevisions(db: Kysely<DB>, eventId: string): Promise<EventRevision[]> {
  const rows = await db.selectFrom('all_event_revisions').selectAll().where('event_id', '=', eventId).orderBy('revision').execute();
  return rows.map((r) => ({ revision: r.revision, data: r.data, setByUserId: r.set_by_user_id, setAt: r.set_at.toISOString(), reason: r.reason }));
}
