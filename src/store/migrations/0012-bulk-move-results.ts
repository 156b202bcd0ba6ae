// The outcome of each move of a bulk request that carries an Idempotency-Key, written in the move's
// own transaction. Moves of a batch commit one by one, so a batch cut short (a crash, a lost
// database) leaves some applied: a retry with the same key reads these and reports them as they
// were, instead of applying or refusing them again. Deleted when the batch's response is stored.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('bulk_move_results')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('item', 'integer', (c) => c.notNull())
    .addColumn('result', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addPrimaryKeyConstraint('bulk_move_results_pk', ['scope', 'key', 'fingerprint', 'item'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('bulk_move_results').execute();
}
