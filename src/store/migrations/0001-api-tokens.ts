// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'investor')`))
    .addColumn('investor_user_id', 'text')
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', sql`timestamptz(3)`)
    .addColumn('revoked_at', sql`timestamptz(3)`)
    .addCheckConstraint('api_tokens_investor_bound', sql`(role = 'investor') = (investor_user_id is not null)`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('api_tokens').execute();
}
