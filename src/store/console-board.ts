// Read models of the console: deals with investors per state and committed totals,
// the board's per-step summary and its pages of cards. Read-only SQL over the deal, workflow and journey tables.
//
// An investor's committed amount is the latest captured value of the deal's amount field: the
// first `amount`-kind field of the workflow (a field keyed `committed_amount` wins), taken from the
// investor's newest event that holds it; its currency likewise from the first `currency`-kind field,
// else the deal's currency. Each lookup is one probe of the (deal_id, investor_user_id, seq) unique
// index, newest first. Sums are numeric in PostgreSQL and leave as decimal strings (never floats).
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from './schema.ts';

export interface Money {
  currency: string;
  amount: string;
}

export interface StateCounts {
  total: number;
  inProgress: number;
  complete: number;
  withdrawn: number;
}

export interface DealSummary {
  id: string;
  name: string;
  description: string | null;
  currency: string | null;
  investors: StateCounts;
  committed: Money[];
}

export interface BoardColumn {
  stepId: string;
  count: number;
  committed: Money[];
}

export interface BoardCard {
  investorUserId: string;
  fullName: string;
  email: string | null;
  stepId: string;
  enteredStepAt: string;
  committedAmount: string | null;
  currency: string | null;
}

export interface InvestorSummary extends BoardCard {
  paymentReference: string;
  pendingEditRequests: number;
}

/** The key of the deal's first field of `kind`, preferring `preferred`; null when there is none. */
const fieldKeyOfKind = (dealId: RawBuilder<unknown>, kind: string, preferred: string) => sql<string | null>`(
  select f.value ->> 'fieldKey'
  from workflow_steps s cross join lateral jsonb_array_elements(s.fields) with ordinality as f(value, n)
  where s.deal_id = ${dealId} and s.retired_at is null and f.value ->> 'kind' = ${kind}
  order by (f.value ->> 'fieldKey' = ${preferred}) desc, s.position, f.n
  limit 1)`;

/** The newest value of `key` in the investor's events of the deal. */
const latestValue = (key: RawBuilder<unknown>) => sql<string | null>`(
  select e.data ->> (${key})::text
  from workflow_events e
  where e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id and e.data ->> (${key})::text is not null
  order by e.seq desc
  limit 1)`;

/** A LIKE pattern matching `query` anywhere, with its wildcards taken literally. */
export const containsPattern = (query: string) => `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const matches = (query: string | undefined) =>
  query ? sql`and (i.full_name ilike ${containsPattern(query)} or i.email ilike ${containsPattern(query)})` : sql``;

/** Keeps decimal strings that are amounts; anything else (a text field) is left out of the sums. */
export const asAmount = (value: RawBuilder<unknown>) => sql`case when ${value} ~ '^[0-9]+([.][0-9]+)?$' then (${value})::numeric end`;

export const toMoney = (rows: { currency: string | null; amount: string | null }[]): Money[] =>
  rows
    .filter((r): r is Money => r.currency !== null && r.amount !== null)
    .sort((a, b) => a.currency.localeCompare(b.currency))
    .map(({ currency, amount }) => ({ currency, amount }));

export async function listDealSummaries(db: Kysely<DB>): Promise<DealSummary[]> {
  const deals = await db.selectFrom('deals').select(['id', 'name', 'description', 'currency']).orderBy('name').orderBy('id').execute();
  const { rows } = await sql<{ deal_id: string; type: string; currency: string | null; investors: string; committed: string | null }>`
    -- materialized: inlined, the key lookups (jsonb expansions) would run once per journey.
    with keys as materialized (
      select d.id as deal_id, d.currency as deal_currency,
             ${fieldKeyOfKind(sql.ref('d.id'), 'amount', 'committed_amount')} as amount_key,
             ${fieldKeyOfKind(sql.ref('d.id'), 'currency', 'currency')} as currency_key
      from deals d
    ),
    positions as (
      select j.deal_id, s.type,
             ${latestValue(sql.ref('k.amount_key'))} as amount,
             coalesce(${latestValue(sql.ref('k.currency_key'))}, k.deal_currency) as currency
      from journeys j
      join keys k on k.deal_id = j.deal_id
      join workflow_steps s on s.id = j.current_step_id
    )
    select deal_id, type, currency, count(*) as investors, sum(${asAmount(sql.ref('amount'))}) as committed
    from positions
    group by deal_id, type, currency`.execute(db);

  return deals.map((deal) => {
    const mine = rows.filter((r) => r.deal_id === deal.id);
    const count = (type?: string) => mine.filter((r) => type === undefined || r.type === type).reduce((n, r) => n + Number(r.investors), 0);
    const committed = new Map<string, { currency: string; amount: string | null }>();
    for (const r of mine) {
      // Withdrawn investors no longer commit anything.
      if (r.type === 'withdrawn' || r.currency === null || r.committed === null) continue;
      committed.set(r.currency, { currency: r.currency, amount: addDecimals(committed.get(r.currency)?.amount ?? '0', r.committed) });
    }
    return {
      ...deal,
      investors: { total: count(), inProgress: count('default'), complete: count('complete'), withdrawn: count('withdrawn') },
      committed: toMoney([...committed.values()]),
    };
  });
}

/** Exact addition of two non-negative decimal strings (totals of one currency across step types). */
export function addDecimals(a: string, b: string): string {
  const [ai = '0', af = ''] = a.split('.');
  const [bi = '0', bf = ''] = b.split('.');
  const scale = Math.max(af.length, bf.length);
  const sum = BigInt(ai + af.padEnd(scale, '0')) + BigInt(bi + bf.padEnd(scale, '0'));
  if (scale === 0) return sum.toString();
  const digits = sum.toString().padStart(scale + 1, '0');
  return `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** The deal's amount and currency keys, and its currency (undefined when the deal does not exist). */
