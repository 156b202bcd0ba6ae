// Portfolio: assets with caller-supplied integer ids, and subscription transactions.
// Amounts are `numeric` without a declared precision: PostgreSQL keeps exactly the digits written
// (1000.10 stays 1000.10), and the checks repeat the API's rules so no other writer can break them.
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('assets')
    .addColumn('id', 'bigint', (c) => c.primaryKey().check(sql`id > 0`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull().check(sql`currency ~ '^[A-Z]{3}$'`))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('asset_id', 'bigint', (c) => c.notNull().references('assets.id'))
    .addColumn('investor_id', 'text', (c) => c.notNull().references('investors.id'))
    .addColumn('units', 'numeric', (c) => c.notNull().check(sql`units > 0`))
    .addColumn('price_per_unit', 'numeric', (c) => c.notNull().check(sql`price_per_unit > 0`))
    .addColumn('total', 'numeric', (c) => c.notNull().check(sql`total >= 0`))
    .addColumn('fee', 'numeric', (c) => c.notNull().check(sql`fee >= 0`))
    .addColumn('funding_source', 'text', (c) => c.notNull().check(sql`funding_source in ('cash_account', 'bank_transfer', 'card', 'other')`))
    .addColumn('invoice_date', 'date', (c) => c.notNull())
    .addColumn('settlement_date', 'date', (c) => c.notNull())
    .addColumn('source', 'text')
    .addColumn('source_id', 'text')
    .addColumn('description', 'text')
    .addColumn('created_by_user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addCheckConstraint('subscriptions_settlement_after_invoice', sql`settlement_date >= invoice_date`)
    .execute();
  await db.schema.createIndex('subscriptions_investor').on('subscriptions').columns(['investor_id', 'created_at']).execute();
  await db.schema.createIndex('subscriptions_asset').on('subscriptions').columns(['asset_id', 'created_at']).execute();
  await db.schema.createIndex('subscriptions_source').on('subscriptions').columns(['source', 'source_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('subscriptions').execute();
  await db.schema.dropTable('assets').execute();
}
