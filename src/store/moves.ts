// A move's two round trips, for one move or a chunk of a bulk request alike: one statement that
// loads every fact the jump rules need (taking the locks), and one that writes the events, the
// journeys' new positions, the outbox entries with their deliveries and the audit entries (an
// event's revision 1 is the event itself until it is edited: migration 0042). `moveStatements` is
// their one entry point: load, the caller's decision, write, in that order, with the planner
// setting they need held for exactly their span.
import { type Kysely, sql } from 'kysely';
import type { Investor } from '../domain/investor.ts';
import type { HashedEntry } from '../domain/audit.ts';
import { type ChainHead, toHead } from './audit.ts';
import type { StoredEvent } from './events.ts';
import { toInvestor } from './investors.ts';
import { noteJourneyVersionsChanged } from './journey-versions.ts';
import { dealStream, feedNotify, type OutboxEntryInput } from './outbox.ts';
import { prepared } from './prepared.ts';
import { newestStatements } from './investor-categories.ts';
import { newestKycLevels } from './kyc.ts';
import { onCurrentList } from './sanctions.ts';
import type { DB } from './schema.ts';

export interface MoveFacts {
  /** The workflow row's version, taken FOR SHARE; undefined when the deal has no workflow. */
  workflowVersion: number | undefined;
  /** The deal's currency (null: none set). */
  dealCurrency: string | null;
  /** Per investor asked for: their directory row (absent: unknown investor). */
  investors: Map<string, Investor>;
  /**
   * Per investor asked for: the journey row, locked FOR UPDATE and read in its newest version
   * (after any lock wait), with what its events captured and the steps it visited (migration 0021);
   * absent when the investor has no journey in the deal.
   */
  journeys: Map<string, JourneyFacts>;
  /**
   * Per investor: pending edit requests in the deal (only when asked for; absent: none), and the
   * investors whose count may be stale: the journey lock had to wait for another transaction (a
   * move, an edit) that changed the row after this statement's snapshot, which the count was read from.
   * Both only when the count was asked for (the snapshot's row versions are read only then).
   */
  pendingEditRequests: Map<string, number>;
  stalePending: Set<string>;
  /** The step the deal's payment settings name as where money is received (null: none). */
  paymentStepId: string | null;
  /** The deal's payment settings name a bank account to pay into (investors can be told how to pay). */
  payable: boolean;
  /** Investors asked for with an open or confirmed hit on a current sanctions list (store/sanctions.ts). */
  sanctioned: Set<string>;
  /** The newest category statement of each investor asked for that has one (store/investor-categories.ts). */
  categories: Map<string, { category: string; expiresOn: string }>;
  /** The newest accepted KYC level of each investor asked for that has one (store/kyc.ts). */
  kycLevels: Map<string, { level: number; expiresOn: string }>;
}

export interface JourneyFacts {
  currentStepId: string | null;
  eventCount: number;
  workflowVersion: number | null;
  auditHead: ChainHead;
  /** Its events' data merged in sequence order (a later value of a key wins). */
  captured: Record<string, string>;
  /** The steps it has entered, in order of first entry. */
  visited: string[];
}

/** What the caller decided from the facts: the moves to write, and what it returns. */
export interface MoveDecision<T> {
  writes: readonly MoveWrite[];
  result: T;
}

/**
 * The moves of some investors of one deal, in the caller's transaction: their facts loaded under
 * their locks (loadMoveFacts), `decide` (the jump rules, and whatever statements they need) turns
 * them into writes, and the writes go in one statement (writeMoves), which also puts the
 * transaction's plan_cache_mode back as the load found it. When `decide` throws, the setting is
 * put back (if the transaction still can) and the error goes on.
 */
export async function moveStatements<T>(
  db: Kysely<DB>,
  dealId: string,
  investorUserIds: readonly string[],
  options: { countPendingEditRequests: boolean },
  decide: (facts: MoveFacts) => Promise<MoveDecision<T>>,
): Promise<T> {
  const { facts, plansBefore } = await loadMoveFacts(db, dealId, investorUserIds, options);
  let decision: MoveDecision<T>;
  try {
    decision = await decide(facts);
  } catch (err) {
    await sql`select set_config('plan_cache_mode', ${plansBefore}, true)`.execute(db).catch(() => undefined);
    throw err;
  }
  await writeMoves(db, dealId, decision.writes, plansBefore);
  return decision.result;
}

