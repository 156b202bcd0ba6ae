// A move's two round trips: one statement that loads every fact the jump rules need (taking the
// locks), and one that writes the event, its revision 1, the journey's new position and the outbox
// entry with its deliveries.
import { type Kysely, sql } from 'kysely';
import type { Investor } from '../domain/investor.ts';
import type { HashedEntry } from '../domain/audit.ts';
import { auditInsertCte, type ChainHead, toHead } from './audit.ts';
import type { StoredEvent } from './events.ts';
import { toInvestor } from './investors.ts';
import { type OutboxEntryInput, outboxCtes } from './outbox.ts';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

/** What a journey's earlier events tell the rules: where it went, and what it captured. */
export interface EarlierEvent {
  toStepId: string;
  data: Record<string, string>;
}

export interface MoveFacts {
  /** The workflow row's version, taken FOR SHARE; undefined when the deal has no workflow. */
  workflowVersion: number | undefined;
  investor: Investor | undefined;
  /** The journey row, locked FOR UPDATE; undefined when the investor has no journey in the deal. */
  journey: { currentStepId: string | null; eventCount: number; workflowVersion: number | null; auditHead: ChainHead } | undefined;
  /**
   * The journey's events, or undefined when they may be stale: the journey lock had to wait for
   * another transaction (a move, an edit) that changed the row after this statement's snapshot.
   */
  events: EarlierEvent[] | undefined;
  /** Pending edit requests of the investor in the deal (0 when not asked for). */
  pendingEditRequests: number;
}

/**
 * Loads a move's facts in one statement. The locks are those the move needs: the workflow row FOR
 * SHARE (a re-applied workflow waits for running moves), the journey row FOR UPDATE (moves of one
 * investor in one deal run one after the other). A statement reads one snapshot, taken before any
 * lock wait; the locked row is read in its newest version, so comparing its row version (`xmin`)
 * with the snapshot's tells whether the events read are current.
 */
export async function loadMoveFacts(
  db: Kysely<DB>,
  key: { dealId: string; investorUserId: string },
  options: { countPendingEditRequests: boolean },
): Promise<MoveFacts> {
  const { dealId, investorUserId } = key;
  type Row = {
    workflow_version: number | null;
    investor: { id: string; remote_id: string; data_source: string; team_user_id: string | null; kyc_check_level: number | null; contact: unknown } | null;
    journey: { current_step_id: string; event_count: number; workflow_version: number | null; row_version: string; audit_seq: number; audit_head: string | null } | null;
    seen_version: string | null;
    events: EarlierEvent[];
    pending: number;
  };
  const { rows } = await sql<Row>`${prepared('move-load')}
    select
      (select version from workflows where deal_id = ${dealId} for share) as workflow_version,
      (select row_to_json(i) from (select id, remote_id, data_source, team_user_id, kyc_check_level, contact
        from investors where id = ${investorUserId}) i) as investor,
      (select row_to_json(j) from (select current_step_id, event_count, workflow_version, xmin::text as row_version, audit_seq, audit_head
        from journeys where deal_id = ${dealId} and investor_user_id = ${investorUserId} for update) j) as journey,
      (select xmin::text from journeys where deal_id = ${dealId} and investor_user_id = ${investorUserId}) as seen_version,
      (select coalesce(json_agg(json_build_object('toStepId', to_step_id, 'data', data) order by seq), '[]')
        from workflow_events where deal_id = ${dealId} and investor_user_id = ${investorUserId}) as events,
      (case when ${options.countPendingEditRequests}::boolean then (select count(*) from edit_requests
        where deal_id = ${dealId} and investor_user_id = ${investorUserId} and status = 'pending') else 0 end)::int as pending`.execute(db);
  const row = rows[0]!;
  const journey = row.journey ?? undefined;
  return {
    workflowVersion: row.workflow_version ?? undefined,
    investor: row.investor ? toInvestor(row.investor) : undefined,
    journey: journey && {
      currentStepId: journey.event_count === 0 ? null : journey.current_step_id,
      eventCount: journey.event_count,
      workflowVersion: journey.event_count === 0 ? null : journey.workflow_version,
      auditHead: toHead(journey.audit_seq, journey.audit_head),
    },
    events: journey && journey.row_version !== row.seen_version ? undefined : row.events,
    pendingEditRequests: row.pending,
  };
}

/**
 * A move's writes in one statement: the new event, its revision 1, the journey's position and
 * count, the outbox entry (with its deliveries), whose feed key is at least the journey's last
 * one, and the audit entry (hashed from the head the load read under the lock) with the new head.
 * The caller holds the journey lock. `workflowVersion`: the version the event is made under, which
 * the journey moves on from now on.
 */
export async function writeMove(
  db: Kysely<DB>,
  event: StoredEvent,
  entry: OutboxEntryInput,
  workflowVersion: number,
  audit: HashedEntry,
  /** The reason on revision 1 (an approved withdrawal's decision); null for a plain move. */
  reason: string | null = null,
): Promise<void> {
  const data = JSON.stringify(event.data);
  const at = new Date(event.createdAt);
  await sql`${prepared('move-write')}
    with moved as (
      update journeys set current_step_id = ${event.toStepId}, event_count = ${event.seq}, moved_at = ${at}::timestamptz, workflow_version = ${workflowVersion}::int,
        feed_xid = greatest(pg_current_xact_id(), feed_xid), audit_seq = ${audit.seq}, audit_head = ${audit.hash}
      where deal_id = ${event.dealId} and investor_user_id = ${event.investorUserId}
      returning feed_xid
    ), ${auditInsertCte(audit, event.dealId, sql`(select feed_xid from moved)`)}, event as (
      insert into workflow_events (id, deal_id, investor_user_id, seq, from_step_id, to_step_id, data, created_by_user_id, created_at, workflow_version)
      values (${event.id}::uuid, ${event.dealId}, ${event.investorUserId}, ${event.seq}, ${event.fromStepId}::text, ${event.toStepId},
        ${data}::jsonb, ${event.createdByUserId}, ${at}::timestamptz, ${workflowVersion}::int)
      returning id
    ), revision as (
      insert into event_revisions (event_id, revision, data, set_by_user_id, set_at, reason)
      select id, 1, ${data}::jsonb, ${event.createdByUserId}, ${at}::timestamptz, ${reason}::text from event
    ), ${outboxCtes(entry, sql`(select feed_xid from moved)`)}
    select (select count(*) from deliveries)::int as deliveries`.execute(db);
}
