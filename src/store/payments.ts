// Statements, their lines, the money allocated to investors, and every decision about a line.
// Amounts are numeric, written and read as decimal text; dates are read as `::text`.
import { type Kysely, sql } from 'kysely';
import type { PaymentDecisionAction, PaymentLineStatus, PaymentOutcome, StatementLine } from '../domain/payment-line.ts';
import { type OutboxEntryInput, outboxManyCtes } from './outbox.ts';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';
import { paymentDecisionAuditEntry } from '../domain/audit.ts';
import type { StepType } from '../domain/workflow.ts';
import { auditInsertManyCte } from './audit.ts';

export interface StoredStatement {
  id: string;
  format: string;
  messageId: string | null;
  lineCount: number;
  newLineCount: number;
  importedBy: string;
  importedAt: string;
}

type StatementRow = { id: string; format: string; message_id: string | null; line_count: number; new_line_count: number; imported_by: string; imported_at: Date };
const toStatement = (r: StatementRow): StoredStatement => ({
  id: r.id, format: r.format, messageId: r.message_id, lineCount: r.line_count, newLineCount: r.new_line_count,
  importedBy: r.imported_by, importedAt: r.imported_at.toISOString(),
});

/** Inserts the statement unless one with the same content exists; undefined when it did. */
/** A new statement, its new_line_count -1 (its lines being stored) until setNewLineCount. */
export async function insertStatement(
  db: Kysely<DB>,
  s: { id: string; sha256: string; format: string; messageId: string | null; lineCount: number; importedBy: string; importedAt: Date },
): Promise<StoredStatement | undefined> {
  const { rows } = await sql<StatementRow>`
    insert into payment_statements (id, content_sha256, format, message_id, line_count, new_line_count, imported_by, imported_at)
    values (${s.id}, ${s.sha256}, ${s.format}, ${s.messageId}, ${s.lineCount}, -1, ${s.importedBy}, ${s.importedAt})
    on conflict (content_sha256) do nothing
    returning *`.execute(db);
  return rows[0] && toStatement(rows[0]);
}

export async function findStatementBySha(db: Kysely<DB>, sha256: string): Promise<StoredStatement | undefined> {
  const { rows } = await sql<StatementRow>`select * from payment_statements where content_sha256 = ${sha256}`.execute(db);
  return rows[0] && toStatement(rows[0]);
}

export async function setNewLineCount(db: Kysely<DB>, statementId: string, n: number) {
  await sql`update payment_statements set new_line_count = ${n} where id = ${statementId}`.execute(db);
}

export interface NewLine extends StatementLine {
  id: string;
  key: string;
  reference: string | null;
  dealId: string | null;
  investorUserId: string | null;
  outcome: PaymentOutcome | null;
  status: PaymentLineStatus | 'pending';
  detail: string | null;
}

const CHUNK = 500;

export interface PaymentLine {
  id: string;
  statementId: string;
  direction: 'credit' | 'debit';
  reversal: boolean;
  amount: string;
  currency: string;
  bookingDate: string | null;
  valueDate: string | null;
  account: string | null;
  entryReference: string | null;
  endToEndId: string | null;
  debtorName: string | null;
  debtorAccount: string | null;
  structuredReference: string | null;
  remittance: string | null;
  reference: string | null;
  dealId: string | null;
  investorUserId: string | null;
  outcome: PaymentOutcome;
  status: PaymentLineStatus | 'pending';
  detail: string | null;
  refusal: unknown;
  eventId: string | null;
  reversedByLineId: string | null;
  createdAt: string;
  updatedAt: string;
}

const LINE_COLUMNS = sql`id, statement_id, direction, reversal, amount::text as amount, currency, booking_date::text as booking_date,
  value_date::text as value_date, account, entry_reference, end_to_end_id, debtor_name, debtor_account, structured_reference, remittance,
  reference, deal_id, investor_user_id, outcome, status, detail, refusal, event_id, reversed_by_line_id, created_at, updated_at`;

type LineRow = {
  id: string; statement_id: string; direction: 'credit' | 'debit'; reversal: boolean; amount: string; currency: string;
  booking_date: string | null; value_date: string | null; account: string | null; entry_reference: string | null; end_to_end_id: string | null;
  debtor_name: string | null; debtor_account: string | null; structured_reference: string | null; remittance: string | null;
  reference: string | null; deal_id: string | null; investor_user_id: string | null; outcome: PaymentOutcome; status: PaymentLine['status'];
  detail: string | null; refusal: unknown; event_id: string | null; reversed_by_line_id: string | null; created_at: Date; updated_at: Date;
};

