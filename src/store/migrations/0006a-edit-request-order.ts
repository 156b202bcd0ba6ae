// Edit requests get an arrival order: "newest first" (listInvestorEditRequests) must not depend on two requests
// landing in different milliseconds, and uuids carry no order.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('edit_requests')
    .addColumn('seq', 'bigint', (c) => c.notNull().generatedByDefaultAsIdentity())
    .execute();
  await db.schema.dropIndex('edit_requests_deal_investor').execute();
  await db.schema.createIndex('edit_requests_deal_investor').on('edit_requests').columns(['deal_id', 'investor_user_id', 'seq']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('edit_requests_deal_investor').execute();
  await db.schema.createIndex('edit_requests_deal_investor').on('edit_requests').columns(['deal_id', 'investor_user_id', 'created_at']).execute();
  await db.schema.alterTable('edit_requests').dropColumn('seq').execute();
}
