// Sessions of both doors (investors in the portal, staff in the console; sign-in-door.ts): who an
// `Audience` is, a session opened by a sign-in (a passkey's, or a single sign-on's), its cookie's
// token stored only as a SHA-256 hash, renewed on use (the idle timeout) up to a fixed number of
// hours after sign-in (the absolute one), its CSRF token (an HMAC of the session token, so it needs
// no column and changes with every session), signing out, and the end of a subject's access.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuditEntryType } from '../domain/audit.ts';
import { AppError } from '../domain/errors.ts';
import type { Db } from '../store/schema.ts';
import * as store from '../store/sign-in.ts';
import { type Deps, inTransaction } from './deps.ts';
import { hashToken } from './tokens.ts';

/** A renewal is written only when it moves the end by at least this much (not on every request). */
const RENEW_STEP_MS = 60_000;

const MINUTE = 60_000;
/** A random secret of 256 bits: an invitation's token, a session's token. */
export const newSecret = () => randomBytes(32).toString('base64url');

/** The CSRF token of a session: HMAC-SHA256 keyed by the session's token (the label predates the console's sessions; changing it would refuse open tabs' writes). */
export const csrfTokenOf = (sessionToken: string) => createHmac('sha256', sessionToken).update('dealflow portal csrf').digest('base64url');

