// The investor portal's sign-in: invitations staff send, the passkeys (WebAuthn credentials)
// investors register with them, the sessions a passkey opens, and the WebAuthn challenges between
// options and answer (in the database, so any instance can check an answer another one asked for).
// Secrets are kept only as SHA-256 hashes. Invitations, passkeys and sessions are history: they are
// never deleted, only used, revoked or replaced by setting their columns.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table portal_invitations (
    id uuid primary key,
    investor_user_id text not null,
    token_hash text not null unique,
    created_by text not null,
    created_at timestamptz(3) not null,
    expires_at timestamptz(3) not null,
    used_at timestamptz(3),
    revoked_at timestamptz(3),
    check (expires_at > created_at),
    check (used_at is null or revoked_at is null)
  )`.execute(db);
  await sql`create index portal_invitations_open on portal_invitations (investor_user_id) where used_at is null and revoked_at is null`.execute(db);

  await sql`create table portal_passkeys (
    credential_id text primary key,
    investor_user_id text not null,
    public_key bytea not null,
    counter bigint not null check (counter >= 0),
    transports text[] not null default '{}',
    invitation_id uuid not null references portal_invitations (id),
    created_at timestamptz(3) not null,
    last_used_at timestamptz(3),
    replaced_at timestamptz(3)
  )`.execute(db);
  await sql`create index portal_passkeys_live on portal_passkeys (investor_user_id) where replaced_at is null`.execute(db);

  await sql`create table portal_sessions (
    id uuid primary key,
    investor_user_id text not null,
    token_hash text not null unique,
    credential_id text not null references portal_passkeys (credential_id),
    created_at timestamptz(3) not null,
    expires_at timestamptz(3) not null,
    last_used_at timestamptz(3) not null,
    revoked_at timestamptz(3)
  )`.execute(db);
  await sql`create index portal_sessions_live on portal_sessions (investor_user_id) where revoked_at is null`.execute(db);

  await sql`create table portal_challenges (
    challenge text primary key,
    purpose text not null check (purpose in ('registration', 'authentication')),
    invitation_id uuid references portal_invitations (id),
    created_at timestamptz(3) not null,
    expires_at timestamptz(3) not null,
    used_at timestamptz(3),
    check ((purpose = 'registration') = (invitation_id is not null))
  )`.execute(db);
  await sql`create index portal_challenges_expiry on portal_challenges (expires_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['portal_challenges', 'portal_sessions', 'portal_passkeys', 'portal_invitations']) {
    await sql.raw(`drop table ${table}`).execute(db);
  }
}