const toLine = (r: LineRow): PaymentLine => ({
  id: r.id, statementId: r.statement_id, direction: r.direction, reversal: r.reversal, amount: r.amount, currency: r.currency,
  bookingDate: r.booking_date, valueDate: r.value_date, account: r.account, entryReference: r.entry_reference, endToEndId: r.end_to_end_id,
  debtorName: r.debtor_name, debtorAccount: r.debtor_account, structuredReference: r.structured_reference, remittance: r.remittance,
  reference: r.reference, dealId: r.deal_id, investorUserId: r.investor_user_id, outcome: r.outcome, status: r.status, detail: r.detail,
  refusal: r.refusal, eventId: r.event_id, reversedByLineId: r.reversed_by_line_id, createdAt: r.created_at.toISOString(), updatedAt: r.updated_at.toISOString(),
});

/** Inserts lines whose key is new (ON CONFLICT DO NOTHING); returns those inserted as stored, in the given order. */
export async function insertLines(db: Kysely<DB>, statementId: string, lines: readonly NewLine[], now: Date): Promise<PaymentLine[]> {
  const inserted: PaymentLine[] = [];
  for (let i = 0; i < lines.length; i += CHUNK) {
    const chunk = lines.slice(i, i + CHUNK);
    const col = <T>(f: (l: NewLine) => T) => chunk.map(f);
    const { rows } = await sql<LineRow>`
      insert into payment_lines (id, statement_id, line_key, direction, reversal, amount, currency, booking_date, value_date, account,
        entry_reference, end_to_end_id, debtor_name, debtor_account, structured_reference, remittance, reference, deal_id,
        investor_user_id, outcome, status, detail, created_at, updated_at)
      select t.id, ${statementId}::uuid, t.key, t.direction, t.reversal, t.amount, t.currency, t.booking_date, t.value_date, t.account,
        t.entry_reference, t.end_to_end_id, t.debtor_name, t.debtor_account, t.structured_reference, t.remittance, t.reference, t.deal_id,
        t.investor_user_id, t.outcome, t.status, t.detail, ${now}::timestamptz, ${now}::timestamptz
      from unnest(${col((l) => l.id)}::uuid[], ${col((l) => l.key)}::text[], ${col((l) => l.direction)}::text[], ${col((l) => l.reversal)}::boolean[],
        ${col((l) => l.amount)}::numeric[], ${col((l) => l.currency)}::text[], ${col((l) => l.bookingDate)}::date[], ${col((l) => l.valueDate)}::date[],
        ${col((l) => l.account)}::text[], ${col((l) => l.entryReference)}::text[], ${col((l) => l.endToEndId)}::text[], ${col((l) => l.debtorName)}::text[],
        ${col((l) => l.debtorAccount)}::text[], ${col((l) => l.structuredReferences[0] ?? null)}::text[], ${col((l) => (l.remittance.length ? l.remittance.join('\n') : null))}::text[],
        ${col((l) => l.reference)}::text[], ${col((l) => l.dealId)}::text[], ${col((l) => l.investorUserId)}::text[], ${col((l) => l.outcome ?? 'no-reference')}::text[],
        ${col((l) => l.status)}::text[], ${col((l) => l.detail)}::text[])
        as t(id, key, direction, reversal, amount, currency, booking_date, value_date, account, entry_reference, end_to_end_id, debtor_name,
          debtor_account, structured_reference, remittance, reference, deal_id, investor_user_id, outcome, status, detail)
      on conflict (line_key) do nothing
      returning ${LINE_COLUMNS}`.execute(db);
    // RETURNING follows no order that SQL promises: put the rows back in the chunk's.
    const order = new Map(chunk.map((l, n) => [l.id, n]));
    inserted.push(...rows.map(toLine).sort((x, y) => order.get(x.id)! - order.get(y.id)!));
  }
  return inserted;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findLine(db: Kysely<DB>, id: string, options: { lock?: boolean } = {}): Promise<PaymentLine | undefined> {
  if (!UUID.test(id)) return undefined;
  const { rows } = options.lock
    ? await sql<LineRow>`select ${LINE_COLUMNS} from payment_lines where id = ${id} for update`.execute(db)
    : await sql<LineRow>`select ${LINE_COLUMNS} from payment_lines where id = ${id}`.execute(db);
  return rows[0] && toLine(rows[0]);
}

/** Lines of a statement, in statement order; `status` narrows. */
export async function statementLines(db: Kysely<DB>, statementId: string, status?: string): Promise<PaymentLine[]> {
  const { rows } = status
    ? await sql<LineRow>`select ${LINE_COLUMNS} from payment_lines where statement_id = ${statementId} and status = ${status} order by seq`.execute(db)
    : await sql<LineRow>`select ${LINE_COLUMNS} from payment_lines where statement_id = ${statementId} order by seq`.execute(db);
  return rows.map(toLine);
}

export async function countStatementLines(db: Kysely<DB>, statementId: string): Promise<Record<string, number>> {
  const { rows } = await sql<{ key: string; n: string }>`
    select outcome || '/' || status as key, count(*)::text as n from payment_lines where statement_id = ${statementId} group by 1`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.key, Number(r.n)]));
}

