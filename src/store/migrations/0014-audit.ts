// The tamper-evident audit log.
//
// - audit_log: append-only. One row per change that matters, in a chain (`journey:<deal>/<investor>`,
//   `workflow:<deal>`, `tokens`, …) numbered 1, 2, 3…, each row holding SHA-256(previous hash ‖ its
//   RFC 8785 JSON). Like the outbox, a row takes its global position from a sequence no writer locks
//   and records a transaction id (`xid`), so checkpoints can cover "every entry below (xid,
//   position)" without a lock on the write path.
// - Chain heads live on the rows the write already locks: journeys (moves and edits hold the
//   journey row) and workflows (a re-apply holds the workflow row); rarer chains in audit_heads.
// - audit_checkpoints: append-only Merkle roots (RFC 9162) over the entries up to a bound, each
//   chained to the one before; the number is the primary key, so two sealers cannot both write one.
// - Triggers refuse UPDATE, DELETE and TRUNCATE on audit_log, audit_checkpoints, event_revisions and
//   workflow_events. The one UPDATE allowed on workflow_events sets `data` (the current revision's
//   cache, read by many queries) to exactly the data of the event's newest revision, written by the
//   same transaction: history is the revisions and the audit log; the column only follows them.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create sequence audit_position`.execute(db);
  await sql`create table audit_log (
    chain text not null,
    seq bigint not null check (seq > 0),
    position bigint not null default nextval('audit_position'),
    xid xid8 not null,
    type text not null,
    principal text not null,
    token_id text,
    at timestamptz(3) not null,
    change jsonb not null,
    deal_id text,
    prev_hash text not null,
    hash text not null,
    primary key (chain, seq)
  )`.execute(db);
  await sql`alter sequence audit_position owned by audit_log.position`.execute(db);
  await sql`create index audit_log_order on audit_log (xid, position)`.execute(db);
  await sql`create index audit_log_deal on audit_log (deal_id, xid, position) where deal_id is not null`.execute(db);
  await sql`create table audit_heads (chain text primary key, seq bigint not null, hash text not null)`.execute(db);
  await sql`create table audit_checkpoints (
    number bigint primary key check (number > 0),
    up_to_xid xid8 not null,
    up_to_position bigint not null,
    size bigint not null,
    root text not null,
    prev_hash text not null,
    hash text not null,
    sealed_at timestamptz(3) not null
  )`.execute(db);
  await sql`alter table journeys add column audit_seq bigint not null default 0, add column audit_head text`.execute(db);
  await sql`alter table workflows add column audit_seq bigint not null default 0, add column audit_head text`.execute(db);
  // Set when the investor's personal data was replaced by a tombstone (erasure after retention).
  await sql`alter table investors add column erased_at timestamptz(3)`.execute(db);

  await sql`create function refuse_history_change() returns trigger language plpgsql as $$
    begin
      raise exception 'history is append-only: % on % refused', tg_op, tg_table_name using errcode = '42501';
    end $$`.execute(db);
  for (const table of ['audit_log', 'audit_checkpoints', 'event_revisions', 'workflow_events']) {
    const ops = table === 'workflow_events' ? 'delete' : 'update or delete';
    await sql.raw(`create trigger ${table}_append_only before ${ops} on ${table} for each row execute function refuse_history_change()`).execute(db);
    await sql.raw(`create trigger ${table}_no_truncate before truncate on ${table} for each statement execute function refuse_history_change()`).execute(db);
  }
  // After the row: by then every part of the writing statement has run (an edit writes the revision
  // and the cache in one statement of CTEs, which cannot see each other's rows).
  await sql`create function workflow_events_follow_revision() returns trigger language plpgsql as $$
    declare
      newest record;
    begin
      if (to_jsonb(new) - 'data') is distinct from (to_jsonb(old) - 'data') then
        raise exception 'history is append-only: only workflow_events.data may change' using errcode = '42501';
      end if;
      select r.data, r.xmin into newest from event_revisions r where r.event_id = new.id order by r.revision desc limit 1;
      if not found or newest.xmin <> pg_current_xact_id()::xid or newest.data is distinct from new.data then
        raise exception 'history is append-only: workflow_events.data may only take the data of a revision appended by the same transaction'
          using errcode = '42501';
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger workflow_events_cache_only after update on workflow_events
    for each row execute function workflow_events_follow_revision()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger workflow_events_cache_only on workflow_events`.execute(db);
  await sql`drop function workflow_events_follow_revision()`.execute(db);
  for (const table of ['audit_log', 'audit_checkpoints', 'event_revisions', 'workflow_events']) {
    await sql.raw(`drop trigger ${table}_append_only on ${table}`).execute(db);
    await sql.raw(`drop trigger ${table}_no_truncate on ${table}`).execute(db);
  }
  await sql`drop function refuse_history_change()`.execute(db);
  await sql`alter table investors drop column erased_at`.execute(db);
  await sql`alter table workflows drop column audit_seq, drop column audit_head`.execute(db);
  await sql`alter table journeys drop column audit_seq, drop column audit_head`.execute(db);
  await sql`drop table audit_checkpoints`.execute(db);
  await sql`drop table audit_heads`.execute(db);
  await sql`drop table audit_log`.execute(db);
}