/**
 * Loads the facts of the moves of some investors in one deal, in one statement (one investor for a
 * single move, a chunk of a bulk request for many). The locks are those the moves need: the
 * workflow row FOR SHARE (a re-applied workflow waits for running moves), the journey rows FOR
 * UPDATE, taken in investor id order so that two batches over the same investors never deadlock
 * (moves of one investor in one deal run one after the other). A locked row is read in its newest
 * version, so its position, captured data and visited steps are current; the rest of the statement
 * reads one snapshot, taken before any lock wait, so comparing a locked row's version (`xmin`) with
 * the snapshot's tells whether that investor's pending count is current.
 *
 * A statement before it sets generic plans for the named statements of the transaction until
 * writeMoves puts the setting back. The move's two statements take arrays, whose length a generic
 * plan cannot know: left to choose, PostgreSQL planned them afresh on every call (a plan for one row
 * looks cheaper than one for arrays of unknown length), and planning the write, a statement of
 * eight parts, cost about as much database CPU as running it (docs/benchmarks.md). That
 * statement is named too (planned once per connection, not on every move); set inside the load
 * instead, it would come too late for the load's own plan, which PostgreSQL then planned on every
 * call: 0.38 ms of planning per move against the 0.05 ms the separate statement costs.
 */
async function loadMoveFacts(
  db: Kysely<DB>,
  dealId: string,
  investorUserIds: readonly string[],
  options: { countPendingEditRequests: boolean },
): Promise<{ facts: MoveFacts; plansBefore: string }> {
  type Row = {
    workflow_version: number | null;
    deal_currency: string | null;
    investors: { id: string; remote_id: string; data_source: string; team_user_id: string | null; kyc_check_level: number | null; contact: unknown }[];
    journeys: {
      investor_user_id: string;
      current_step_id: string;
      event_count: number;
      workflow_version: number | null;
      row_version: string;
      audit_seq: number;
      audit_head: string | null;
      captured: Record<string, string>;
      visited: string[];
    }[];
    seen: Record<string, string> | null;
    pending: Record<string, number> | null;
    payment_step_id: string | null;
    payable: boolean | null;
    sanctioned: string[];
    categories: Record<string, { category: string; expiresOn: string }> | null;
    kyc_levels: Record<string, { level: number; expiresOn: string }> | null;
  };
  const ids = [...investorUserIds];
  const plansBefore = (
    await sql<{ before: string }>`${prepared('move-plans')}select current_setting('plan_cache_mode') as before,
    set_config('plan_cache_mode', 'force_generic_plan', true) as plans`.execute(db)
  ).rows[0]!.before;
  const { rows } = await sql<Row>`${prepared('move-load')}
    select (select version from workflows where deal_id = ${dealId} for share) as workflow_version,
      (select currency from deals where id = ${dealId}) as deal_currency,
      (select coalesce(json_agg(i), '[]') from (select id, remote_id, data_source, team_user_id, kyc_check_level, contact
        from investors where id = any(${ids}::text[])) i) as investors,
      (select coalesce(json_agg(j), '[]') from (select investor_user_id, current_step_id, event_count, workflow_version, xmin::text as row_version,
          audit_seq, audit_head, captured, visited
        from journeys where deal_id = ${dealId} and investor_user_id = any(${ids}::text[]) order by investor_user_id for update) j) as journeys,
      (case when ${options.countPendingEditRequests}::boolean then (select json_object_agg(investor_user_id, xmin::text)
        from journeys where deal_id = ${dealId} and investor_user_id = any(${ids}::text[])) end) as seen,
      (case when ${options.countPendingEditRequests}::boolean then (select json_object_agg(investor_user_id, n) from (select investor_user_id, count(*)::int as n
        from edit_requests where deal_id = ${dealId} and investor_user_id = any(${ids}::text[]) and status = 'pending' group by 1) p) end) as pending,
      (select payment_step_id from deal_payment_settings where deal_id = ${dealId}) as payment_step_id,
      (select iban is not null from deal_payment_settings where deal_id = ${dealId}) as payable,
      (select coalesce(json_agg(distinct h.investor_id), '[]') from sanctions_hits h
        where h.investor_id = any(${ids}::text[]) and h.status <> 'dismissed' and ${onCurrentList}) as sanctioned,
      ${newestStatements(ids)} as categories,
      ${newestKycLevels(ids)} as kyc_levels`.execute(db);
  const row = rows[0]!;
  const journeys = new Map<string, JourneyFacts>();
  const stalePending = new Set<string>();
  for (const j of row.journeys) {
    journeys.set(j.investor_user_id, {
      currentStepId: j.event_count === 0 ? null : j.current_step_id,
      eventCount: j.event_count,
      workflowVersion: j.event_count === 0 ? null : j.workflow_version,
      auditHead: toHead(j.audit_seq, j.audit_head),
      captured: j.captured,
      visited: j.visited,
    });
    if (options.countPendingEditRequests && j.row_version !== row.seen?.[j.investor_user_id]) stalePending.add(j.investor_user_id);
  }
  return {
    facts: {
      workflowVersion: row.workflow_version ?? undefined,
      dealCurrency: row.deal_currency,
      investors: new Map(row.investors.map((i) => [i.id, toInvestor(i)])),
      journeys,
      pendingEditRequests: new Map(Object.entries(row.pending ?? {})),
      stalePending,
      paymentStepId: row.payment_step_id,
      payable: row.payable === true,
      sanctioned: new Set(row.sanctioned),
      categories: new Map(Object.entries(row.categories ?? {})),
      kycLevels: new Map(Object.entries(row.kyc_levels ?? {})),
    },
    plansBefore,
  };
}