export async function pageLines(
  db: Kysely<DB>,
  filter: { status?: string | undefined; dealId?: string | undefined; outcome?: string | undefined; statementId?: string | undefined },
  page: { limit: number; offset: number },
): Promise<{ items: PaymentLine[]; total: number }> {
  const where = sql`(${filter.status ?? null}::text is null or status = ${filter.status ?? null})
    and (${filter.dealId ?? null}::text is null or deal_id = ${filter.dealId ?? null})
    and (${filter.outcome ?? null}::text is null or outcome = ${filter.outcome ?? null})
    and (${filter.statementId ?? null}::uuid is null or statement_id = ${filter.statementId ?? null}::uuid)`;
  const { rows } = await sql<LineRow & { total: string }>`
    select ${LINE_COLUMNS}, count(*) over ()::text as total from payment_lines where ${where}
    order by seq limit ${page.limit} offset ${page.offset}`.execute(db);
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (rows.length === 0 && page.offset > 0) {
    const counted = await sql<{ n: string }>`select count(*)::text as n from payment_lines where ${where}`.execute(db);
    total = Number(counted.rows[0]!.n);
  }
  return { items: rows.map(toLine), total };
}

/** Journeys of these compact references: reference → deal and investor. */
export async function resolveReferences(db: Kysely<DB>, references: readonly string[]): Promise<Map<string, { dealId: string; investorUserId: string }>> {
  if (references.length === 0) return new Map();
  const { rows } = await sql<{ payment_reference: string; deal_id: string; investor_user_id: string }>`
    select payment_reference, deal_id, investor_user_id from journeys
    where payment_reference = any(${[...references]}::text[]) and event_count > 0`.execute(db);
  return new Map(rows.map((r) => [r.payment_reference, { dealId: r.deal_id, investorUserId: r.investor_user_id }]));
}

export interface JourneyPaymentFacts {
  currentStepId: string | null;
  /** The type of that step (read with the batch's facts only; undefined elsewhere). */
  currentStepType?: StepType | null;
  received: string;
  commitment: string | null;
  commitmentCurrency: string | null;
}

/**
 * Locks the journey (FOR UPDATE, the same lock a move takes, so lines of one investor are judged one
 * at a time across imports) and reads what was received and the latest captured commitment and
 * currency. Undefined when there is no journey.
 */
export async function lockJourneyPaymentFacts(
  db: Kysely<DB>,
  key: { dealId: string; investorUserId: string },
  fields: { commitment: string; currency: string | null },
): Promise<JourneyPaymentFacts | undefined> {
  const { rows } = await sql<{ current_step_id: string; event_count: number; received: string; commitment: string | null; currency: string | null }>`
    select j.current_step_id, j.event_count,
      (select coalesce(sum(a.amount), 0)::text from payment_allocations a where a.deal_id = j.deal_id and a.investor_user_id = j.investor_user_id) as received,
      (select e.data ->> ${fields.commitment} from workflow_events e where e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id
         and e.data ? ${fields.commitment} order by e.seq desc limit 1) as commitment,
      (select e.data ->> ${fields.currency ?? ''} from workflow_events e where ${fields.currency}::text is not null and e.deal_id = j.deal_id
         and e.investor_user_id = j.investor_user_id and e.data ? ${fields.currency ?? ''} order by e.seq desc limit 1) as currency
    from journeys j where j.deal_id = ${key.dealId} and j.investor_user_id = ${key.investorUserId} and j.event_count > 0
    for update of j`.execute(db);
  const row = rows[0];
  return row && { currentStepId: row.current_step_id, received: row.received, commitment: row.commitment, commitmentCurrency: row.currency };
}

/** One investor's credits to judge: which lines, and which captured fields hold the commitment and its currency. */
export interface JourneyCredits {
  dealId: string;
  investorUserId: string;
  lineIds: readonly string[];
  fields: { commitment: string; currency: string | null };
}

/**
 * For each journey, in one statement: locks it (FOR UPDATE, as lockJourneyPaymentFacts, in one
 * order: deal, investor, so two batches never wait on each other), reads its payment facts, then
 * locks its lines among `lineIds` that still wait for matching and returns their ids, in statement
 * order (the caller has the lines). A journey's facts are undefined when it has no events. Keyed
 * by `journeyKey`.
 */
