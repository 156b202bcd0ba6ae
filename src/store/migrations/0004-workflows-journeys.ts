// Workflows (steps, links), journeys (one row per investor per deal: the current position, the
// payment reference and the lock that serializes moves), workflow events with their revisions,
// form implementations and edit requests.
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workflows')
    .addColumn('deal_id', 'text', (c) => c.primaryKey().references('deals.id'))
    .addColumn('id', 'uuid', (c) => c.notNull().unique())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('investor_engagement_enabled', 'boolean', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();

  // A step id belongs to one deal only. Steps removed from a re-applied workflow are retired, not
  // deleted: past events still name them.
  await db.schema
    .createTable('workflow_steps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('deal_id', 'text', (c) => c.notNull().references('workflows.deal_id'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('default', 'complete', 'withdrawn')`))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('fields', 'jsonb', (c) => c.notNull())
    .addColumn('requirements', 'jsonb', (c) => c.notNull())
    .addColumn('form_id', 'text')
    .addColumn('triggers', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('retired_at', ts)
    .execute();
  await db.schema.createIndex('workflow_steps_deal').on('workflow_steps').columns(['deal_id', 'position']).execute();

  await db.schema
    .createTable('workflow_links')
    .addColumn('deal_id', 'text', (c) => c.notNull().references('workflows.deal_id'))
    .addColumn('from_step_id', 'text', (c) => c.notNull().references('workflow_steps.id'))
    .addColumn('to_step_id', 'text', (c) => c.notNull().references('workflow_steps.id'))
    .addPrimaryKeyConstraint('workflow_links_pk', ['deal_id', 'from_step_id', 'to_step_id'])
    .execute();

  await db.schema
    .createTable('journeys')
    .addColumn('deal_id', 'text', (c) => c.notNull().references('deals.id'))
    .addColumn('investor_user_id', 'text', (c) => c.notNull().references('investors.id'))
    .addColumn('current_step_id', 'text', (c) => c.notNull().references('workflow_steps.id'))
    .addColumn('event_count', 'integer', (c) => c.notNull())
    .addColumn('payment_reference', 'text', (c) => c.notNull().unique())
    .addColumn('started_at', ts, (c) => c.notNull())
    .addColumn('moved_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('journeys_pk', ['deal_id', 'investor_user_id'])
    .execute();
  await db.schema.createIndex('journeys_deal_step').on('journeys').columns(['deal_id', 'current_step_id']).execute();
  await db.schema.createIndex('journeys_investor').on('journeys').column('investor_user_id').execute();

  await db.schema
    .createTable('workflow_events')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('deal_id', 'text', (c) => c.notNull())
    .addColumn('investor_user_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('from_step_id', 'text', (c) => c.references('workflow_steps.id'))
    .addColumn('to_step_id', 'text', (c) => c.notNull().references('workflow_steps.id'))
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('created_by_user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addForeignKeyConstraint('workflow_events_journey', ['deal_id', 'investor_user_id'], 'journeys', ['deal_id', 'investor_user_id'])
    .addUniqueConstraint('workflow_events_journey_seq', ['deal_id', 'investor_user_id', 'seq'])
    .execute();

  // Every version of an event's data, revision 1 being what the move captured.
  await db.schema
    .createTable('event_revisions')
    .addColumn('event_id', 'uuid', (c) => c.notNull().references('workflow_events.id'))
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('set_by_user_id', 'text', (c) => c.notNull())
    .addColumn('set_at', ts, (c) => c.notNull())
    .addColumn('reason', 'text')
    .addPrimaryKeyConstraint('event_revisions_pk', ['event_id', 'revision'])
    .execute();

  await db.schema
    .createTable('form_implementations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('step_id', 'text', (c) => c.notNull().references('workflow_steps.id'))
    .addColumn('investor_user_id', 'text', (c) => c.notNull().references('investors.id'))
    .addColumn('form_id', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addUniqueConstraint('form_implementations_step_investor', ['step_id', 'investor_user_id'])
    .execute();

  await db.schema
    .createTable('edit_requests')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workflow_event_id', 'uuid', (c) => c.notNull().references('workflow_events.id'))
    .addColumn('deal_id', 'text', (c) => c.notNull())
    .addColumn('investor_user_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('Investment Amount', 'Withdraw Investment')`))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('new_data', 'jsonb')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'approved', 'rejected')`))
    .addColumn('created_by_user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('decided_at', ts)
    .addColumn('decided_by_user_id', 'text')
    .addColumn('decision_reason', 'text')
    .execute();
  await db.schema.createIndex('edit_requests_deal_investor').on('edit_requests').columns(['deal_id', 'investor_user_id', 'created_at']).execute();
  // One pending request per event at a time.
  await sql`create unique index edit_requests_one_pending on edit_requests (workflow_event_id) where status = 'pending'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'edit_requests',
    'form_implementations',
    'event_revisions',
    'workflow_events',
    'journeys',
    'workflow_links',
    'workflow_steps',
    'workflows',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
