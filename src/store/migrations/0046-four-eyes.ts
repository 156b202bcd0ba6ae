// Four-eyes approvals (docs/reference/approvals.md): the rules of a deal saying which of its writes
// wait for a second person (`four_eyes_rules`: the newest row of a deal and action counts, in order
// of `seq`); each write held for a second person (`proposals`: the exact input and the facts it
// was checked against, its `basis`); and each proposal's one decision (`proposal_decisions`:
// approved, rejected, or refused because the basis moved). History: rows are never changed nor
// deleted; a rule is replaced by a newer row.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

const tables = ['four_eyes_rules', 'proposals', 'proposal_decisions'];

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table four_eyes_rules (
    seq bigint generated always as identity primary key,
    deal_id text not null references deals (id),
    action text not null check (action in ('payment-decision', 'bulk-move')),
    enabled boolean not null,
    min_investors integer check (min_investors is null or min_investors > 0),
    created_by text not null,
    created_at timestamptz(3) not null
  )`.execute(db);
  await sql`create index four_eyes_rules_newest on four_eyes_rules (deal_id, action, seq desc)`.execute(db);
  await sql`create table proposals (
    id uuid primary key,
    seq bigint generated always as identity,
    action text not null,
    deal_id text not null references deals (id),
    input jsonb not null,
    basis jsonb not null,
    proposed_by text not null,
    proposed_by_name text,
    proposed_at timestamptz(3) not null
  )`.execute(db);
  await sql`create index proposals_order on proposals (seq desc)`.execute(db);
  await sql`create table proposal_decisions (
    proposal_id uuid primary key references proposals (id),
    outcome text not null check (outcome in ('approved', 'rejected', 'refused')),
    decided_by text not null,
    decided_by_name text,
    reason text,
    decided_at timestamptz(3) not null,
    result jsonb
  )`.execute(db);
  for (const table of tables) {
    await sql.raw(`create trigger ${table}_append_only before update or delete on ${table} for each row execute function refuse_history_change()`).execute(db);
    await sql.raw(`create trigger ${table}_no_truncate before truncate on ${table} for each statement execute function refuse_history_change()`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [...tables].reverse()) await sql.raw(`drop table ${table}`).execute(db);
}
