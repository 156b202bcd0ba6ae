// The event feed without a counter row per stream. Before, every writer of a deal's feed (and every
// booking, on the one `platform` row) bumped a counter row and held its lock until commit: moves of
// one deal, and all subscriptions, queued behind each other. Now an entry takes a number from one
// sequence (never locked) and records the id of the transaction that wrote it; the feed is read in
// (xid, sequence) order and only below the oldest transaction still running, so it never shows an
// entry before an earlier one has committed (docs/reference/webhooks-and-feed.md, "The pull feed", gives the argument).
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Entries written so far keep their per-stream numbers (so cursors handed out before stay valid);
  // new numbers start above every one of them, so a number names one entry of a stream either way.
  await sql`create sequence outbox_position`.execute(db);
  await sql`select setval('outbox_position', coalesce((select max(sequence) from outbox), 0) + 1, false)`.execute(db);
  await sql`alter table outbox alter column sequence set default nextval('outbox_position')`.execute(db);
  await sql`alter sequence outbox_position owned by outbox.sequence`.execute(db);
  // The feed order's first key. Earlier entries get 0: they come before every new one, and among
  // themselves keep their sequence order.
  await sql`alter table outbox add column xid xid8 not null default '0'`.execute(db);
  await sql`alter table outbox alter column xid drop default`.execute(db);
  await sql`create index outbox_feed on outbox (stream, xid, sequence)`.execute(db);
  // The feed key of a journey's last entry: the next entry of the journey takes at least this one,
  // so a journey's entries keep the order of its moves even when a later move got the smaller
  // transaction id (ids are handed out at a transaction's first write, not at its commit).
  await sql`alter table journeys add column feed_xid xid8 not null default '0'`.execute(db);
  await sql`drop table outbox_sequences`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create table outbox_sequences (stream text primary key, last_sequence bigint not null)`.execute(db);
  await sql`insert into outbox_sequences (stream, last_sequence) select stream, max(sequence) from outbox group by stream`.execute(db);
  await sql`alter table journeys drop column feed_xid`.execute(db);
  await sql`drop index outbox_feed`.execute(db);
  await sql`alter table outbox drop column xid`.execute(db);
  await sql`alter table outbox alter column sequence drop default`.execute(db);
  await sql`drop sequence outbox_position`.execute(db);
}
