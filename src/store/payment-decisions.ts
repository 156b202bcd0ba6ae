// Every decision about a statement line (append-only), the line's new state it sets, and the money
// it allocates to investors (payment_allocations, negative when taken back). Amounts are numeric,
// written and read as decimal text.
import { type Kysely, sql } from 'kysely';
import type { PaymentDecisionAction, PaymentLineStatus, PaymentOutcome } from '../domain/payment-line.ts';
import { paymentDecisionAuditEntry } from '../domain/audit.ts';
import { auditInsertManyCte } from './audit.ts';
import { type OutboxEntryInput, outboxManyCtes } from './outbox.ts';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

export interface NewAllocation {
  id: string;
  dealId: string;
  investorUserId: string;
  amount: string;
  currency: string;
  valueDate: string | null;
}

/** A decision about a line: the line's new state, the money it allocates, and the webhook entry about it. */
export interface DecisionInput {
  id: string;
  lineId: string;
  action: PaymentDecisionAction;
  outcome: PaymentOutcome | null;
  status: PaymentLineStatus;
  dealId?: string | null;
  investorUserId?: string | null;
  detail?: string | null;
  refusal?: unknown;
  eventId?: string | null;
  reason?: string | null;
  allocations?: NewAllocation[];
  reversedByLineId?: string | null;
  by: string;
  at: Date;
  /**
   * An outbox entry about the decision (payment.matched, payment.queued), written by the same
   * statement, as appendOutbox would write it for an entry about no journey.
   */
  outbox?: OutboxEntryInput;
}

/** The line's new state, and its decision (append-only), in one statement. */
export async function recordDecision(db: Kysely<DB>, d: DecisionInput): Promise<void> {
  await recordDecisions(db, [d]);
}

/**
 * Decisions about distinct lines, with their allocations, audit entries and outbox entries, in one
 * statement whose text does not depend on their number (so PostgreSQL parses and plans it once per
 * connection): one round trip for a decision under a journey lock, and one for a batch of queued
 * lines. Decisions, audit entries and outbox entries are numbered in the given order.
 */
export async function recordDecisions(db: Kysely<DB>, decisions: readonly DecisionInput[]): Promise<void> {
  if (decisions.length === 0) return;
  const outbox = decisions.flatMap((d) => (d.outbox ? [d.outbox] : []));
  if (outbox.length > 0 && !db.isTransaction) throw new Error("a decision's outbox entry must be written inside the caller's transaction");
  // One update per line: a line decided twice in one statement would see only one of the updates.
  if (new Set(decisions.map((d) => d.lineId)).size !== decisions.length) throw new Error('recordDecisions takes at most one decision per line');
  const col = <T>(f: (d: DecisionInput) => T) => decisions.map(f);
  const refusal = (d: DecisionInput) => (d.refusal === undefined || d.refusal === null ? null : JSON.stringify(d.refusal));
  const allocations = decisions.flatMap((d) => (d.allocations ?? []).map((a) => ({ ...a, lineId: d.lineId, by: d.by, at: d.at })));
  const allocationsJson = (d: DecisionInput) =>
    d.allocations?.length
      ? JSON.stringify(d.allocations.map(({ dealId, investorUserId, amount, currency }) => ({ dealId, investorUserId, amount, currency })))
      : null;
  // Each decision's audit entry is a chain of its own: no head, no lock.
  const audit = decisions.map((d) => ({ entry: paymentDecisionAuditEntry(d, d.allocations ?? []), dealId: d.dealId ?? null }));
  await sql`${prepared('payment-decisions')}
    with d as (
      select * from unnest(${col((d) => d.id)}::uuid[], ${col((d) => d.lineId)}::uuid[], ${col((d) => d.action)}::text[],
        ${col((d) => d.outcome)}::text[], ${col((d) => d.status)}::text[], ${col((d) => d.dealId !== undefined)}::boolean[],
        ${col((d) => d.dealId ?? null)}::text[], ${col((d) => d.investorUserId !== undefined)}::boolean[], ${col((d) => d.investorUserId ?? null)}::text[],
        ${col((d) => d.detail !== undefined)}::boolean[], ${col((d) => d.detail ?? null)}::text[], ${col(refusal)}::text[],
        ${col((d) => d.eventId ?? null)}::uuid[], ${col((d) => d.reversedByLineId ?? null)}::uuid[], ${col((d) => d.reason ?? null)}::text[],
        ${col(allocationsJson)}::text[], ${col((d) => d.by)}::text[], ${col((d) => d.at)}::timestamptz[])
        with ordinality as d(id, line_id, action, outcome, status, set_deal, deal_id, set_investor, investor_user_id, set_detail, detail,
          refusal, event_id, reversed_by_line_id, reason, allocations, decided_by, decided_at, n)
    ), ${auditInsertManyCte(audit, sql`pg_current_xact_id()`)}, line as (
      update payment_lines l set outcome = coalesce(d.outcome, l.outcome), status = d.status,
        deal_id = case when d.set_deal then d.deal_id else l.deal_id end,
        investor_user_id = case when d.set_investor then d.investor_user_id else l.investor_user_id end,
        detail = case when d.set_detail then d.detail else l.detail end,
        refusal = d.refusal::jsonb, event_id = coalesce(d.event_id, l.event_id),
        reversed_by_line_id = coalesce(d.reversed_by_line_id, l.reversed_by_line_id), updated_at = d.decided_at
      from d where l.id = d.line_id returning l.id
    ), allocation as (
      insert into payment_allocations (id, line_id, deal_id, investor_user_id, amount, currency, value_date, created_by, created_at)
      select a.id, a.line_id, a.deal_id, a.investor_user_id, a.amount, a.currency, a.value_date, a.created_by, a.created_at
      from unnest(${allocations.map((a) => a.id)}::uuid[], ${allocations.map((a) => a.lineId)}::uuid[], ${allocations.map((a) => a.dealId)}::text[],
        ${allocations.map((a) => a.investorUserId)}::text[], ${allocations.map((a) => a.amount)}::numeric[], ${allocations.map((a) => a.currency)}::text[],
        ${allocations.map((a) => a.valueDate)}::date[], ${allocations.map((a) => a.by)}::text[], ${allocations.map((a) => a.at)}::timestamptz[])
        with ordinality as a(id, line_id, deal_id, investor_user_id, amount, currency, value_date, created_by, created_at, n)
      order by a.n
    ), decision as (
      insert into payment_line_decisions (id, line_id, action, outcome, status, allocations, reason, refusal, event_id, decided_by, decided_at)
      select d.id, d.line_id, d.action, d.outcome, d.status, d.allocations::jsonb, d.reason, d.refusal::jsonb, d.event_id, d.decided_by, d.decided_at
      from d order by d.n
      returning 1
    ), ${outboxManyCtes(outbox, sql`pg_current_xact_id()`)}
    select 1`.execute(db);
}

