// The transactional outbox, its per-stream sequence counters, step triggers with their
// secrets, and one delivery row per outbox entry × matching webhook.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One counter row per stream: `deal:<dealId>` for a deal's events, `platform` for events without
  // a deal (subscriptions). The writer bumps it with UPDATE … RETURNING in its own transaction, so
  // writers of one stream are serialized by the row lock: no two get the same number, and number
  // n+1 cannot commit before n (a rolled-back writer releases its number to the next one).
  await db.schema
    .createTable('outbox_sequences')
    .addColumn('stream', 'text', (c) => c.primaryKey())
    .addColumn('last_sequence', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('outbox')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('sequence', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addColumn('deal_id', 'text')
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addUniqueConstraint('outbox_stream_sequence', ['stream', 'sequence'])
    .execute();

  // Webhook secrets (`whsec_<base64>`), kept apart so that triggers and deliveries only reference
  // them and no listing can select one by accident.
  await db.schema
    .createTable('webhook_secrets')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .execute();

  // The webhook triggers of a deal's workflow steps, replaced whole when the workflow is saved.
  await db.schema
    .createTable('step_triggers')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('deal_id', 'text', (c) => c.notNull().references('deals.id').onDelete('cascade'))
    .addColumn('step_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('webhook')`))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret_id', 'uuid', (c) => c.references('webhook_secrets.id'))
    .addColumn('events', sql`text[]`, (c) => c.notNull())
    .addUniqueConstraint('step_triggers_position', ['deal_id', 'step_id', 'position'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('outbox_id', 'uuid', (c) => c.notNull().references('outbox.id'))
    // Copied from the entry so the admin list filters without a join.
    .addColumn('deal_id', 'text')
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret_id', 'uuid', (c) => c.references('webhook_secrets.id'))
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    // Attempts ever made, and failures since the schedule (re)started: a manual retry restarts it.
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_attempt_at', sql`timestamptz(3)`)
    .addColumn('next_attempt_at', sql`timestamptz(3)`, (c) => c.notNull())
    // The lease of the dispatcher that claimed it: another may claim it once this has passed.
    .addColumn('claimed_until', sql`timestamptz(3)`)
    .addColumn('claim_id', 'uuid')
    .addColumn('delivered_at', sql`timestamptz(3)`)
    .addColumn('dead_at', sql`timestamptz(3)`)
    .addUniqueConstraint('webhook_deliveries_outbox_url', ['outbox_id', 'url'])
    .addCheckConstraint('webhook_deliveries_one_end', sql`delivered_at is null or dead_at is null`)
    .execute();

  // What the dispatcher scans: the deliveries still due some time.
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at)
    where delivered_at is null and dead_at is null`.execute(db);
  await sql`create index webhook_deliveries_listing on webhook_deliveries (created_at desc, id desc)`.execute(db);
  await sql`create index webhook_deliveries_deal on webhook_deliveries (deal_id, created_at desc)`.execute(db);
  await sql`create index step_triggers_deal_step on step_triggers (deal_id, step_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('step_triggers').execute();
  await db.schema.dropTable('webhook_secrets').execute();
  await db.schema.dropTable('outbox').execute();
  await db.schema.dropTable('outbox_sequences').execute();
}
