// The feed of every deal's edit requests, for the console's Inbox to follow live: the entries of
// the three edit-request types across all deals' streams, read in the feed's (xid, sequence) order
// after the entry a cursor names. Two small partial indexes (edit requests are few beside moves):
// one in feed order, and one to find a cursor's entry by its sequence alone (the stream's own
// index needs the stream). store/outbox.ts repeats this predicate word for word, so the planner
// can use them.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index outbox_edit_request_feed on outbox (xid, sequence)
    where type in ('edit-request.created', 'edit-request.approved', 'edit-request.rejected')`.execute(db);
  await sql`create index outbox_edit_request_sequence on outbox (sequence)
    where type in ('edit-request.created', 'edit-request.approved', 'edit-request.rejected')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index outbox_edit_request_sequence`.execute(db);
  await sql`drop index outbox_edit_request_feed`.execute(db);
}
