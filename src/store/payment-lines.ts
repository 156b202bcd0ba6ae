// The lines of bank statements: stored at import (a line already on file under its key is not
// stored again), read one, by statement or by page, locked while they wait for matching, and the
// credits a reversal or a completing line refers to. Amounts are numeric, written and read as
// decimal text; dates are read as `::text`.
import { type Kysely, sql } from 'kysely';
import type { PaymentLineStatus, PaymentOutcome, StatementLine } from '../domain/payment-line.ts';
import type { DB } from './schema.ts';

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
  id: string;
  statement_id: string;
  direction: 'credit' | 'debit';
  reversal: boolean;
  amount: string;
  currency: string;
  booking_date: string | null;
  value_date: string | null;
  account: string | null;
  entry_reference: string | null;
  end_to_end_id: string | null;
  debtor_name: string | null;
  debtor_account: string | null;
  structured_reference: string | null;
  remittance: string | null;
  reference: string | null;
  deal_id: string | null;
  investor_user_id: string | null;
  outcome: PaymentOutcome;
  status: PaymentLine['status'];
  detail: string | null;
  refusal: unknown;
  event_id: string | null;
  reversed_by_line_id: string | null;
  created_at: Date;
  updated_at: Date;
};

const toLine = (r: LineRow): PaymentLine => ({
  id: r.id,
  statementId: r.statement_id,
  direction: r.direction,
  reversal: r.reversal,
  amount: r.amount,
  currency: r.currency,
  bookingDate: r.booking_date,
  valueDate: r.value_date,
  account: r.account,
  entryReference: r.entry_reference,
  endToEndId: r.end_to_end_id,
  debtorName: r.debtor_name,
  debtorAccount: r.debtor_account,
  structuredReference: r.structured_reference,
  remittance: r.remittance,
  reference: r.reference,
  dealId: r.deal_id,
  investorUserId: r.investor_user_id,
  outcome: r.outcome,
  status: r.status,
  detail: r.detail,
  refusal: r.refusal,
  eventId: r.event_id,
  reversedByLineId: r.reversed_by_line_id,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
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

/** Locks the lines among `ids` that still wait for matching, in statement order. */
export async function lockPendingLines(db: Kysely<DB>, ids: readonly string[]): Promise<PaymentLine[]> {
  const { rows } = await sql<LineRow>`
    select ${LINE_COLUMNS} from payment_lines where id = any(${[...ids]}::uuid[]) and status = 'pending' order by seq for update`.execute(db);
  return rows.map(toLine);
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
export async function findReversedCredit(
  db: Kysely<DB>,
  reversal: { endToEndId: string | null; entryReference: string | null; amount: string; currency: string; id: string },
) {
  const { rows } = await sql<{ id: string }>`
    select id from payment_lines where direction = 'credit' and not reversal and reversed_by_line_id is null and id <> ${reversal.id}
      and amount = ${reversal.amount}::numeric and currency = ${reversal.currency}
      and ((${reversal.endToEndId}::text is not null and end_to_end_id = ${reversal.endToEndId})
        or (${reversal.entryReference}::text is not null and entry_reference = ${reversal.entryReference}))
    order by seq limit 1 for update`.execute(db);
  return rows[0]?.id;
}
