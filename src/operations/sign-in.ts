// Sign-in without passwords, for investors in the portal and staff in the console alike (an
// `Audience`): an invitation (a single-use link that expires) lets its subject register a passkey
// (WebAuthn), then they sign in with it. A sign-in opens a session: a random token in a cookie,
// stored only as a SHA-256 hash, renewed on use (the idle timeout) up to a fixed number of hours
// after sign-in (the absolute one). Its CSRF token is an HMAC of the session token, so it needs no
// column and changes with every session. Each operation is one transaction, and every change is an
// entry of the subject's audit chain (the audience's `record`).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { AppError } from '../domain/errors.ts';
import type { AuditEntryType } from '../domain/audit.ts';
import * as store from '../store/sign-in.ts';
import type { Db } from '../store/schema.ts';
import { type Deps, inTransaction } from './deps.ts';
import { hashToken } from './tokens.ts';

/** How long the options of a registration or a sign-in may be answered. */
const CHALLENGE_MINUTES = 5;
/** A renewal is written only when it moves the end by at least this much (not on every request). */
const RENEW_STEP_MS = 60_000;
const RP_NAME = 'dealflow';

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

/** The audit entry type of a change: `portal.signed-in` for an investor, `staff.signed-in` for staff. */
export const changeType = (audience: store.Audience, change: SignInChange) =>
  `${audience === 'investor' ? 'portal' : 'staff'}.${change}` as Extract<AuditEntryType, `${'portal' | 'staff'}.${SignInChange}`>;

const invitationInvalid = () => new AppError('not-found', 'The invitation is not valid or has expired; ask for a new one');

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

/** POST …/passkeys/registration-options: who the invitation is for, and WebAuthn creation options. */
export async function createRegistrationOptions(deps: Deps, who: Audience, invitationToken: string) {
  const now = deps.clock();
  return inTransaction(deps, async ({ db }) => {
    const invitation = await store.findOpenInvitation(db, who.audience, hashToken(invitationToken), now);
    if (!invitation) throw invitationInvalid();
    const subject = await who.describe(db, invitation.subjectId);
    if (!subject) throw invitationInvalid();
    const name = subject.name || invitation.subjectId;
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: who.settings.rpId,
      userID: utf8(invitation.subjectId),
      userName: subject.email || name,
      userDisplayName: name,
      attestationType: 'none',
      // Discoverable: sign-in needs no user name, the passkey names its subject.
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      timeout: CHALLENGE_MINUTES * MINUTE,
    });
    await store.deleteExpiredChallenges(db, now);
    await store.insertChallenge(db, {
      challenge: options.challenge,
      purpose: 'registration',
      invitationId: invitation.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_MINUTES * MINUTE),
    });
    return { subject: { id: invitation.subjectId, name }, options };
  });
}

/** The challenge a WebAuthn response answers (from its client data), or a validation problem. */
function challengeOf(response: { response: { clientDataJSON: string } }): string {
  try {
    const clientData = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    if (typeof clientData.challenge === 'string' && clientData.challenge !== '') return clientData.challenge;
  } catch {
    // answered below
  }
  throw new AppError('validation', 'response.response.clientDataJSON is not base64url JSON client data with a challenge', {
    errors: [{ in: 'body', field: 'response.response.clientDataJSON', detail: 'must be base64url-encoded client data JSON' }],
  });
}

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

type Refusal = { refused: string };
const isRefusal = (value: unknown): value is Refusal => typeof value === 'object' && value !== null && 'refused' in value;

/**
 * POST …/passkeys: checks the attestation against the challenge the invitation's options asked,
 * uses the invitation, replaces the subject's earlier passkeys, signs out their sessions and opens a
 * new one. The challenge is spent even when the answer is refused.
 */
