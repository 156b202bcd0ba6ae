// An event edit's two round trips: one statement that finds the event, locks its journey and reads
// what the edit rules need, and one that writes the new revision (with revision 1 from the event
// on its first edit), the event's data and the outbox entry.
import { type Kysely, sql } from 'kysely';
import type { Step, StepField, Requirement, StepType } from '../domain/workflow.ts';
import type { HashedEntry } from '../domain/audit.ts';
import { auditInsertCte, type ChainHead, toHead } from './audit.ts';
import type { StoredEvent } from './events.ts';
import { noteJourneyVersionsChanged } from './journey-versions.ts';
import { type OutboxEntryInput, outboxCtes } from './outbox.ts';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface EditFacts {
  event: StoredEvent;
  /** The data of the journey's events before this one, oldest first. */
  earlier: Record<string, string>[];
  /** The step the event entered (retired or not); undefined if it is gone. */
  step: Step | undefined;
  /** The head of the journey's audit chain, current under the lock. */
  auditHead: ChainHead;
  /** The deal's currency (null: none set): what amounts are in when no data names a currency. */
  dealCurrency: string | null;
}

/**
 * Loads an edit's facts in one statement, the journey row locked FOR UPDATE (edits and moves of a
 * journey run one after the other). As for moves (store/moves.ts), a lock that waited for a change
 * made after the statement's snapshot makes the facts stale: then `stale` is true and the caller
 * reads them again (the same statement, now after the lock: the row version agrees).
 */
export async function loadEditFacts(db: Kysely<DB>, eventId: string): Promise<EditFacts | undefined | 'stale'> {
  if (!UUID.test(eventId)) return undefined; // the column is uuid: any other text would be a SQL error
  type Row = {
    event: {
      id: string;
      deal_id: string;
      investor_user_id: string;
      seq: number;
      from_step_id: string | null;
      to_step_id: string;
      data: Record<string, string>;
      created_by_user_id: string;
      created_at: string;
    };
    locked_version: string | null;
    seen_version: string | null;
    audit: { seq: number; head: string | null } | null;
    earlier: Record<string, string>[];
    step: { id: string; label: string; type: string; fields: StepField[]; requirements: Requirement[]; form_id: string | null } | null;
    deal_currency: string | null;
  };
  const { rows } = await sql<Row>`${prepared('edit-load')}
    with e as (select id, deal_id, investor_user_id, seq, from_step_id, to_step_id, data, created_by_user_id, created_at
      from workflow_events where id = ${eventId}::uuid)
    select row_to_json(e) as event,
      (select xmin::text from journeys j where j.deal_id = e.deal_id and j.investor_user_id = e.investor_user_id for update) as locked_version,
      (select xmin::text from journeys j where j.deal_id = e.deal_id and j.investor_user_id = e.investor_user_id) as seen_version,
      (select json_build_object('seq', audit_seq, 'head', audit_head) from journeys j
        where j.deal_id = e.deal_id and j.investor_user_id = e.investor_user_id) as audit,
      (select coalesce(json_agg(w.data order by w.seq), '[]') from workflow_events w
        where w.deal_id = e.deal_id and w.investor_user_id = e.investor_user_id and w.seq < e.seq) as earlier,
      (select row_to_json(s) from (select id, label, type, fields, requirements, form_id from workflow_steps where id = e.to_step_id) s) as step,
      (select currency from deals d where d.id = e.deal_id) as deal_currency
    from e`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  if (row.locked_version !== row.seen_version) return 'stale';
  const e = row.event;
  return {
    event: {
      id: e.id,
      fromStepId: e.from_step_id,
      toStepId: e.to_step_id,
      data: e.data,
      createdByUserId: e.created_by_user_id,
      createdAt: new Date(e.created_at).toISOString(),
      dealId: e.deal_id,
      investorUserId: e.investor_user_id,
      seq: e.seq,
    },
    earlier: row.earlier,
    step: row.step
      ? {
          id: row.step.id,
          label: row.step.label,
          type: row.step.type as StepType,
          stepFields: row.step.fields,
          requirements: row.step.requirements,
          formId: row.step.form_id,
        }
      : undefined,
    // Read from the statement's snapshot: current, since the row version agrees with the locked one.
    auditHead: toHead(row.audit?.seq, row.audit?.head),
    dealCurrency: row.deal_currency,
  };
}

/**
 * An edit's writes in one statement: revision 1 from the event's data as it stands, when no row
 * holds it yet (a move stores none unless it records a reason: migration 0042; the event's data is
 * still its first here, since this is the event's first edit), the next revision (2 then: the
 * statement's parts do not see each other's rows), the event's current data (a cache the
 * history triggers let follow only a revision of the same transaction), the journey's captured data
 * merged again from its events that count (`counted_events`: not those an undo reversed) with the new data (the statement's other parts do not see the
 * event's update), the outbox entry (its feed
 * key at least the journey's last one) and the audit entry with the journey's new head. The caller
 * holds the journey lock.
 */
export async function writeEdit(
  db: Kysely<DB>,
  event: { id: string; dealId: string; investorUserId: string },
  data: Record<string, string>,
  by: { userId: string; at: Date; reason: string | null },
  entry: OutboxEntryInput,
  audit: HashedEntry,
): Promise<void> {
  const json = JSON.stringify(data);
  noteJourneyVersionsChanged(event.dealId);
  await sql`${prepared('edit-write')}
    with first as (
      insert into event_revisions (event_id, revision, data, set_by_user_id, set_at, reason)
      select e.id, 1, e.data, e.created_by_user_id, e.created_at, null from workflow_events e
      where e.id = ${event.id}::uuid and not exists (select 1 from event_revisions r where r.event_id = e.id and r.revision = 1)
    ), revision as (
      insert into event_revisions (event_id, revision, data, set_by_user_id, set_at, reason)
      select ${event.id}::uuid, coalesce(max(revision), 1) + 1, ${json}::jsonb, ${by.userId}::text, ${by.at}::timestamptz, ${by.reason}::text
      from event_revisions where event_id = ${event.id}::uuid
    ), edited as (
      update workflow_events set data = ${json}::jsonb where id = ${event.id}::uuid
    ), journey as (
      update journeys set feed_xid = greatest(pg_current_xact_id(), feed_xid), audit_seq = ${audit.seq}, audit_head = ${audit.hash},
        captured = (select coalesce(jsonb_object_agg(d.key, d.value order by w.seq), '{}')
          from counted_events w cross join lateral jsonb_each(case when w.id = ${event.id}::uuid then ${json}::jsonb else w.data end) d
          where w.deal_id = ${event.dealId} and w.investor_user_id = ${event.investorUserId})
      where deal_id = ${event.dealId} and investor_user_id = ${event.investorUserId}
      returning feed_xid
    ), ${auditInsertCte(audit, event.dealId, sql`(select feed_xid from journey)`)}, ${outboxCtes(entry, sql`(select feed_xid from journey)`)}
    select 1`.execute(db);
}
