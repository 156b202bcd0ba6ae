// KYC evidence (docs/concepts.md, "KYC evidence"): what each deal asks of its investors
// (deal_kyc_settings: the step whose investors are asked, the documents, the level they earn); the
// files investors upload (kyc_documents, their bytes in document_blobs by SHA-256); staff's decision
// on each (kyc_document_reviews, one per file); the levels accepted, with their day and expiry
// (kyc_levels); and the category statements investors confirm in the portal
// (category_confirmations, linked from the statement they become by confirmation_id).
// History: every table but the settings is append-only.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

const history = ['kyc_documents', 'kyc_document_reviews', 'kyc_levels', 'category_confirmations'];

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table deal_kyc_settings (
    deal_id text primary key references deals (id),
    step_id text not null,
    level integer not null check (level between 1 and 1000),
    documents text[] not null check (cardinality(documents) between 1 and 4
      and documents <@ array['identity', 'proof-of-address', 'register-extract', 'beneficial-owners']::text[]),
    updated_by text not null,
    updated_at timestamptz(3) not null
  )`.execute(db);
  await sql`create table kyc_documents (
    id uuid primary key,
    seq bigint generated always as identity,
    deal_id text not null references deals (id),
    investor_id text not null references investors (id),
    kind text not null check (kind in ('identity', 'proof-of-address', 'register-extract', 'beneficial-owners', 'category-evidence')),
    file_name text not null,
    media_type text not null check (media_type in ('application/pdf', 'image/jpeg', 'image/png')),
    content_hash text not null references document_blobs (content_hash),
    size bigint not null check (size > 0),
    uploaded_by text not null,
    uploaded_at timestamptz(3) not null
  )`.execute(db);
  await sql`create index kyc_documents_investor on kyc_documents (deal_id, investor_id, seq)`.execute(db);
  await sql`create table kyc_document_reviews (
    document_id uuid primary key references kyc_documents (id),
    decision text not null check (decision in ('accepted', 'rejected')),
    reason text check ((decision = 'rejected') = (reason is not null)),
    reviewed_by text not null,
    reviewed_at timestamptz(3) not null
  )`.execute(db);
  await sql`create table kyc_levels (
    id uuid primary key,
    seq bigint generated always as identity,
    investor_id text not null references investors (id),
    deal_id text not null references deals (id),
    level integer not null check (level between 1 and 1000),
    accepted_on date not null,
    expires_on date not null check (expires_on > accepted_on),
    recorded_by text not null,
    recorded_at timestamptz(3) not null
  )`.execute(db);
  await sql`create index kyc_levels_newest on kyc_levels (investor_id, seq desc)`.execute(db);
  await sql`create index kyc_levels_expiry on kyc_levels (expires_on)`.execute(db);
  await sql`create table category_confirmations (
    id uuid primary key,
    seq bigint generated always as identity,
    deal_id text not null references deals (id),
    investor_id text not null references investors (id),
    category text not null check (category in ('certified-high-net-worth', 'certified-sophisticated',
      'self-certified-sophisticated', 'elective-professional', 'professional')),
    statement_text text not null,
    needs_review boolean not null,
    confirmed_at timestamptz(3) not null,
    ip text not null
  )`.execute(db);
  await sql`create index category_confirmations_investor on category_confirmations (investor_id, seq desc)`.execute(db);
  await sql`alter table investor_category_statements add column confirmation_id uuid references category_confirmations (id)`.execute(db);
  for (const table of history) {
    await sql.raw(`create trigger ${table}_append_only before update or delete on ${table} for each row execute function refuse_history_change()`).execute(db);
    await sql.raw(`create trigger ${table}_no_truncate before truncate on ${table} for each statement execute function refuse_history_change()`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table investor_category_statements drop column confirmation_id`.execute(db);
  for (const table of ['kyc_document_reviews', 'kyc_documents', 'kyc_levels', 'category_confirmations']) await sql.raw(`drop table ${table}`).execute(db);
  await sql`drop table deal_kyc_settings`.execute(db);
}
