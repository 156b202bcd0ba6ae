// Bank statements, reconciliation and booking on completion.
//
// - payment_statements: one row per distinct statement file (content_sha256 unique), so importing
//   the same file again finds the first import instead of making a second.
// - payment_lines: one row per credit or debit the bank reported; line_key (the bank's entry
//   reference, or a hash of the line's fields) is unique, so a line is never stored or applied twice,
//   even by two imports running at once (INSERT … ON CONFLICT DO NOTHING).
// - payment_allocations: money accepted for an investor in a deal, signed (a reversal or a staff
//   decision that takes money back appends a negative row); what an investor has paid is the sum.
// - payment_line_decisions: every decision about a line (the import's, each staff action), with who
//   and when. Append-only.
// - deal_payment_settings: per deal, the payment step and the fields reconciliation reads and writes,
//   and the asset and price booked on completion.
// - journey_bookings: at most one booking attempt per journey, ever (primary key): booked, or queued
//   for staff when it cannot be booked exactly.
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('deal_payment_settings')
    .addColumn('deal_id', 'text', (c) => c.primaryKey().references('deals.id'))
    .addColumn('payment_step_id', 'text')
    .addColumn('amount_field_key', 'text')
    .addColumn('date_field_key', 'text')
    .addColumn('commitment_field_key', 'text', (c) => c.notNull())
    .addColumn('currency_field_key', 'text')
    .addColumn('asset_id', 'bigint', (c) => c.references('assets.id'))
    .addColumn('price_per_unit', 'numeric', (c) => c.check(sql`price_per_unit > 0`))
    .addColumn('unit_decimals', 'integer', (c) => c.notNull().check(sql`unit_decimals between 0 and 12`))
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('payment_statements')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('content_sha256', 'text', (c) => c.notNull().unique())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('line_count', 'integer', (c) => c.notNull())
    .addColumn('new_line_count', 'integer', (c) => c.notNull())
    .addColumn('imported_by', 'text', (c) => c.notNull())
    .addColumn('imported_at', ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('payment_lines')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull().generatedByDefaultAsIdentity())
    .addColumn('statement_id', 'uuid', (c) => c.notNull().references('payment_statements.id'))
    .addColumn('line_key', 'text', (c) => c.notNull().unique())
    .addColumn('direction', 'text', (c) => c.notNull().check(sql`direction in ('credit', 'debit')`))
    .addColumn('reversal', 'boolean', (c) => c.notNull())
    .addColumn('amount', 'numeric', (c) => c.notNull().check(sql`amount >= 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('booking_date', 'date')
    .addColumn('value_date', 'date')
    .addColumn('account', 'text')
    .addColumn('entry_reference', 'text')
    .addColumn('end_to_end_id', 'text')
    .addColumn('debtor_name', 'text')
    .addColumn('debtor_account', 'text')
    .addColumn('structured_reference', 'text')
    .addColumn('remittance', 'text')
    .addColumn('reference', 'text')
    .addColumn('deal_id', 'text')
    .addColumn('investor_user_id', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('refusal', 'jsonb')
    .addColumn('event_id', 'uuid')
    .addColumn('reversed_by_line_id', 'uuid')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_lines_status').on('payment_lines').columns(['status', 'seq']).execute();
  await db.schema.createIndex('payment_lines_deal_status').on('payment_lines').columns(['deal_id', 'status', 'seq']).execute();
  await db.schema.createIndex('payment_lines_statement').on('payment_lines').columns(['statement_id', 'seq']).execute();
  await db.schema.createIndex('payment_lines_end_to_end').on('payment_lines').columns(['end_to_end_id']).execute();

  await db.schema
    .createTable('payment_allocations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull().generatedByDefaultAsIdentity())
    .addColumn('line_id', 'uuid', (c) => c.notNull().references('payment_lines.id'))
    .addColumn('deal_id', 'text', (c) => c.notNull())
    .addColumn('investor_user_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('value_date', 'date')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_allocations_journey').on('payment_allocations').columns(['deal_id', 'investor_user_id', 'seq']).execute();
  await db.schema.createIndex('payment_allocations_line').on('payment_allocations').columns(['line_id']).execute();

  await db.schema
    .createTable('payment_line_decisions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull().generatedByDefaultAsIdentity())
    .addColumn('line_id', 'uuid', (c) => c.notNull().references('payment_lines.id'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('allocations', 'jsonb')
    .addColumn('reason', 'text')
    .addColumn('refusal', 'jsonb')
    .addColumn('event_id', 'uuid')
    .addColumn('decided_by', 'text', (c) => c.notNull())
    .addColumn('decided_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_line_decisions_line').on('payment_line_decisions').columns(['line_id', 'seq']).execute();

  await db.schema
    .createTable('journey_bookings')
    .addColumn('deal_id', 'text', (c) => c.notNull())
    .addColumn('investor_user_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('booked', 'queued')`))
    .addColumn('subscription_id', 'uuid', (c) => c.references('subscriptions.id'))
    .addColumn('reason', 'text')
    .addColumn('event_id', 'uuid', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('journey_bookings_pk', ['deal_id', 'investor_user_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['journey_bookings', 'payment_line_decisions', 'payment_allocations', 'payment_lines', 'payment_statements', 'deal_payment_settings']) {
    await db.schema.dropTable(table).execute();
  }
}