export async function dealKeys(db: Kysely<DB>, dealId: string) {
  return db
    .selectFrom('deals as d')
    .select([
      'd.currency',
      fieldKeyOfKind(sql.ref('d.id'), 'amount', 'committed_amount').as('amountKey'),
      fieldKeyOfKind(sql.ref('d.id'), 'currency', 'currency').as('currencyKey'),
    ])
    .where('d.id', '=', dealId)
    .executeTakeFirst();
}

export async function boardColumns(db: Kysely<DB>, dealId: string, query: string | undefined): Promise<{ total: number; columns: BoardColumn[] } | undefined> {
  const keys = await dealKeys(db, dealId);
  if (!keys) return undefined;
  const { rows } = await sql<{ step_id: string; currency: string | null; investors: string; committed: string | null }>`
    with positions as (
      select j.current_step_id as step_id,
             ${keys.amountKey === null ? sql`null::text` : latestValue(sql.val(keys.amountKey))} as amount,
             coalesce(${keys.currencyKey === null ? sql`null::text` : latestValue(sql.val(keys.currencyKey))}, ${keys.currency}::text) as currency
      from journeys j
      join investors i on i.id = j.investor_user_id
      where j.deal_id = ${dealId} ${matches(query)}
    )
    select step_id, currency, count(*) as investors, sum(${asAmount(sql.ref('amount'))}) as committed
    from positions
    group by step_id, currency`.execute(db);

  const byStep = new Map<string, { count: number; committed: { currency: string | null; amount: string | null }[] }>();
  for (const r of rows) {
    const column = byStep.get(r.step_id) ?? { count: 0, committed: [] };
    column.count += Number(r.investors);
    column.committed.push({ currency: r.currency, amount: r.committed });
    byStep.set(r.step_id, column);
  }
  const columns = [...byStep].map(([stepId, c]) => ({ stepId, count: c.count, committed: toMoney(c.committed) }));
  return { total: columns.reduce((n, c) => n + c.count, 0), columns };
}

export async function boardCards(
  db: Kysely<DB>,
  dealId: string,
  options: { stepId: string | undefined; query: string | undefined; limit: number; offset: number },
): Promise<{ total: number; cards: BoardCard[] } | undefined> {
  const keys = await dealKeys(db, dealId);
  if (!keys) return undefined;
  // Page first (the investors_full_name_id order), then look up amounts for that page only.
  const { rows } = await sql<CardRow & { total: string }>`
    with page as (
      select j.deal_id, j.investor_user_id, j.current_step_id, j.moved_at, i.full_name, i.email, count(*) over () as total
      from journeys j
      join investors i on i.id = j.investor_user_id
      where j.deal_id = ${dealId} ${options.stepId === undefined ? sql`` : sql`and j.current_step_id = ${options.stepId}`} ${matches(options.query)}
      order by i.full_name, i.id
      limit ${options.limit} offset ${options.offset}
    )
    select j.*, ${cardValues(keys)}
    from page j
    order by j.full_name, j.investor_user_id`.execute(db);
  const total = rows[0] ? Number(rows[0].total) : options.offset > 0 ? await countCards(db, dealId, options) : 0;
  return { total, cards: rows.map(toCard) };
}

async function countCards(db: Kysely<DB>, dealId: string, options: { stepId: string | undefined; query: string | undefined }) {
  const { rows } = await sql<{ total: string }>`
    select count(*) as total from journeys j join investors i on i.id = j.investor_user_id
    where j.deal_id = ${dealId} ${options.stepId === undefined ? sql`` : sql`and j.current_step_id = ${options.stepId}`} ${matches(options.query)}`.execute(db);
  return Number(rows[0]?.total ?? 0);
}

export async function findInvestorSummary(db: Kysely<DB>, dealId: string, investorUserId: string): Promise<InvestorSummary | undefined> {
  const keys = await dealKeys(db, dealId);
  if (!keys) return undefined;
  const { rows } = await sql<CardRow & { payment_reference: string; pending: string }>`
    select j.deal_id, j.investor_user_id, j.current_step_id, j.moved_at, j.payment_reference, i.full_name, i.email,
           ${cardValues(keys)},
           (select count(*) from edit_requests r
             where r.deal_id = j.deal_id and r.investor_user_id = j.investor_user_id and r.status = 'pending') as pending
    from journeys j
    join investors i on i.id = j.investor_user_id
    where j.deal_id = ${dealId} and j.investor_user_id = ${investorUserId}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return { ...toCard(row), paymentReference: row.payment_reference, pendingEditRequests: Number(row.pending) };
}

export interface CardRow {
  investor_user_id: string;
  current_step_id: string;
  moved_at: Date;
  full_name: string;
  email: string | null;
  amount: string | null;
  currency: string | null;
}

export const cardValues = (keys: { amountKey: string | null; currencyKey: string | null; currency: string | null }) => sql`
  ${keys.amountKey === null ? sql`null::text` : latestValue(sql.val(keys.amountKey))} as amount,
  coalesce(${keys.currencyKey === null ? sql`null::text` : latestValue(sql.val(keys.currencyKey))}, ${keys.currency}::text) as currency`;

export const toCard = (row: CardRow): BoardCard => ({
  investorUserId: row.investor_user_id,
  fullName: row.full_name,
  email: row.email,
  stepId: row.current_step_id,
  enteredStepAt: row.moved_at.toISOString(),
  committedAmount: row.amount,
  currency: row.currency,
});
