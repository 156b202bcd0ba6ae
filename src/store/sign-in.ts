// Sign-in without passwords (migrations 0026, 0045): invitations, passkeys, sessions and WebAuthn
// challenges, for investors in the portal and staff in the console alike (`audience`); whoever signs
// in is the subject (an investor's id, or a staff person's). Invitations, passkeys and sessions are
// never deleted: they are used, revoked or replaced by setting a column. Challenges are scratch
// between the options and the answer: expired ones are deleted.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';
import { AppError } from '../domain/errors.ts';
import { isUniqueViolation } from './errors.ts';

export type Audience = 'investor' | 'staff';

export interface InvestorName {
  id: string;
  name: string;
  email: string | null;
}

/** The directory entries of these ids that exist (names and e-mails for invitations). */
export async function findInvestorNames(db: Kysely<DB>, ids: readonly string[]): Promise<InvestorName[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('investors').select(['id', 'full_name', 'email']).where('id', 'in', ids).execute();
  return rows.map((r) => ({ id: r.id, name: r.full_name, email: r.email }));
}

/** Revokes the unused invitations of these subjects; the ids and subjects of those revoked. */
export async function revokeOpenInvitations(db: Kysely<DB>, audience: Audience, subjectIds: readonly string[], now: Date) {
  if (subjectIds.length === 0) return [];
  const rows = await db
    .updateTable('sign_in_invitations')
    .set({ revoked_at: now })
    .where('audience', '=', audience)
    .where('subject_id', 'in', subjectIds)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['id', 'subject_id'])
    .execute();
  return rows.map((r) => ({ id: r.id, subjectId: r.subject_id }));
}