export async function registerPasskey(deps: Deps, who: Audience, input: { invitation: string; response: RegistrationResponseJSON }): Promise<OpenedSession> {
  const now = deps.clock();
  const challenge = challengeOf(input.response);
  const result = await inTransaction(deps, async (tx): Promise<OpenedSession | Refusal> => {
    const { db } = tx;
    const invitation = await store.findOpenInvitation(db, who.audience, hashToken(input.invitation), now, true);
    if (!invitation || !(await who.describe(db, invitation.subjectId))) throw invitationInvalid();
    if (!(await store.consumeChallenge(db, challenge, 'registration', invitation.id, now))) {
      return { refused: 'The response does not answer registration options of this invitation, or they were answered already or expired; ask for new options' };
    }
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: input.response,
        expectedChallenge: challenge,
        expectedOrigin: who.settings.origin,
        expectedRPID: who.settings.rpId,
        requireUserVerification: false,
      });
    } catch (err) {
      return { refused: `The passkey could not be verified: ${(err as Error).message}` };
    }
    if (!verified.verified) return { refused: 'The passkey could not be verified' };
    const { credential } = verified.registrationInfo;
    const { subjectId } = invitation;
    const { audience } = who;
    const by = { principal: subjectId, tokenId: `${audience === 'investor' ? 'portal' : 'staff'}-invitation:${invitation.id}` };
    await store.markInvitationUsed(db, invitation.id, now);
    const replaced = await store.replacePasskeys(db, audience, subjectId, now);
    const signedOut = await store.revokeSessions(db, { audience, subjectId }, now);
    await store.insertPasskey(db, {
      credentialId: credential.id,
      audience,
      subjectId,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? [],
      invitationId: invitation.id,
      createdAt: now,
    });
    for (const old of replaced) await who.record(db, by, 'passkey-replaced', subjectId, { credentialId: old, replacedBy: credential.id }, now);
    if (signedOut.length > 0) await who.record(db, by, 'signed-out', subjectId, { sessionIds: signedOut, reason: 'passkey-registered' }, now);
    await who.record(db, by, 'passkey-registered', subjectId, { credentialId: credential.id, invitationId: invitation.id }, now);
    const opened = await openSession(tx, who, subjectId, credential.id, now);
    await who.record(db, by, 'signed-in', subjectId, { sessionId: opened.session.sessionId, credentialId: credential.id }, now);
    return opened;
  });
  if (isRefusal(result)) throw new AppError('validation', result.refused);
  return result;
}

/** POST …/sessions/options: request options for a discoverable passkey (no user name asked). */
export async function createSignInOptions(deps: Deps, who: Audience) {
  const now = deps.clock();
  return inTransaction(deps, async ({ db }) => {
    const options = await generateAuthenticationOptions({ rpID: who.settings.rpId, userVerification: 'preferred', timeout: CHALLENGE_MINUTES * MINUTE });
    await store.deleteExpiredChallenges(db, now);
    await store.insertChallenge(db, {
      challenge: options.challenge,
      purpose: 'authentication',
      invitationId: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_MINUTES * MINUTE),
    });
    return { options };
  });
}

/**
 * POST …/sessions: checks the assertion against a challenge of sign-in options (spent
 * even when refused) and the passkey's public key and counter (a counter that does not grow means
 * a cloned authenticator: refused), then opens a session.
 */
export async function signIn(deps: Deps, who: Audience, response: AuthenticationResponseJSON): Promise<OpenedSession> {
  const now = deps.clock();
  const challenge = challengeOf(response);
  const result = await inTransaction(deps, async (tx): Promise<OpenedSession | Refusal> => {
    const { db } = tx;
    if (!(await store.consumeChallenge(db, challenge, 'authentication', null, now))) {
      return { refused: 'The response does not answer sign-in options of this service, or they were answered already or expired; ask for new options' };
    }
    const passkey = await store.findLivePasskeyForUpdate(db, response.id);
    // Another audience's passkey is unknown here: an investor's does not open the console.
    if (!passkey || passkey.audience !== who.audience || !(await who.describe(db, passkey.subjectId)))
      return { refused: 'This passkey is not registered here, or a newer one replaced it; sign in with your current passkey or ask for a new invitation' };
    const userHandle = response.response.userHandle;
    if (userHandle !== undefined && userHandle !== Buffer.from(passkey.subjectId, 'utf8').toString('base64url')) {
      return { refused: 'The passkey answered for another user' };
    }
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: who.settings.origin,
        expectedRPID: who.settings.rpId,
        requireUserVerification: false,
        credential: { id: passkey.credentialId, publicKey: passkey.publicKey, counter: passkey.counter, transports: passkey.transports },
      });
    } catch (err) {
      return { refused: `The passkey's answer could not be verified: ${(err as Error).message}` };
    }
    if (!verified.verified) return { refused: "The passkey's answer could not be verified" };
    await store.recordPasskeyUse(db, passkey.credentialId, verified.authenticationInfo.newCounter, now);
    const opened = await openSession(tx, who, passkey.subjectId, passkey.credentialId, now);
    await who.record(
      db,
      { principal: passkey.subjectId, tokenId: sessionKey(who.audience, opened.session.sessionId) },
      'signed-in',
      passkey.subjectId,
      { sessionId: opened.session.sessionId, credentialId: passkey.credentialId },
      now,
    );
    return opened;
  });
  if (isRefusal(result)) throw new AppError('unauthenticated', result.refused);
  return result;
}

/** What rate limits, idempotency keys and audit entries know a session by. */
export const sessionKey = (audience: store.Audience, sessionId: string) => `${audience === 'investor' ? 'portal' : 'staff'}-session:${sessionId}`;

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