/** One move to write: the event, its outbox entry, the audit entry, and the reason revision 1 records. */
export interface MoveWrite {
  event: StoredEvent;
  entry: OutboxEntryInput;
  /** The version the event is made under, which the journey moves on from now on. */
  workflowVersion: number;
  /** Hashed from the head the load read under the journey lock. */
  audit: HashedEntry;
  /**
   * The reason on revision 1 (an approved withdrawal's decision, an undo); null for a plain move.
   * Only a move with a reason stores its revision 1 row: the event has no column for it, and
   * without one revision 1 is read from the event (`all_event_revisions`, migration 0042).
   */
  reason: string | null;
  /** The write the move belongs to, for undo (migration 0025); null for a move undo never takes back (a workflow migration). */
  batch: { id: string; kind: string; undoes: string | null } | null;
  /**
   * The journey keeps the time it entered its step (`moved_at`): a workflow migration re-files the
   * investor under a new version, it does not move them, so the board's days at the step go on.
   */
  keepsTimeAtStep?: boolean;
}

/**
 * The writes of moves of one deal (each of a distinct journey, whose lock the caller holds) in one
 * statement, whatever their number: per move the new event, its revision 1 only when it records a
 * reason (else the event is revision 1, migration 0042), its batch row (for undo), the journey's position,
 * count, captured data (the event's merged over it) and visited steps, the outbox entry (with its
 * deliveries), whose feed key is at least the journey's last one, and the audit entry with the
 * journey's new head. The statement's text is the same for any number of moves. It puts back the
 * transaction's plan_cache_mode as the load found it, `before` (a statement of its own when there
 * is nothing to write).
 */