export async function lockJourneyCredits(
  db: Kysely<DB>,
  journeys: readonly JourneyCredits[],
  /**
   * The rest of the transaction runs its prepared statements on generic plans (plan_cache_mode, set
   * locally): see the caller for why.
   */
  options: { genericPlans?: boolean } = {},
): Promise<Map<string, { facts: JourneyPaymentFacts | undefined; lineIds: string[] }>> {
  const result = new Map(journeys.map((j) => [journeyKey(j), { facts: undefined as JourneyPaymentFacts | undefined, lineIds: [] as string[] }]));
  if (journeys.length === 0) return result;
  const col = <T>(f: (j: JourneyCredits) => T) => journeys.map(f);
  type Row = { id: string | null; deal_id: string | null; investor_user_id: string | null; journey_deal_id: string | null; journey_investor_user_id: string | null; current_step_id: string | null; current_step_type: string | null; received: string | null; commitment: string | null; commitment_currency: string | null };
  // The journeys are locked first: `l` waits for the count of `j` (an init plan), so a batch takes
  // its locks in the order a move does (journey, then its lines). A journey without pending lines
  // comes with null line columns; a line whose journey has no events with null facts.
  const { rows } = await sql<Row>`${prepared('journey-credits')}
    with j as (
      select j.deal_id, j.investor_user_id, j.current_step_id,
        (select s.type from workflow_steps s where s.deal_id = j.deal_id and s.id = j.current_step_id) as current_step_type,
        (select coalesce(sum(a.amount), 0)::text from payment_allocations a where a.deal_id = j.deal_id and a.investor_user_id = j.investor_user_id) as received,
        (select e.data ->> k.commitment from workflow_events e where e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id
           and e.data ? k.commitment order by e.seq desc limit 1) as commitment,
        (select e.data ->> k.currency from workflow_events e where k.currency is not null and e.deal_id = j.deal_id
           and e.investor_user_id = j.investor_user_id and e.data ? k.currency order by e.seq desc limit 1) as commitment_currency
      from unnest(${col((j) => j.dealId)}::text[], ${col((j) => j.investorUserId)}::text[], ${col((j) => j.fields.commitment)}::text[],
        ${col((j) => j.fields.currency)}::text[]) as k(deal_id, investor_user_id, commitment, currency)
      join journeys j on j.deal_id = k.deal_id and j.investor_user_id = k.investor_user_id and j.event_count > 0
      order by j.deal_id, j.investor_user_id
      for update of j
    ), l as (
      select id, deal_id, investor_user_id, seq from payment_lines
      where id = any(${journeys.flatMap((j) => j.lineIds)}::uuid[]) and status = 'pending' and (select count(*) from j) >= 0
      order by seq for update
    )
    select l.id, l.deal_id, l.investor_user_id, j.deal_id as journey_deal_id, j.investor_user_id as journey_investor_user_id, j.current_step_id, j.current_step_type,
      j.received, j.commitment, j.commitment_currency, ${options.genericPlans ? sql`set_config('plan_cache_mode', 'force_generic_plan', true)` : sql`null`} as plans
    from j full join l on l.deal_id = j.deal_id and l.investor_user_id = j.investor_user_id
    order by l.seq`.execute(db);
  for (const row of rows) {
    if (row.journey_deal_id !== null) {
      const facts = { currentStepId: row.current_step_id, currentStepType: row.current_step_type as StepType | null, received: row.received!, commitment: row.commitment, commitmentCurrency: row.commitment_currency };
      result.get(journeyKey({ dealId: row.journey_deal_id, investorUserId: row.journey_investor_user_id! }))!.facts = facts;
    }
    if (row.id !== null) result.get(journeyKey({ dealId: row.deal_id!, investorUserId: row.investor_user_id! }))!.lineIds.push(row.id);
  }
  return result;
}

export const journeyKey = (j: { dealId: string; investorUserId: string }) => JSON.stringify([j.dealId, j.investorUserId]);

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
    d.allocations?.length ? JSON.stringify(d.allocations.map(({ dealId, investorUserId, amount, currency }) => ({ dealId, investorUserId, amount, currency }))) : null;
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

