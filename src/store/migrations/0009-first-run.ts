// The first start of an embedded installation, as a resumable record (one row): the admin token
// it created, when that token was confirmed shown, and when the first run (token and demo seed)
// completed. The token and this row are written in one transaction, so a token never exists
// without the record that says whether anyone saw it. An installation that already has a live
// admin token (made before this record existed) counts as having completed its first run.
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('first_run')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('token_id', 'uuid')
    .addColumn('token_shown_at', ts)
    .addColumn('started_at', ts, (c) => c.notNull())
    .addColumn('completed_at', ts)
    .execute();
  await sql`
    insert into first_run (id, started_at, token_shown_at, completed_at)
    select 1, now(), now(), now()
    where exists (select 1 from api_tokens where role = 'admin' and revoked_at is null)
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('first_run').execute();
}
