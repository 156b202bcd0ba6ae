// The investors a queued bank line may belong to (operations/payment-proposals.ts ranks them): the
// journeys of some deals that stand at an ordinary step, with what they committed (the field the
// deal's payment settings name, captured on the journey row), what they have been allocated, their
// name, e-mail, organisations and payment reference; and the names shown beside the queue's lines.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';
import { commitmentKeyOf, currencyKeyOf } from './payment-settings.ts';

export interface CandidateRow {
  dealId: string;
  dealName: string;
  investorUserId: string;
  fullName: string;
  email: string | null;
  companies: string[];
  paymentReference: string;
  commitment: string | null;
  /** The commitment's currency: the captured one, else the deal's. */
  currency: string | null;
  received: string;
}

type Row = {
  deal_id: string;
  deal_name: string;
  investor_user_id: string;
  full_name: string;
  email: string | null;
  companies: string[] | null;
  payment_reference: string;
  commitment: string | null;
  currency: string | null;
  received: string;
};

/**
 * Journeys of `dealIds` at a `default` step (not complete, not withdrawn), of investors not erased.
 * `query`: only investors whose name, e-mail or organisation contains it (case-insensitive), at any
 * step, of any deal when `dealIds` is null. At most `limit` rows, by name.
 */
export async function findPaymentCandidates(
  db: Kysely<DB>,
  filter: { dealIds: readonly string[] | null; query?: string | undefined },
  limit: number,
): Promise<CandidateRow[]> {
  const pattern = filter.query ? `%${filter.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const { rows } = await sql<Row>`
    select j.deal_id, d.name as deal_name, j.investor_user_id, i.full_name, i.email, j.payment_reference,
      (select array_agg(distinct c ->> 'organisation') from jsonb_array_elements(coalesce(i.contact -> 'classifications', '[]'::jsonb)) c
         where c ->> 'organisation' is not null) as companies,
      j.captured ->> ${commitmentKeyOf} as commitment,
      coalesce(j.captured ->> ${currencyKeyOf}, d.currency) as currency,
      (select coalesce(sum(a.amount), 0)::text from payment_allocations a where a.deal_id = j.deal_id and a.investor_user_id = j.investor_user_id) as received
    from journeys j
      join deals d on d.id = j.deal_id
      join investors i on i.id = j.investor_user_id
      join workflow_steps s on s.id = j.current_step_id
      left join deal_payment_settings ps on ps.deal_id = j.deal_id
    where j.event_count > 0 and (s.type = 'default' or ${pattern}::text is not null) and i.erased_at is null
      and (${filter.dealIds === null}::boolean or j.deal_id = any(${[...(filter.dealIds ?? [])]}::text[]))
      and (${pattern}::text is null or i.full_name ilike ${pattern} or i.email ilike ${pattern}
        or exists (select 1 from jsonb_array_elements(coalesce(i.contact -> 'classifications', '[]'::jsonb)) c where c ->> 'organisation' ilike ${pattern}))
    order by i.full_name, j.deal_id, j.investor_user_id
    limit ${limit}`.execute(db);
  return rows.map((r) => ({
    dealId: r.deal_id,
    dealName: r.deal_name,
    investorUserId: r.investor_user_id,
    fullName: r.full_name,
    email: r.email,
    companies: r.companies ?? [],
    paymentReference: r.payment_reference,
    commitment: r.commitment,
    currency: r.currency,
    received: r.received,
  }));
}

/** The deals the other lines of these statements were matched to (a statement's deals), by statement. */
export async function statementDeals(db: Kysely<DB>, statementIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (statementIds.length === 0) return out;
  const { rows } = await sql<{ statement_id: string; deal_id: string }>`
    select distinct statement_id, deal_id from payment_lines where statement_id = any(${[...statementIds]}::uuid[]) and deal_id is not null`.execute(db);
  for (const r of rows) out.set(r.statement_id, [...(out.get(r.statement_id) ?? []), r.deal_id]);
  return out;
}

/** Deals that take payments by bank transfer (they have payment settings). */
export async function dealsWithPaymentSettings(db: Kysely<DB>): Promise<string[]> {
  const { rows } = await sql<{ deal_id: string }>`select deal_id from deal_payment_settings order by deal_id`.execute(db);
  return rows.map((r) => r.deal_id);
}

/** Names of investors and deals, for lines that name them by id. */
export async function namesOf(db: Kysely<DB>, investorIds: readonly string[], dealIds: readonly string[]) {
  const investors =
    investorIds.length === 0
      ? { rows: [] }
      : await sql<{ id: string; full_name: string; email: string | null }>`
    select id, full_name, email from investors where id = any(${[...investorIds]}::text[])`.execute(db);
  const deals =
    dealIds.length === 0
      ? { rows: [] }
      : await sql<{ id: string; name: string }>`select id, name from deals where id = any(${[...dealIds]}::text[])`.execute(db);
  return {
    investors: new Map(investors.rows.map((r) => [r.id, { fullName: r.full_name, email: r.email }])),
    deals: new Map(deals.rows.map((r) => [r.id, r.name])),
  };
}