/** What a line currently contributes to each investor (the sum of its allocations), non-zero only. */
export async function lineAllocations(db: Kysely<DB>, lineId: string): Promise<{ dealId: string; investorUserId: string; amount: string; currency: string }[]> {
  const { rows } = await sql<{ deal_id: string; investor_user_id: string; amount: string; currency: string }>`
    select deal_id, investor_user_id, sum(amount)::text as amount, min(currency) as currency from payment_allocations
    where line_id = ${lineId} group by deal_id, investor_user_id having sum(amount) <> 0 order by deal_id, investor_user_id`.execute(db);
  return rows.map((r) => ({ dealId: r.deal_id, investorUserId: r.investor_user_id, amount: r.amount, currency: r.currency }));
}

/** Queued partial lines of these investors, which a completing line settles, in statement order. */
export async function queuedPartialLines(
  db: Kysely<DB>,
  journeys: readonly { dealId: string; investorUserId: string }[],
): Promise<{ id: string; dealId: string; investorUserId: string }[]> {
  if (journeys.length === 0) return [];
  const { rows } = await sql<{ id: string; deal_id: string; investor_user_id: string }>`
    select l.id, l.deal_id, l.investor_user_id from payment_lines l
    join unnest(${journeys.map((j) => j.dealId)}::text[], ${journeys.map((j) => j.investorUserId)}::text[]) as k(deal_id, investor_user_id)
      on l.deal_id = k.deal_id and l.investor_user_id = k.investor_user_id
    where l.status = 'queued' and l.outcome = 'partial'
    order by l.seq`.execute(db);
  return rows.map((r) => ({ id: r.id, dealId: r.deal_id, investorUserId: r.investor_user_id }));
}

/** The credit a reversal takes back: same end-to-end id, else same bank reference, not yet reversed. */
export async function findReversedCredit(db: Kysely<DB>, reversal: { endToEndId: string | null; entryReference: string | null; amount: string; currency: string; id: string }) {
  const { rows } = await sql<{ id: string }>`
    select id from payment_lines where direction = 'credit' and not reversal and reversed_by_line_id is null and id <> ${reversal.id}
      and amount = ${reversal.amount}::numeric and currency = ${reversal.currency}
      and ((${reversal.endToEndId}::text is not null and end_to_end_id = ${reversal.endToEndId})
        or (${reversal.entryReference}::text is not null and entry_reference = ${reversal.entryReference}))
    order by seq limit 1 for update`.execute(db);
  return rows[0]?.id;
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
  const { rows } = await sql<{ id: string; action: string; outcome: string | null; status: string; allocations: unknown; reason: string | null; refusal: unknown; event_id: string | null; decided_by: string; decided_at: Date }>`
    select * from payment_line_decisions where line_id = ${lineId} order by seq`.execute(db);
  return rows.map((r) => ({ id: r.id, action: r.action, outcome: r.outcome, status: r.status, allocations: r.allocations, reason: r.reason, refusal: r.refusal, eventId: r.event_id, decidedBy: r.decided_by, decidedAt: r.decided_at.toISOString() }));
}

/** The value date of the latest money allocated to a journey (the settlement of its booking). */
export async function latestPaymentValueDate(db: Kysely<DB>, dealId: string, investorUserId: string): Promise<string | null> {
  const { rows } = await sql<{ value_date: string | null }>`
    select value_date::text as value_date from payment_allocations where deal_id = ${dealId} and investor_user_id = ${investorUserId}
      and amount > 0 and value_date is not null order by seq desc limit 1`.execute(db);
  return rows[0]?.value_date ?? null;
}

/** Locks the lines among `ids` that still wait for matching, in statement order. */
export async function lockPendingLines(db: Kysely<DB>, ids: readonly string[]): Promise<PaymentLine[]> {
  const { rows } = await sql<LineRow>`
    select ${LINE_COLUMNS} from payment_lines where id = any(${[...ids]}::uuid[]) and status = 'pending' order by seq for update`.execute(db);
  return rows.map(toLine);
}

/** The "imported" decision of lines decided at import (debits, no or unknown reference). */
export async function recordImportDecisions(db: Kysely<DB>, ids: readonly string[], by: string, at: Date): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    insert into payment_line_decisions (id, line_id, action, outcome, status, decided_by, decided_at)
    select gen_random_uuid(), id, 'imported', outcome, status, ${by}, ${at}::timestamptz from payment_lines
    where id = any(${[...ids]}::uuid[]) and status <> 'pending' order by seq`.execute(db);
}

/** The deals' currencies (the commitment's currency when no currency field holds one). */
export async function dealCurrencies(db: Kysely<DB>, dealIds: readonly string[]): Promise<Map<string, string | null>> {
  if (dealIds.length === 0) return new Map();
  const { rows } = await sql<{ id: string; currency: string | null }>`select id, currency from deals where id = any(${[...dealIds]}::text[])`.execute(db);
  return new Map(rows.map((r) => [r.id, r.currency]));
}