async function writeMoves(db: Kysely<DB>, dealId: string, moves: readonly MoveWrite[], before: string): Promise<void> {
  if (moves.length === 0) {
    await sql`select set_config('plan_cache_mode', ${before}, true)`.execute(db);
    return;
  }
  const col = <T>(f: (m: MoveWrite) => T) => moves.map(f);
  noteJourneyVersionsChanged(dealId);
  await sql`${prepared('move-write')}
    with m as (
      select * from unnest(${col((m) => m.event.investorUserId)}::text[], ${col((m) => m.event.id)}::uuid[], ${col((m) => m.event.seq)}::int[],
        ${col((m) => m.event.fromStepId)}::text[], ${col((m) => m.event.toStepId)}::text[], ${col((m) => JSON.stringify(m.event.data))}::jsonb[],
        ${col((m) => m.event.createdByUserId)}::text[], ${col((m) => m.event.createdAt)}::timestamptz[], ${col((m) => m.workflowVersion)}::int[],
        ${col((m) => m.reason)}::text[], ${col((m) => String(m.audit.seq))}::bigint[], ${col((m) => m.audit.chain)}::text[], ${col((m) => m.audit.type)}::text[],
        ${col((m) => m.audit.principal)}::text[], ${col((m) => m.audit.tokenId)}::text[], ${col((m) => m.audit.at)}::timestamptz[],
        ${col((m) => JSON.stringify(m.audit.change))}::jsonb[], ${col((m) => m.audit.prevHash)}::text[], ${col((m) => m.audit.hash)}::text[],
        ${col((m) => m.entry.id)}::uuid[], ${col((m) => m.entry.type)}::text[], ${col((m) => m.entry.occurredAt.toISOString())}::timestamptz[],
        ${col((m) => JSON.stringify(m.entry.data))}::jsonb[], ${col((m) => JSON.stringify(m.entry.stepIds))}::jsonb[],
        ${col((m) => m.batch?.id ?? null)}::uuid[], ${col((m) => m.batch?.kind ?? null)}::text[], ${col((m) => m.batch?.undoes ?? null)}::uuid[],
        ${col((m) => m.keepsTimeAtStep === true)}::boolean[])
        with ordinality as m(investor_user_id, event_id, seq, from_step_id, to_step_id, data, created_by, created_at, workflow_version,
          reason, audit_seq, audit_chain, audit_type, audit_principal, audit_token_id, audit_at, audit_change, audit_prev_hash, audit_hash,
          entry_id, entry_type, entry_at, entry_payload, entry_steps, batch_id, batch_kind, batch_undoes, keeps_time, n)
    ), moved as (
      update journeys j set current_step_id = m.to_step_id, event_count = m.seq,
        moved_at = case when m.keeps_time then j.moved_at else m.created_at end, workflow_version = m.workflow_version,
        captured = j.captured || m.data,
        visited = case when m.to_step_id = any (j.visited) then j.visited else j.visited || m.to_step_id end,
        feed_xid = greatest(pg_current_xact_id(), j.feed_xid), audit_seq = m.audit_seq, audit_head = m.audit_hash
      from m where j.deal_id = ${dealId} and j.investor_user_id = m.investor_user_id
      returning j.investor_user_id, j.feed_xid
    ), audit as (
      insert into audit_log (chain, seq, xid, type, principal, token_id, at, change, deal_id, prev_hash, hash)
      select m.audit_chain, m.audit_seq, k.feed_xid, m.audit_type, m.audit_principal, m.audit_token_id, m.audit_at, m.audit_change, ${dealId}::text,
        m.audit_prev_hash, m.audit_hash
      from m join moved k using (investor_user_id) order by m.n
    ), event as (
      insert into workflow_events (id, deal_id, investor_user_id, seq, from_step_id, to_step_id, data, created_by_user_id, created_at, workflow_version)
      select m.event_id, ${dealId}::text, m.investor_user_id, m.seq, m.from_step_id, m.to_step_id, m.data, m.created_by, m.created_at, m.workflow_version
      from m order by m.n
      returning id
    ), revision as (
      insert into event_revisions (event_id, revision, data, set_by_user_id, set_at, reason)
      select m.event_id, 1, m.data, m.created_by, m.created_at, m.reason from m join event e on e.id = m.event_id where m.reason is not null
    ), batch as (
      insert into move_batch_events (event_id, batch_id, kind, undoes, deal_id, investor_user_id, from_step_id, to_step_id, created_by, created_at)
      select m.event_id, m.batch_id, m.batch_kind, m.batch_undoes, ${dealId}::text, m.investor_user_id, m.from_step_id, m.to_step_id, m.created_by, m.created_at
      from m join event e on e.id = m.event_id where m.batch_id is not null
    ), entry as (
      insert into outbox (id, stream, xid, sequence, type, occurred_at, deal_id, payload)
      select k.entry_id, ${dealStream(dealId)}::text, k.feed_xid, nextval('outbox_position'), k.entry_type, k.entry_at, ${dealId}::text, k.entry_payload
      from (select m.n, m.entry_id, m.entry_type, m.entry_at, m.entry_payload, moved.feed_xid from m join moved using (investor_user_id) offset 0) k
      order by k.n
      returning id, type
    ), deliveries as (
      insert into webhook_deliveries (id, outbox_id, deal_id, event_type, url, secret_id, created_at, next_attempt_at)
      select distinct on (m.entry_id, t.url) gen_random_uuid(), m.entry_id, t.deal_id, m.entry_type, t.url, t.secret_id, m.entry_at, m.entry_at
      from entry join m on m.entry_id = entry.id
        join step_triggers t on t.deal_id = ${dealId} and t.step_id in (select jsonb_array_elements_text(m.entry_steps)) and m.entry_type = any(t.events)
      order by m.entry_id, t.url, t.position
      on conflict (outbox_id, url) do nothing
      returning 1
    )
    select (select count(*) from deliveries)::int as deliveries, set_config('plan_cache_mode', ${before}::text, true) as plans,
      ${feedNotify(sql`(select ${dealId}::text where exists (select 1 from entry))`)}`.execute(db);
}
