// Subscription rows. Amounts go in and come out as decimal text (numeric, never a JS number);
// dates come out as `YYYY-MM-DD` text (`::text`), so no driver turns them into local-time Dates.
import { type Kysely, sql } from 'kysely';
import type { Subscription, SubscriptionInput } from '../domain/subscription.ts';
import { type OutboxEntryInput, outboxCtes } from './outbox.ts';
import type { HashedEntry } from '../domain/audit.ts';
import { auditInsertCte } from './audit.ts';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

export interface SubscriptionFilter {
  investorId?: string;
  assetId?: number;
  source?: string;
  sourceId?: string;
}

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

/**
 * A booking in one statement: the subscription, read back as stored (with its asset's currency),
 * and its outbox entry, whose payload is that stored row. Nothing is written when the asset or the
 * investor does not exist; `assetFound` and `investorFound` say which.
 */
export async function insertSubscriptionWithEntry(
  db: Kysely<DB>,
  subscription: SubscriptionInput & { id: string; createdByUserId: string; createdAt: Date },
  entry: Omit<OutboxEntryInput, 'data'>,
  /** The booking's audit entry (a chain of its own: it needs no head, so no lock), written only with the booking. */
  audit?: HashedEntry,
): Promise<{ assetFound: boolean; investorFound: boolean; stored: Subscription | undefined }> {
  const s = subscription;
  // The payload as the API shows a subscription (toSubscription): amounts as decimal text.
  const payload = sql`jsonb_build_object('subscription', jsonb_build_object(
    'id', i.id, 'assetId', i.asset_id, 'investorId', i.investor_id, 'units', i.units::text, 'pricePerUnit', i.price_per_unit::text,
    'total', i.total::text, 'fee', i.fee::text, 'fundingSource', i.funding_source, 'invoiceDate', i.invoice_date::text,
    'settlementDate', i.settlement_date::text, 'source', i.source, 'sourceId', i.source_id, 'description', i.description,
    'currency', i.currency, 'createdByUserId', i.created_by_user_id,
    'createdAt', to_char(i.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))`;
  type Row = { asset_found: boolean; investor_found: boolean; stored: (Omit<Row2, 'created_at'> & { created_at: string }) | null };
  type Row2 = Parameters<typeof toSubscription>[0];
  const { rows } = await sql<Row>`${prepared('subscription-insert')}
    with asset as (select id, currency from assets where id = ${String(s.assetId)}::bigint),
    investor as (select id from investors where id = ${s.investorId}),
    inserted as (
      insert into subscriptions (id, asset_id, investor_id, units, price_per_unit, total, fee, funding_source, invoice_date,
        settlement_date, source, source_id, description, created_by_user_id, created_at)
      select ${s.id}::uuid, asset.id, investor.id, ${s.units}::numeric, ${s.pricePerUnit}::numeric, ${s.total}::numeric, ${s.fee}::numeric,
        ${s.fundingSource}::text, ${s.invoiceDate}::date, ${s.settlementDate}::date, ${s.source}::text, ${s.sourceId}::text,
        ${s.description}::text, ${s.createdByUserId}::text, ${s.createdAt}::timestamptz
      from asset, investor
      returning id, asset_id, investor_id, units, price_per_unit, total, fee, funding_source, invoice_date, settlement_date,
        source, source_id, description, created_by_user_id, created_at, (select currency from asset) as currency
    ), ${outboxCtes({ ...entry, data: {} }, sql`pg_current_xact_id()`, { payload, source: sql`from inserted i` })}${audit ? sql`, ${auditInsertCte(audit, null, sql`pg_current_xact_id()`, sql`from inserted`)}` : sql``}
    select exists (select 1 from asset) as asset_found, exists (select 1 from investor) as investor_found,
      (select json_build_object('id', i.id, 'asset_id', i.asset_id::text, 'investor_id', i.investor_id, 'units', i.units::text,
        'price_per_unit', i.price_per_unit::text, 'total', i.total::text, 'fee', i.fee::text, 'funding_source', i.funding_source,
        'invoice_date', i.invoice_date::text, 'settlement_date', i.settlement_date::text, 'source', i.source, 'source_id', i.source_id,
        'description', i.description, 'created_by_user_id', i.created_by_user_id, 'created_at', i.created_at, 'currency', i.currency)
        from inserted i) as stored`.execute(db);
  const row = rows[0]!;
  const stored = row.stored ? toSubscription({ ...row.stored, created_at: new Date(row.stored.created_at) }) : undefined;
  return { assetFound: row.asset_found, investorFound: row.investor_found, stored };
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
