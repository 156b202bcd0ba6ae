// Read models of the console: deals with investors per state and committed totals,
// the board's per-step summary and its pages of cards. Read-only SQL over the deal, workflow and journey tables.
//
// An investor's committed amount is the value of the deal's commitment field in the journey's
// captured data (journeys.captured: what their events captured, later events winning, less what
// an undo reversed; migration 0029): the field the deal's payment settings name
// (`commitment_field_key`), else `committed_amount`, as the funnel, the payments and the investor's
// own view read it; its currency likewise from the settings' currency field (`currency` without
// settings), else the deal's currency. Received is the money allocated to the journey by payment
// decisions and reconciliation; remaining is the commitment less that, never below zero. Sums are
// numeric in PostgreSQL and leave as decimal strings (never floats).
import Big from 'big.js';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from './schema.ts';
import { commitmentKeyOf, currencyKeyOf } from './payment-settings.ts';
import { remainingOf } from '../domain/commitment.ts';

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
  /** Money allocated to the journey so far; null when none was. */
  receivedAmount: string | null;
  /** The commitment less what was received (at least 0); null when nothing was received or nothing is committed. */
  remainingAmount: string | null;
}

export interface InvestorSummary extends BoardCard {
  paymentReference: string;
  pendingEditRequests: number;
  /** What the journey's events captured that still counts (journeys.captured). */
  captured: Record<string, string>;
  /** Events of the journey that an undo reversed: their data no longer counts. */
  undoneEventIds: string[];
}

/** The deal's payment settings row (none: all null), as `ps`, for commitmentKeyOf and currencyKeyOf. */
const settingsOf = (dealId: RawBuilder<unknown>, key: RawBuilder<unknown>) =>
  sql`(select ${key} from (select ${dealId} as deal_id) d left join deal_payment_settings ps on ps.deal_id = d.deal_id)`;

/** The deal's commitment field key (its payment settings', else the default). */
const commitmentKey = (dealId: RawBuilder<unknown>) => sql<string>`${settingsOf(dealId, commitmentKeyOf)}`;

/** The deal's currency field key (its payment settings' (possibly none), else the default). */
const currencyKey = (dealId: RawBuilder<unknown>) => sql<string | null>`${settingsOf(dealId, currencyKeyOf)}`;

/** The value of `key` in the journey's captured data (`j` is a journeys row). */
const latestValue = (key: RawBuilder<unknown>) => sql<string | null>`(j.captured ->> (${key})::text)`;

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
             ${commitmentKey(sql.ref('d.id'))} as amount_key,
             ${currencyKey(sql.ref('d.id'))} as currency_key
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
    .select(['d.currency', commitmentKey(sql.ref('d.id')).as('amountKey'), currencyKey(sql.ref('d.id')).as('currencyKey')])
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
      select j.deal_id, j.investor_user_id, j.current_step_id, j.moved_at, j.captured, i.full_name, i.email, count(*) over () as total
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
  const { rows } = await sql<CardRow & { payment_reference: string; pending: string; captured: Record<string, string>; undone: string[] }>`
    select j.deal_id, j.investor_user_id, j.current_step_id, j.moved_at, j.payment_reference, j.captured, i.full_name, i.email,
           ${cardValues(keys)},
           array(select e.id::text from workflow_events e where e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id
             and not exists (select 1 from counted_events c where c.id = e.id) order by e.seq) as undone,
           (select count(*) from edit_requests r
             where r.deal_id = j.deal_id and r.investor_user_id = j.investor_user_id and r.status = 'pending') as pending
    from journeys j
    join investors i on i.id = j.investor_user_id
    where j.deal_id = ${dealId} and j.investor_user_id = ${investorUserId}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    ...toCard(row),
    paymentReference: row.payment_reference,
    pendingEditRequests: Number(row.pending),
    captured: row.captured,
    undoneEventIds: row.undone,
  };
}

export interface CardRow {
  investor_user_id: string;
  current_step_id: string;
  moved_at: Date;
  full_name: string;
  email: string | null;
  amount: string | null;
  currency: string | null;
  received: string | null;
}

/** Money allocated to the journey `j`, as numeric; null when none was. */
const receivedOf = sql`(select sum(a.amount) from payment_allocations a where a.deal_id = j.deal_id and a.investor_user_id = j.investor_user_id)`;

/** A card's amount, currency and received money, of a journeys row `j` (with its `captured`). */
export const cardValues = (keys: { amountKey: string | null; currencyKey: string | null; currency: string | null }) => sql`
  ${keys.amountKey === null ? sql`null::text` : latestValue(sql.val(keys.amountKey))} as amount,
  coalesce(${keys.currencyKey === null ? sql`null::text` : latestValue(sql.val(keys.currencyKey))}, ${keys.currency}::text) as currency,
  ${receivedOf}::text as received`;

/** What is still to pay (domain/commitment.ts), written with as many decimals as the commitment or the money received. */
function remainingText(committed: string | null, received: string | null): string | null {
  const left = remainingOf(committed, received);
  return left === null ? null : new Big(committed!).lt(received!) ? '0' : left.toFixed(Math.max(decimals(committed!), decimals(received!)));
}

const decimals = (value: string) => value.split('.')[1]?.length ?? 0;

export const toCard = (row: CardRow): BoardCard => ({
  investorUserId: row.investor_user_id,
  fullName: row.full_name,
  email: row.email,
  stepId: row.current_step_id,
  enteredStepAt: row.moved_at.toISOString(),
  committedAmount: row.amount,
  currency: row.currency,
  receivedAmount: row.received,
  remainingAmount: remainingText(row.amount, row.received),
});
