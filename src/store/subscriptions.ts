// Subscription rows. Amounts go in and come out as decimal text (numeric, never a JS number);
// dates come out as `YYYY-MM-DD` text (`::text`), so no driver turns them into local-time Dates.
import { type Kysely, sql } from 'kysely';
import type { Subscription, SubscriptionFilter, SubscriptionInput } from '../domain/subscription.ts';
import { type OutboxEntryInput, outboxCtes } from './outbox.ts';
import type { HashedEntry } from '../domain/audit.ts';
import { auditInsertCte } from './audit.ts';
import { type DoneKey, keyInsertCte } from './idempotency.ts';
import { notFound } from '../domain/errors.ts';
import { SQLSTATE, sqlState } from './errors.ts';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

export type { SubscriptionFilter } from '../domain/subscription.ts';

function selectSubscriptions(db: Kysely<DB>) {
  return db
    .selectFrom('subscriptions as s')
    .innerJoin('assets as a', 'a.id', 's.asset_id')
    .select([
      's.id',
      's.asset_id',
      's.investor_id',
      's.units',
      's.price_per_unit',
      's.total',
      's.fee',
      's.funding_source',
      sql<string>`s.invoice_date::text`.as('invoice_date'),
      sql<string>`s.settlement_date::text`.as('settlement_date'),
      's.source',
      's.source_id',
      's.description',
      's.created_by_user_id',
      's.created_at',
      'a.currency',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof selectSubscriptions>['executeTakeFirstOrThrow']>>;

const toSubscription = (row: Row): Subscription => ({
  id: row.id,
  assetId: Number(row.asset_id),
  investorId: row.investor_id,
  units: row.units,
  pricePerUnit: row.price_per_unit,
  total: row.total,
  fee: row.fee,
  fundingSource: row.funding_source as Subscription['fundingSource'],
  invoiceDate: row.invoice_date,
  settlementDate: row.settlement_date,
  source: row.source,
  sourceId: row.source_id,
  description: row.description,
  currency: row.currency,
  createdByUserId: row.created_by_user_id,
  createdAt: row.created_at.toISOString(),
});

export async function insertSubscription(
  db: Kysely<DB>,
  subscription: SubscriptionInput & { id: string; createdByUserId: string; createdAt: Date },
): Promise<void> {
  await db
    .insertInto('subscriptions')
    .values({
      id: subscription.id,
      asset_id: subscription.assetId,
      investor_id: subscription.investorId,
      units: subscription.units,
      price_per_unit: subscription.pricePerUnit,
      total: subscription.total,
      fee: subscription.fee,
      funding_source: subscription.fundingSource,
      invoice_date: subscription.invoiceDate,
      settlement_date: subscription.settlementDate,
      source: subscription.source,
      source_id: subscription.sourceId,
      description: subscription.description,
      created_by_user_id: subscription.createdByUserId,
      created_at: subscription.createdAt,
    })
    .execute();
}

/** The response a booking with an Idempotency-Key stores: its body as sent, cut where the asset's currency goes. */
export interface BookingResponse {
  key: DoneKey;
  /** The body before the currency's JSON string, and after it; the statement puts the asset's currency between them. */
  before: string;
  after: string;
}

/**
 * A booking in one statement, which commits on its own when `db` is no transaction: the
 * subscription, its outbox entry (whose payload is the stored row) and its audit entry, and with
 * `response` the idempotency key as 'done' with the response. Nothing is written when the asset or
 * the investor does not exist (`assetFound`, `investorFound` say which), nor when a live row
 * holds the key (`written` false, `body` undefined). `currency` is the asset's.
 */
export async function insertSubscriptionWithEntry(
  db: Kysely<DB>,
  subscription: SubscriptionInput & { id: string; createdByUserId: string; createdAt: Date },
  entry: Omit<OutboxEntryInput, 'data'>,
  /** The booking's audit entry (a chain of its own: it needs no head, so no lock), written only with the booking. */
  audit: HashedEntry,
  response?: BookingResponse,
  /** Currencies the amounts have too many decimals for (domain/currency.ts): nothing is written in one of them. */
  tooCoarse: readonly string[] = [],
): Promise<{ assetFound: boolean; investorFound: boolean; currency: string | null; currencyFits: boolean; written: boolean; body: string | undefined }> {
  const s = subscription;
  // The payload as the API shows a subscription (toSubscription): amounts as decimal text.
  const payload = sql`jsonb_build_object('subscription', jsonb_build_object(
    'id', i.id, 'assetId', i.asset_id, 'investorId', i.investor_id, 'units', i.units::text, 'pricePerUnit', i.price_per_unit::text,
    'total', i.total::text, 'fee', i.fee::text, 'fundingSource', i.funding_source, 'invoiceDate', i.invoice_date::text,
    'settlementDate', i.settlement_date::text, 'source', i.source, 'sourceId', i.source_id, 'description', i.description,
    'currency', i.currency, 'createdByUserId', i.created_by_user_id,
    'createdAt', to_char(i.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))`;
  type Row = { asset_found: boolean; investor_found: boolean; currency: string | null; currency_fits: boolean; written: boolean; body: string | null };
  // With a key, the booking is made only from the row `claimed` yields (the key was free).
  const claimed = response
    ? sql`${keyInsertCte(response.key, sql`${response.before}::text || to_json(asset.currency)::text || ${response.after}::text`, sql`from fit as asset, investor`)},`
    : sql``;
  const statement = sql<Row>`${prepared(response ? 'subscription-insert-keyed' : 'subscription-insert')}
    with asset as (select id, currency from assets where id = ${String(s.assetId)}::bigint),
    fit as (select id, currency from asset where currency <> all(${[...tooCoarse]}::text[])),
    investor as (select id from investors where id = ${s.investorId}),
    ${claimed} inserted as (
      insert into subscriptions (id, asset_id, investor_id, units, price_per_unit, total, fee, funding_source, invoice_date,
        settlement_date, source, source_id, description, created_by_user_id, created_at)
      select ${s.id}::uuid, asset.id, investor.id, ${s.units}::numeric, ${s.pricePerUnit}::numeric, ${s.total}::numeric, ${s.fee}::numeric,
        ${s.fundingSource}::text, ${s.invoiceDate}::date, ${s.settlementDate}::date, ${s.source}::text, ${s.sourceId}::text,
        ${s.description}::text, ${s.createdByUserId}::text, ${s.createdAt}::timestamptz
      from fit as asset, investor${response ? sql`, claimed` : sql``}
      returning id, asset_id, investor_id, units, price_per_unit, total, fee, funding_source, invoice_date, settlement_date,
        source, source_id, description, created_by_user_id, created_at, (select currency from asset) as currency
    ), ${outboxCtes({ ...entry, data: {} }, sql`pg_current_xact_id()`, { payload, source: sql`from inserted i` })},
    ${auditInsertCte(audit, null, sql`pg_current_xact_id()`, sql`from inserted`)}
    select exists (select 1 from asset) as asset_found, exists (select 1 from investor) as investor_found,
      (select currency from asset) as currency, exists (select 1 from fit) as currency_fits, exists (select 1 from inserted) as written,
      ${response ? sql`(select response_body from claimed)` : sql`null::text`} as body`;
  let rows: Row[];
  try {
    ({ rows } = await statement.execute(db));
  } catch (err) {
    // The asset or investor went away between the statement's snapshot and its insert (no API deletes them today).
    if (sqlState(err) === SQLSTATE.foreignKeyViolation) throw notFound('asset or investor', `${s.assetId}/${s.investorId}`);
    throw err;
  }
  const row = rows[0]!;
  return {
    assetFound: row.asset_found,
    investorFound: row.investor_found,
    currency: row.currency,
    currencyFits: row.currency_fits,
    written: row.written,
    body: row.body ?? undefined,
  };
}

export async function findSubscription(db: Kysely<DB>, id: string): Promise<Subscription | undefined> {
  const row = await selectSubscriptions(db).where('s.id', '=', id).executeTakeFirst();
  return row ? toSubscription(row) : undefined;
}

/** One page, oldest first, and the number of all that match. */
export async function listSubscriptions(
  db: Kysely<DB>,
  filter: SubscriptionFilter,
  page: { limit: number; offset: number },
): Promise<{ items: Subscription[]; total: number }> {
  let query = selectSubscriptions(db);
  if (filter.investorId !== undefined) query = query.where('s.investor_id', '=', filter.investorId);
  if (filter.assetId !== undefined) query = query.where('s.asset_id', '=', String(filter.assetId));
  if (filter.source !== undefined) query = query.where('s.source', '=', filter.source);
  if (filter.sourceId !== undefined) query = query.where('s.source_id', '=', filter.sourceId);
  const counted = await query
    .clearSelect()
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  const rows = await query.orderBy('s.created_at').orderBy('s.id').limit(page.limit).offset(page.offset).execute();
  return { items: rows.map(toSubscription), total: Number(counted.count) };
}
