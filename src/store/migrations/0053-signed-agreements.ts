// Subscription agreements signed in the portal (docs/reference/signature-format.md): a deal's
// agreement template (a PDF with form fields; the newest upload is the one in use), the passkey
// challenges a signing answers (each names the document's hash it binds), every signature (the
// investor's, then the countersignature; each names the document signed and the sealed PDF made of
// it, both by content hash) and the development seal made at first start when no certificate is
// configured. Templates and signatures are history: never changed nor deleted.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

const history = ['agreement_templates', 'agreement_signatures'];

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table agreement_templates (
    id uuid primary key,
    deal_id text not null references deals (id),
    content_hash text not null references document_blobs (content_hash),
    uploaded_by text not null,
    uploaded_at timestamptz(3) not null
  )`.execute(db);
  await sql`create index agreement_templates_deal on agreement_templates (deal_id, uploaded_at desc, id desc)`.execute(db);
  await sql`create table agreement_challenges (
    challenge text primary key,
    deal_id text not null references deals (id),
    investor_user_id text not null references investors (id),
    role text not null check (role in ('investor', 'countersigner')),
    signer text not null,
    content_hash text not null references document_blobs (content_hash),
    created_at timestamptz(3) not null,
    expires_at timestamptz(3) not null,
    answered_at timestamptz(3)
  )`.execute(db);
  await sql`create table agreement_signatures (
    id uuid primary key,
    deal_id text not null references deals (id),
    investor_user_id text not null references investors (id),
    role text not null check (role in ('investor', 'countersigner')),
    signer text not null,
    signed_hash text not null references document_blobs (content_hash),
    sealed_hash text not null references document_blobs (content_hash),
    credential_id text not null,
    assertion jsonb not null,
    ip text not null,
    signed_at timestamptz(3) not null,
    unique (deal_id, investor_user_id, role)
  )`.execute(db);
  await sql`create table seal_keys (
    name text primary key,
    private_key bytea not null,
    certificate bytea not null,
    created_at timestamptz(3) not null
  )`.execute(db);
  for (const table of history) {
    await sql.raw(`create trigger ${table}_append_only before update or delete on ${table} for each row execute function refuse_history_change()`).execute(db);
    await sql.raw(`create trigger ${table}_no_truncate before truncate on ${table} for each statement execute function refuse_history_change()`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['seal_keys', 'agreement_signatures', 'agreement_challenges', 'agreement_templates']) await sql.raw(`drop table ${table}`).execute(db);
}
