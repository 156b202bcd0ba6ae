// The investor directory, upserted by the platform. The nested contact object is kept whole as
// jsonb; the columns searched and filtered on (full name, e-mail, status) are copied out of it.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('investors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('remote_id', 'text', (c) => c.notNull())
    .addColumn('data_source', 'text', (c) => c.notNull())
    .addColumn('team_user_id', 'text')
    .addColumn('kyc_check_level', 'integer')
    .addColumn('contact', 'jsonb', (c) => c.notNull())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addColumn('updated_at', sql`timestamptz(3)`, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('investors_full_name_id').on('investors').columns(['full_name', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('investors').execute();
}