export interface NewInvitation {
  id: string;
  audience: Audience;
  subjectId: string;
  tokenHash: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertInvitations(db: Kysely<DB>, invitations: readonly NewInvitation[]): Promise<void> {
  if (invitations.length === 0) return;
  await db
    .insertInto('sign_in_invitations')
    .values(
      invitations.map((i) => ({
        id: i.id,
        audience: i.audience,
        subject_id: i.subjectId,
        token_hash: i.tokenHash,
        created_by: i.createdBy,
        created_at: i.createdAt,
        expires_at: i.expiresAt,
      })),
    )
    .execute();
}

/** The audience's invitation of this token hash when it is neither used, revoked nor expired; locked when `lock`. */
export async function findOpenInvitation(db: Kysely<DB>, audience: Audience, tokenHash: string, now: Date, lock = false) {
  let query = db
    .selectFrom('sign_in_invitations')
    .select(['id', 'subject_id'])
    .where('token_hash', '=', tokenHash)
    .where('audience', '=', audience)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && { id: row.id, subjectId: row.subject_id };
}

export async function markInvitationUsed(db: Kysely<DB>, id: string, now: Date): Promise<boolean> {
  const result = await db.updateTable('sign_in_invitations').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertChallenge(
  db: Kysely<DB>,
  challenge: { challenge: string; purpose: 'registration' | 'authentication'; invitationId: string | null; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('webauthn_challenges')
    .values({
      challenge: challenge.challenge,
      purpose: challenge.purpose,
      invitation_id: challenge.invitationId,
      created_at: challenge.createdAt,
      expires_at: challenge.expiresAt,
    })
    .execute();
}

/** Deletes challenges that expired before `before` (unanswered or answered, they can serve no one). */
export async function deleteExpiredChallenges(db: Kysely<DB>, before: Date): Promise<void> {
  await db.deleteFrom('webauthn_challenges').where('expires_at', '<', before).execute();
}

/**
 * Marks a challenge answered, once: true only for an unanswered, unexpired challenge of this
 * purpose (and, for a registration, of this invitation).
 */
export async function consumeChallenge(
  db: Kysely<DB>,
  challenge: string,
  purpose: 'registration' | 'authentication',
  invitationId: string | null,
  now: Date,
): Promise<boolean> {
  let query = db
    .updateTable('webauthn_challenges')
    .set({ used_at: now })
    .where('challenge', '=', challenge)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now);
  if (invitationId !== null) query = query.where('invitation_id', '=', invitationId);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Marks the subject's live passkeys replaced; their credential ids. */
export async function replacePasskeys(db: Kysely<DB>, audience: Audience, subjectId: string, now: Date): Promise<string[]> {
  const rows = await db
    .updateTable('passkeys')
    .set({ replaced_at: now })
    .where('audience', '=', audience)
    .where('subject_id', '=', subjectId)
    .where('replaced_at', 'is', null)
    .returning('credential_id')
    .execute();
  return rows.map((r) => r.credential_id);
}

export interface Passkey {
  credentialId: string;
  audience: Audience;
  subjectId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
}

/**
 * Stores a new passkey. A credential id registered already (another subject's, or the same
 * subject's again) is a conflict: credential ids are unique across the service (WebAuthn Level 3,
 * section 7.1, step 27 says to refuse it).
 */
export async function insertPasskey(db: Kysely<DB>, passkey: Passkey & { invitationId: string; createdAt: Date }): Promise<void> {
  const existing = await db.selectFrom('passkeys').select('credential_id').where('credential_id', '=', passkey.credentialId).executeTakeFirst();
  if (existing) throw passkeyTaken();
  try {
    await insertPasskeyRow(db, passkey);
  } catch (err) {
    // Two registrations of one credential id at once: the second meets the primary key.
    if (isUniqueViolation(err)) throw passkeyTaken();
    throw err;
  }
}

const passkeyTaken = () => new AppError('conflict', 'This passkey is already registered; nothing was changed. Sign in with it, or register a new passkey');

async function insertPasskeyRow(db: Kysely<DB>, passkey: Passkey & { invitationId: string; createdAt: Date }): Promise<void> {
  await db
    .insertInto('passkeys')
    .values({
      credential_id: passkey.credentialId,
      audience: passkey.audience,
      subject_id: passkey.subjectId,
      public_key: passkey.publicKey,
      counter: passkey.counter,
      transports: passkey.transports,
      invitation_id: passkey.invitationId,
      created_at: passkey.createdAt,
    })
    .execute();
}

/** A passkey not replaced, locked for the sign-in that checks and moves its counter. */
export async function findLivePasskeyForUpdate(db: Kysely<DB>, credentialId: string): Promise<Passkey | undefined> {
  const row = await db
    .selectFrom('passkeys')
    .select(['credential_id', 'audience', 'subject_id', 'public_key', 'counter', 'transports'])
    .where('credential_id', '=', credentialId)
    .where('replaced_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  return (
    row && {
      credentialId: row.credential_id,
      audience: row.audience as Audience,
      subjectId: row.subject_id,
      publicKey: new Uint8Array(row.public_key),
      counter: Number(row.counter),
      transports: row.transports,
    }
  );
}

export async function recordPasskeyUse(db: Kysely<DB>, credentialId: string, counter: number, now: Date): Promise<void> {
  await db.updateTable('passkeys').set({ counter, last_used_at: now }).where('credential_id', '=', credentialId).execute();
}

export interface NewSession {
  id: string;
  audience: Audience;
  subjectId: string;
  tokenHash: string;
  /** The passkey signed in with; null for a single sign-on (OpenID Connect). */
  credentialId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertSession(db: Kysely<DB>, session: NewSession): Promise<void> {
  await db
    .insertInto('sign_in_sessions')
    .values({
      id: session.id,
      audience: session.audience,
      subject_id: session.subjectId,
      token_hash: session.tokenHash,
      credential_id: session.credentialId,
      method: session.credentialId === null ? 'oidc' : 'passkey',
      created_at: session.createdAt,
      expires_at: session.expiresAt,
      last_used_at: session.createdAt,
    })
    .execute();
}

export interface LiveSession {
  id: string;
  subjectId: string;
  name: string;
  /** A staff person's role as it is now (a change applies to the sessions open); null for an investor. */
  role: string | null;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date;
}

/** The audience's unrevoked, unexpired session of this token hash, with its subject's name (and a staff person's role). */
export async function findLiveSession(db: Kysely<DB>, audience: Audience, tokenHash: string, now: Date): Promise<LiveSession | undefined> {
  const row = await db
    .selectFrom('sign_in_sessions as s')
    .leftJoin('investors as i', (join) => join.onRef('i.id', '=', 's.subject_id').on('s.audience', '=', 'investor'))
    .leftJoin('staff_people as p', (join) =>
      join.on(sql`p.id::text`, '=', sql.ref('s.subject_id')).on('s.audience', '=', 'staff').on('p.deactivated_at', 'is', null),
    )
    .select(['s.id', 's.subject_id', 's.created_at', 's.expires_at', 's.last_used_at', 'i.full_name', 'p.name as person_name', 'p.role'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.audience', '=', audience)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
  if (!row || (audience === 'staff' && row.role === null)) return undefined;
  return {
    id: row.id,
    subjectId: row.subject_id,
    name: row.person_name ?? row.full_name ?? row.subject_id,
    role: row.role,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
  };
}

/** Moves a live session's end (never past what the caller computed) and records its use. */
export async function renewSession(db: Kysely<DB>, id: string, now: Date, expiresAt: Date): Promise<void> {
  await db.updateTable('sign_in_sessions').set({ last_used_at: now, expires_at: expiresAt }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** Revokes one session, or every live session of a subject; the ids revoked. */
export async function revokeSessions(db: Kysely<DB>, which: { id: string } | { audience: Audience; subjectId: string }, now: Date): Promise<string[]> {
  let query = db.updateTable('sign_in_sessions').set({ revoked_at: now }).where('revoked_at', 'is', null).where('expires_at', '>', now);
  query = 'id' in which ? query.where('id', '=', which.id) : query.where('audience', '=', which.audience).where('subject_id', '=', which.subjectId);
  const rows = await query.returning('id').execute();
  return rows.map((r) => r.id);
}

export interface SessionSummary {
  id: string;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
}

/** A subject's live sessions, newest sign-in first. */
export async function listLiveSessions(db: Kysely<DB>, audience: Audience, subjectId: string, now: Date): Promise<SessionSummary[]> {
  const rows = await db
    .selectFrom('sign_in_sessions')
    .select(['id', 'created_at', 'last_used_at', 'expires_at'])
    .where('audience', '=', audience)
    .where('subject_id', '=', subjectId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.created_at.toISOString(),
    lastUsedAt: r.last_used_at.toISOString(),
    expiresAt: r.expires_at.toISOString(),
  }));
}

/** The stored hash of a live session, by its id: the key its live stream tickets are signed with. */
export async function findLiveSessionHash(db: Kysely<DB>, audience: Audience, id: string, now: Date): Promise<string | undefined> {
  const row = await db
    .selectFrom('sign_in_sessions')
    .select('token_hash')
    .where('id', '=', id)
    .where('audience', '=', audience)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.token_hash;
}
