// Move batches: every write that moves investors (a single move, a bulk move, an import, a payment
// decision, and an undo itself) tags the events it writes with one batch id, so that the batch can
// be undone as one action (POST /console/batches/{batchId}/undo). One row per event written; an
// undo's rows name the batch they undo in `undoes`. Rows are only added, never changed: history is
// kept by the events themselves, this table only says which events went together.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('move_batch_events')
    .addColumn('event_id', 'uuid', (c) => c.primaryKey())
    .addColumn('batch_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('undoes', 'uuid')
    .addColumn('deal_id', 'text', (c) => c.notNull())
    .addColumn('investor_user_id', 'text', (c) => c.notNull())
    .addColumn('from_step_id', 'text')
    .addColumn('to_step_id', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('move_batch_events_batch').on('move_batch_events').column('batch_id').execute();
  await db.schema.createIndex('move_batch_events_undoes').on('move_batch_events').column('undoes').where(sql.ref('undoes'), 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('move_batch_events').execute();
}
