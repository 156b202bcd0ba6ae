// The feed of every deal's four-eyes approvals, for the console's Inbox to follow live beside the
// edit requests (migration 0028): the entries of the two approval types across all deals' streams,
// in the feed's (xid, sequence) order. store/outbox.ts repeats this predicate word for word, so
// the planner can use the indexes.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index outbox_approval_feed on outbox (xid, sequence) where type in ('approval.proposed', 'approval.decided')`.execute(db);
  await sql`create index outbox_approval_sequence on outbox (sequence) where type in ('approval.proposed', 'approval.decided')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index outbox_approval_sequence`.execute(db);
  await sql`drop index outbox_approval_feed`.execute(db);
}
