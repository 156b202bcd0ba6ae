// Staff are people: a name, an e-mail, a role, invited and deactivated by an admin. They sign in to
// the console with a passkey, by the same invitations, passkeys, sessions and WebAuthn challenges
// as investors in the portal: those tables now serve both audiences (`audience`), so they lose the
// portal's name, and the id of whoever signs in (an investor's id, or a staff person's) is
// `subject_id`. A console session may also come from single sign-on (OpenID Connect), with no
// passkey: its `method` says which, and the state of a sign-in under way with the identity provider
// is kept until its answer comes back (`oidc_sign_ins`, scratch as WebAuthn challenges are). API keys may belong to a person (deactivating them revokes it) or name the
// integration that uses them, and may expire.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table staff_people (
    id uuid primary key,
    name text not null check (length(name) between 1 and 200),
    email text not null check (length(email) between 3 and 254 and email like '%_@_%'),
    role text not null check (role in ('viewer', 'operator', 'approver', 'admin')),
    created_by text not null,
    created_at timestamptz(3) not null,
    deactivated_at timestamptz(3),
    deactivated_by text
  )`.execute(db);
  await sql`create unique index staff_people_email_key on staff_people (lower(email))`.execute(db);

  const renames: [string, string][] = [
    ['portal_invitations', 'sign_in_invitations'],
    ['portal_passkeys', 'passkeys'],
    ['portal_sessions', 'sign_in_sessions'],
    ['portal_challenges', 'webauthn_challenges'],
  ];
  for (const [from, to] of renames) await sql.raw(`alter table ${from} rename to ${to}`).execute(db);
  for (const table of ['sign_in_invitations', 'passkeys', 'sign_in_sessions']) {
    await sql.raw(`alter table ${table} rename column investor_user_id to subject_id`).execute(db);
    await sql.raw(`alter table ${table} add column audience text not null default 'investor' check (audience in ('investor', 'staff'))`).execute(db);
  }
  await sql`alter index portal_challenges_expiry rename to webauthn_challenges_expiry`.execute(db);
  await sql`drop index portal_invitations_open`.execute(db);
  await sql`drop index portal_passkeys_live`.execute(db);
  await sql`drop index portal_sessions_live`.execute(db);
  await sql`create index sign_in_invitations_open on sign_in_invitations (audience, subject_id) where used_at is null and revoked_at is null`.execute(db);
  await sql`create index passkeys_live on passkeys (audience, subject_id) where replaced_at is null`.execute(db);
  await sql`create index sign_in_sessions_live on sign_in_sessions (audience, subject_id) where revoked_at is null`.execute(db);

  await sql`alter table sign_in_sessions alter column credential_id drop not null`.execute(db);
  await sql`alter table sign_in_sessions add column method text not null default 'passkey' check (method in ('passkey', 'oidc'))`.execute(db);
  await sql`alter table sign_in_sessions add constraint sign_in_sessions_credential check ((method = 'passkey') = (credential_id is not null))`.execute(db);
  await sql`create table oidc_sign_ins (
    state text primary key,
    nonce text not null,
    code_verifier text not null,
    created_at timestamptz(3) not null,
    expires_at timestamptz(3) not null,
    used_at timestamptz(3)
  )`.execute(db);
  await sql`create index oidc_sign_ins_expiry on oidc_sign_ins (expires_at)`.execute(db);

  await sql`alter table api_tokens add column person_id uuid references staff_people (id)`.execute(db);
  await sql`alter table api_tokens add column integration text check (length(integration) between 1 and 200)`.execute(db);
  await sql`alter table api_tokens add column expires_at timestamptz(3)`.execute(db);
  await sql`alter table api_tokens add constraint api_tokens_one_owner check (person_id is null or integration is null)`.execute(db);
  await sql`create index api_tokens_person on api_tokens (person_id) where person_id is not null and revoked_at is null`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('0045-staff-people cannot be undone: restore a backup taken before it');
}
