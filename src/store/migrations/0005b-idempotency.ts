// Idempotency keys: one row per (caller's token, key). A row is claimed 'in-progress'
// with a short lease before the request's effect runs, and becomes 'done' with the response in the
// effect's own transaction. `lease_id` names the claim, so a request whose lease ran out and was
// taken over cannot finish (its effect rolls back).
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('in-progress', 'done')`))
    .addColumn('lease_id', 'uuid', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
    .addCheckConstraint('idempotency_keys_done_has_response', sql`(status = 'done') = (response_status is not null and response_body is not null)`)
    .execute();
  await db.schema.createIndex('idempotency_keys_expires').on('idempotency_keys').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