/** Compares a sent CSRF token with the session's in constant time. */
export function csrfTokenMatches(session: Pick<SignInSession, 'csrfToken'>, sent: string | undefined): boolean {
  if (sent === undefined) return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The relying party and the session's timeouts of an audience's sign-in. */
export interface SignInSettings {
  /** PUBLIC_URL's origin: WebAuthn's expected origin. */
  origin: string;
  rpId: string;
  /** The idle timeout: a session unused this long ends. */
  idleMinutes: number;
  /** The absolute timeout: a session ends this long after its sign-in, however often it is used. */
  maxHours: number;
}

/** What happened to a subject's access, as its audit entry type says after the audience's prefix. */
export type SignInChange = 'invitation-created' | 'invitation-revoked' | 'passkey-registered' | 'passkey-replaced' | 'signed-in' | 'signed-out';

/** Who signs in, and how their changes are recorded: investors (portal-access.ts) or staff (staff.ts). */
export interface Audience {
  audience: store.Audience;
  settings: SignInSettings;
  /** The subject's name and e-mail, or undefined when they may not sign in (unknown, deactivated). */
  describe(db: Db, subjectId: string): Promise<{ name: string; email: string | null } | undefined>;
  record(
    db: Db,
    by: { principal: string; tokenId: string | null },
    change: SignInChange,
    subjectId: string,
    data: Record<string, unknown>,
    at: Date,
  ): Promise<void>;
}

/** What an audience's audit entry types and credential names start with: `portal` for investors (as before staff signed in), `staff`. */
export const prefixOf = (audience: store.Audience) => (audience === 'investor' ? 'portal' : 'staff');

/** The audit entry type of a change: `portal.signed-in` for an investor, `staff.signed-in` for staff. */
export const changeType = (audience: store.Audience, change: SignInChange) =>
  `${prefixOf(audience)}.${change}` as Extract<AuditEntryType, `${'portal' | 'staff'}.${SignInChange}`>;

export interface SignInSession {
  sessionId: string;
  /** The investor's id, or the staff person's. */
  subjectId: string;
  name: string;
  /** A staff person's role now; null for an investor. */
  role: string | null;
  csrfToken: string;
  expiresAt: string;
}

/** A new session and the token for its cookie. */
export interface OpenedSession {
  session: SignInSession;
  token: string;
}

/** Opens a session of `subjectId` (with the passkey signed in with, or null for a single sign-on) in the caller's transaction. */
export async function openSession(deps: Deps, who: Audience, subjectId: string, credentialId: string | null, now: Date): Promise<OpenedSession> {
  const token = newSecret();
  const id = deps.newId();
  const expiresAt = sessionEnd(who.settings, now, now);
  await store.insertSession(deps.db, { id, audience: who.audience, subjectId, tokenHash: hashToken(token), credentialId, createdAt: now, expiresAt });
  const live = await store.findLiveSession(deps.db, who.audience, hashToken(token), now);
  return {
    token,
    session: {
      sessionId: id,
      subjectId,
      name: live?.name ?? subjectId,
      role: live?.role ?? null,
      csrfToken: csrfTokenOf(token),
      expiresAt: expiresAt.toISOString(),
    },
  };
}

/** Idle lifetime from now, never past the absolute timeout after the sign-in. */
const sessionEnd = (settings: SignInSettings, createdAt: Date, now: Date) =>
  new Date(Math.min(now.getTime() + settings.idleMinutes * MINUTE, createdAt.getTime() + settings.maxHours * 60 * MINUTE));

/** What rate limits, idempotency keys and audit entries know a session by. */
export const sessionKey = (audience: store.Audience, sessionId: string) => `${prefixOf(audience)}-session:${sessionId}`;

/**
 * The live session of a cookie's token, renewed (its end moved to the idle timeout from now, within
 * the absolute timeout of its sign-in); 401 when missing, expired or signed out. The renewal is
 * written off the request path: started here, not awaited, so no read waits for a commit (a commit
 * that hangs, as on a database whose synchronous standby is gone, must not hang a read). A renewal
 * that fails is tried again on the session's next request, while it is still live.
 */
export async function authenticateSession(deps: Deps, who: Audience, token: string | undefined): Promise<SignInSession> {
  const where = who.audience === 'investor' ? 'the portal' : 'the console';
  if (token === undefined || token === '') throw new AppError('unauthenticated', `Sign in to ${where}: this request has no session cookie`);
  const now = deps.clock();
  const found = await store.findLiveSession(deps.db, who.audience, hashToken(token), now);
  if (!found) throw new AppError('unauthenticated', `Sign in to ${where}: the session has expired or was signed out`);
  let expiresAt = found.expiresAt;
  const renewed = sessionEnd(who.settings, found.createdAt, now);
  if (renewed.getTime() - expiresAt.getTime() >= RENEW_STEP_MS) {
    store.renewSession(deps.db, found.id, now, renewed).catch(() => undefined);
    expiresAt = renewed;
  }
  return {
    sessionId: found.id,
    subjectId: found.subjectId,
    name: found.name,
    role: found.role,
    csrfToken: csrfTokenOf(token),
    expiresAt: expiresAt.toISOString(),
  };
}

/** POST …/sign-out: the caller's sign-in ends, or (everywhere) all of the subject's. */
export async function signOut(deps: Deps, who: Audience, session: SignInSession, everywhere: boolean): Promise<void> {
  const now = deps.clock();
  await inTransaction(deps, async ({ db }) => {
    const revoked = await store.revokeSessions(db, everywhere ? { audience: who.audience, subjectId: session.subjectId } : { id: session.sessionId }, now);
    if (revoked.length === 0) return;
    await who.record(
      db,
      { principal: session.subjectId, tokenId: sessionKey(who.audience, session.sessionId) },
      'signed-out',
      session.subjectId,
      { sessionIds: revoked, reason: everywhere ? 'signed-out-everywhere' : 'signed-out' },
      now,
    );
  });
}

/**
 * Ends a subject's access in the caller's transaction (an investor's erasure, a staff person's
 * deactivation): unused invitations revoked, passkeys replaced by none, sessions ended, each recorded.
 */
export async function endAccess(
  db: Db,
  who: Pick<Audience, 'audience' | 'record'>,
  by: { principal: string; tokenId: string | null },
  subjectId: string,
  reason: string,
  now: Date,
): Promise<void> {
  for (const r of await store.revokeOpenInvitations(db, who.audience, [subjectId], now)) {
    await who.record(db, by, 'invitation-revoked', subjectId, { invitationId: r.id, reason, replacedBy: null }, now);
  }
  for (const credentialId of await store.replacePasskeys(db, who.audience, subjectId, now)) {
    await who.record(db, by, 'passkey-replaced', subjectId, { credentialId, replacedBy: null, reason }, now);
  }
  const signedOut = await store.revokeSessions(db, { audience: who.audience, subjectId }, now);
  if (signedOut.length > 0) await who.record(db, by, 'signed-out', subjectId, { sessionIds: signedOut, reason }, now);
}
