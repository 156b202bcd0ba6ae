// The rest of the history made append-only, and the checkpoints' Merkle trees kept for proofs.
//
// - Append-only (as migration 0014's triggers: SQLSTATE 42501 on UPDATE, DELETE and TRUNCATE): the
//   rows the audit log's one-entry chains describe and that nothing changes once written:
//   subscriptions (the portfolio's transactions, `subscription.booked`), payment_line_decisions and
//   payment_allocations (`payment-line.decided`: a reversal or a staff correction appends a negative
//   allocation, it never edits one), workflow_versions (`workflow.applied`: a version's structure is
//   written once). Left mutable, because they are current state whose every change is itself an
//   entry: payment_lines (status), journey_bookings (queued, then booked), edit_requests (decided),
//   api_tokens (revoked, last used), investors (erased).
//   One UPDATE stays allowed on subscriptions: `description` set to null. It is free text that may
//   name a person, so no entry hashes it, and erasing personal data must remain possible.
// - audit_tree_leaves and audit_tree_nodes: each checkpoint's RFC 9162 Merkle tree, written once by
//   the sealer with the checkpoint (never by the write path), so an entry's inclusion proof reads
//   log2(size) nodes instead of every hash of its checkpoint. A leaf row maps an entry (by its
//   position) to its index in the checkpoint; a node (level ≥ 1, index i) is the hash of leaves
//   [i·2^level, min((i+1)·2^level, size)), the left-filled tree RFC 9162 describes (a node with
//   only a left child has that child's hash). A leaf keeps its entry's feed key and deal, so
//   `verify --deal` finds a deal's sealed entry that was deleted since. Checkpoints sealed before this migration, or by an
//   instance not yet upgraded, have no tree until a sealer fills it in; readers fall back to the
//   checkpoint's entries meanwhile. Both tables are append-only as well.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

const appendOnly = ['subscriptions', 'payment_line_decisions', 'payment_allocations', 'workflow_versions', 'audit_tree_leaves', 'audit_tree_nodes'];

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table audit_tree_leaves (
    checkpoint bigint not null references audit_checkpoints (number),
    index bigint not null check (index >= 0),
    xid xid8 not null,
    position bigint not null,
    entry_hash text not null,
    deal_id text,
    primary key (checkpoint, index)
  )`.execute(db);
  await sql`create unique index audit_tree_leaves_position on audit_tree_leaves (position)`.execute(db);
  await sql`create index audit_tree_leaves_deal on audit_tree_leaves (deal_id, position) where deal_id is not null`.execute(db);
  await sql`create table audit_tree_nodes (
    checkpoint bigint not null references audit_checkpoints (number),
    level smallint not null check (level > 0),
    index bigint not null check (index >= 0),
    hash text not null,
    primary key (checkpoint, level, index)
  )`.execute(db);

  for (const table of appendOnly) {
    const ops = table === 'subscriptions' ? 'delete' : 'update or delete';
    await sql.raw(`create trigger ${table}_append_only before ${ops} on ${table} for each row execute function refuse_history_change()`).execute(db);
    await sql.raw(`create trigger ${table}_no_truncate before truncate on ${table} for each statement execute function refuse_history_change()`).execute(db);
  }
  await sql`create function subscriptions_erase_description_only() returns trigger language plpgsql as $$
    begin
      if new.description is not null or (to_jsonb(new) - 'description') is distinct from (to_jsonb(old) - 'description') then
        raise exception 'history is append-only: a subscription may only have its description erased (set to null)' using errcode = '42501';
      end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger subscriptions_append_only_update before update on subscriptions
    for each row execute function subscriptions_erase_description_only()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger subscriptions_append_only_update on subscriptions`.execute(db);
  await sql`drop function subscriptions_erase_description_only()`.execute(db);
  for (const table of appendOnly) {
    await sql.raw(`drop trigger ${table}_append_only on ${table}`).execute(db);
    await sql.raw(`drop trigger ${table}_no_truncate on ${table}`).execute(db);
  }
  await sql`drop table audit_tree_nodes`.execute(db);
  await sql`drop table audit_tree_leaves`.execute(db);
}
