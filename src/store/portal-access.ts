// The investor portal's sign-in (migration 0026): invitations, passkeys, sessions and WebAuthn
// challenges. Invitations, passkeys and sessions are never deleted: they are used, revoked or
// replaced by setting a column. Challenges are scratch between the options and the answer: expired
// ones are deleted.
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';
import { AppError } from '../domain/errors.ts';
import { isUniqueViolation } from './errors.ts';

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

/** Revokes the unused invitations of these investors; the ids and investors of those revoked. */
export async function revokeOpenInvitations(db: Kysely<DB>, investorUserIds: readonly string[], now: Date) {
  if (investorUserIds.length === 0) return [];
  const rows = await db
    .updateTable('portal_invitations')
    .set({ revoked_at: now })
    .where('investor_user_id', 'in', investorUserIds)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['id', 'investor_user_id'])
    .execute();
  return rows.map((r) => ({ id: r.id, investorUserId: r.investor_user_id }));
}

export interface NewInvitation {
  id: string;
  investorUserId: string;
  tokenHash: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertInvitations(db: Kysely<DB>, invitations: readonly NewInvitation[]): Promise<void> {
  if (invitations.length === 0) return;
  await db
    .insertInto('portal_invitations')
    .values(
      invitations.map((i) => ({
        id: i.id,
        investor_user_id: i.investorUserId,
        token_hash: i.tokenHash,
        created_by: i.createdBy,
        created_at: i.createdAt,
        expires_at: i.expiresAt,
      })),
    )
    .execute();
}

/** The invitation of this token hash when it is neither used, revoked nor expired; locked when `lock`. */
export async function findOpenInvitation(db: Kysely<DB>, tokenHash: string, now: Date, lock = false) {
  let query = db
    .selectFrom('portal_invitations')
    .select(['id', 'investor_user_id'])
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && { id: row.id, investorUserId: row.investor_user_id };
}

export async function markInvitationUsed(db: Kysely<DB>, id: string, now: Date): Promise<boolean> {
  const result = await db.updateTable('portal_invitations').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertChallenge(
  db: Kysely<DB>,
  challenge: { challenge: string; purpose: 'registration' | 'authentication'; invitationId: string | null; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('portal_challenges')
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
  await db.deleteFrom('portal_challenges').where('expires_at', '<', before).execute();
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
    .updateTable('portal_challenges')
    .set({ used_at: now })
    .where('challenge', '=', challenge)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now);
  if (invitationId !== null) query = query.where('invitation_id', '=', invitationId);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Marks the investor's live passkeys replaced; their credential ids. */
export async function replacePasskeys(db: Kysely<DB>, investorUserId: string, now: Date): Promise<string[]> {
  const rows = await db
    .updateTable('portal_passkeys')
    .set({ replaced_at: now })
    .where('investor_user_id', '=', investorUserId)
    .where('replaced_at', 'is', null)
    .returning('credential_id')
    .execute();
  return rows.map((r) => r.credential_id);
}

export interface Passkey {
  credentialId: string;
  investorUserId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
}

/**
 * Stores a new passkey. A credential id registered already (another investor's, or the same
 * investor's again) is a conflict: credential ids are unique across the service (WebAuthn Level 3,
 * section 7.1, step 27 says to refuse it).
 */
export async function insertPasskey(db: Kysely<DB>, passkey: Passkey & { invitationId: string; createdAt: Date }): Promise<void> {
  const existing = await db.selectFrom('portal_passkeys').select('credential_id').where('credential_id', '=', passkey.credentialId).executeTakeFirst();
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
    .insertInto('portal_passkeys')
    .values({
      credential_id: passkey.credentialId,
      investor_user_id: passkey.investorUserId,
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
    .selectFrom('portal_passkeys')
    .select(['credential_id', 'investor_user_id', 'public_key', 'counter', 'transports'])
    .where('credential_id', '=', credentialId)
    .where('replaced_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  return (
    row && {
      credentialId: row.credential_id,
      investorUserId: row.investor_user_id,
      publicKey: new Uint8Array(row.public_key),
      counter: Number(row.counter),
      transports: row.transports,
    }
  );
}

export async function recordPasskeyUse(db: Kysely<DB>, credentialId: string, counter: number, now: Date): Promise<void> {
  await db.updateTable('portal_passkeys').set({ counter, last_used_at: now }).where('credential_id', '=', credentialId).execute();
}

export interface NewSession {
  id: string;
  investorUserId: string;
  tokenHash: string;
  credentialId: string;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertSession(db: Kysely<DB>, session: NewSession): Promise<void> {
  await db
    .insertInto('portal_sessions')
    .values({
      id: session.id,
      investor_user_id: session.investorUserId,
      token_hash: session.tokenHash,
      credential_id: session.credentialId,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
      last_used_at: session.createdAt,
    })
    .execute();
}

export interface LiveSession {
  id: string;
  investorUserId: string;
  name: string;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date;
}

/** The unrevoked, unexpired session of this token hash, with its investor's name. */
export async function findLiveSession(db: Kysely<DB>, tokenHash: string, now: Date): Promise<LiveSession | undefined> {
  const row = await db
    .selectFrom('portal_sessions as s')
    .leftJoin('investors as i', 'i.id', 's.investor_user_id')
    .select(['s.id', 's.investor_user_id', 's.created_at', 's.expires_at', 's.last_used_at', 'i.full_name'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
  return (
    row && {
      id: row.id,
      investorUserId: row.investor_user_id,
      name: row.full_name ?? row.investor_user_id,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
    }
  );
}

/** Moves a live session's end (never past what the caller computed) and records its use. */
export async function renewSession(db: Kysely<DB>, id: string, now: Date, expiresAt: Date): Promise<void> {
  await db.updateTable('portal_sessions').set({ last_used_at: now, expires_at: expiresAt }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** Revokes one session, or every live session of an investor; the ids revoked. */
export async function revokeSessions(db: Kysely<DB>, which: { id: string } | { investorUserId: string }, now: Date): Promise<string[]> {
  let query = db.updateTable('portal_sessions').set({ revoked_at: now }).where('revoked_at', 'is', null).where('expires_at', '>', now);
  query = 'id' in which ? query.where('id', '=', which.id) : query.where('investor_user_id', '=', which.investorUserId);
  const rows = await query.returning('id').execute();
  return rows.map((r) => r.id);
}
