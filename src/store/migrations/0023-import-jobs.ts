// Import jobs: an import too big to answer within one request (a statement, an investor or move
// file above the job threshold, or one whose client asked `Prefer: respond-async`) runs in the
// background and is followed here. `heartbeat_at` is renewed while the job runs: a running job
// whose heartbeat is old belongs to a process that stopped, and is reported failed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('import_jobs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('deal_id', 'text')
    .addColumn('dry_run', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('progress', 'jsonb', (c) => c.notNull())
    .addColumn('result', 'jsonb')
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addColumn('heartbeat_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addColumn('finished_at', sql`timestamptz(3)`)
    .execute();
  await db.schema.createIndex('import_jobs_running').on('import_jobs').column('heartbeat_at').where(sql.ref('status'), '=', 'running').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_jobs').execute();
}