/** The "imported" decision of lines decided at import (debits, no or unknown reference). */
export async function recordImportDecisions(db: Kysely<DB>, ids: readonly string[], by: string, at: Date): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    insert into payment_line_decisions (id, line_id, action, outcome, status, decided_by, decided_at)
    select gen_random_uuid(), id, 'imported', outcome, status, ${by}, ${at}::timestamptz from payment_lines
    where id = any(${[...ids]}::uuid[]) and status <> 'pending' order by seq`.execute(db);
}

export interface Decision {
  id: string;
  action: string;
  outcome: string | null;
  status: string;
  allocations: unknown;
  reason: string | null;
  refusal: unknown;
  eventId: string | null;
  decidedBy: string;
  decidedAt: string;
}

export async function lineDecisions(db: Kysely<DB>, lineId: string): Promise<Decision[]> {
  const { rows } = await sql<{
    id: string;
    action: string;
    outcome: string | null;
    status: string;
    allocations: unknown;
    reason: string | null;
    refusal: unknown;
    event_id: string | null;
    decided_by: string;
    decided_at: Date;
  }>`
    select * from payment_line_decisions where line_id = ${lineId} order by seq`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    action: r.action,
    outcome: r.outcome,
    status: r.status,
    allocations: r.allocations,
    reason: r.reason,
    refusal: r.refusal,
    eventId: r.event_id,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at.toISOString(),
  }));
}

/** What a line currently contributes to each investor (the sum of its allocations), non-zero only. */
export async function lineAllocations(db: Kysely<DB>, lineId: string): Promise<{ dealId: string; investorUserId: string; amount: string; currency: string }[]> {
  const { rows } = await sql<{ deal_id: string; investor_user_id: string; amount: string; currency: string }>`
    select deal_id, investor_user_id, sum(amount)::text as amount, min(currency) as currency from payment_allocations
    where line_id = ${lineId} group by deal_id, investor_user_id having sum(amount) <> 0 order by deal_id, investor_user_id`.execute(db);
  return rows.map((r) => ({ dealId: r.deal_id, investorUserId: r.investor_user_id, amount: r.amount, currency: r.currency }));
}
