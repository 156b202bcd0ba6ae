// Subscription rows. Amounts go in and come out as decimal text (numeric, never a JS number);
// dates come out as `YYYY-MM-DD` text (`::text`), so no driver turns them into local-time Dates.
import { type Kysely, sql } from 'kysely';
import type { Subscription, SubscriptionInput } from '../domain/subscription.ts';
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
