// The investor portal's sign-in without passwords: staff invite investors (a single-use link that
// expires), an investor registers a passkey (WebAuthn) with the invitation, then signs in with it.
// A sign-in opens a session: a random token in a cookie, stored only as a SHA-256 hash, renewed on
// use up to SESSION_MAX_HOURS after sign-in. Its CSRF token is an HMAC of the session token, so it
// needs no column and changes with every session. Each operation is one transaction, and every
// change is an entry of the investor's portal audit chain (`portal:<investorUserId>`).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { PortalConfig } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import * as store from '../store/portal-access.ts';
import { recordPortalChange } from './audit-entries.ts';
import { type Deps, inTransaction } from './deps.ts';
import { hashToken } from './tokens.ts';

/** A session ends at the latest this long after its sign-in, however often it is used. */
export const SESSION_MAX_HOURS = 12;
/** How long the options of a registration or a sign-in may be answered. */
const CHALLENGE_MINUTES = 5;
/** A renewal is written only when it moves the end by at least this much (not on every request). */
const RENEW_STEP_MS = 60_000;
const RP_NAME = 'dealflow';

const MINUTE = 60_000;
/** A random secret of 256 bits: an invitation's token, a session's token. */
export const newSecret = () => randomBytes(32).toString('base64url');

/** The CSRF token of a session: HMAC-SHA256 keyed by the session's token. */
export const csrfTokenOf = (sessionToken: string) => createHmac('sha256', sessionToken).update('dealflow portal csrf').digest('base64url');

/** Compares a sent CSRF token with the session's in constant time. */
export function csrfTokenMatches(session: PortalSession, sent: string | undefined): boolean {
  if (sent === undefined) return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

const invitationInvalid = () => new AppError('not-found', 'The invitation is not valid or has expired; ask for a new one');

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

/** POST /portal/api/passkeys/registration-options: the investor the invitation is for, and WebAuthn creation options. */
export async function createRegistrationOptions(deps: Deps, portal: PortalConfig, invitationToken: string) {
  const now = deps.clock();
  return inTransaction(deps, async ({ db }) => {
    const invitation = await store.findOpenInvitation(db, hashToken(invitationToken), now);
    if (!invitation) throw invitationInvalid();
    const [investor] = await store.findInvestorNames(db, [invitation.investorUserId]);
    const name = investor?.name || invitation.investorUserId;
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: portal.rpId,
      userID: utf8(invitation.investorUserId),
      userName: investor?.email || name,
      userDisplayName: name,
      attestationType: 'none',
      // Discoverable: sign-in needs no user name, the passkey names its investor.
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
    return { investor: { investorUserId: invitation.investorUserId, name }, options };
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

export interface PortalSession {
  sessionId: string;
  investorUserId: string;
  name: string;
  csrfToken: string;
  expiresAt: string;
}

/** A new session and the token for its cookie. */
export interface OpenedSession {
  session: PortalSession;
  token: string;
}

async function openSession(deps: Deps, portal: PortalConfig, investorUserId: string, credentialId: string, now: Date): Promise<OpenedSession> {
  const token = newSecret();
  const id = deps.newId();
  const expiresAt = sessionEnd(portal, now, now);
  await store.insertSession(deps.db, { id, investorUserId, tokenHash: hashToken(token), credentialId, createdAt: now, expiresAt });
  const [investor] = await store.findInvestorNames(deps.db, [investorUserId]);
  return {
    token,
    session: { sessionId: id, investorUserId, name: investor?.name || investorUserId, csrfToken: csrfTokenOf(token), expiresAt: expiresAt.toISOString() },
  };
}

/** Idle lifetime from now, never past SESSION_MAX_HOURS after the sign-in. */
const sessionEnd = (portal: PortalConfig, createdAt: Date, now: Date) =>
  new Date(Math.min(now.getTime() + portal.sessionMinutes * MINUTE, createdAt.getTime() + SESSION_MAX_HOURS * 60 * MINUTE));

type Refusal = { refused: string };
const isRefusal = (value: unknown): value is Refusal => typeof value === 'object' && value !== null && 'refused' in value;

/**
 * POST /portal/api/passkeys: checks the attestation against the challenge the invitation's options
 * asked, uses the invitation, replaces the investor's earlier passkeys, signs out their sessions and
 * opens a new one. The challenge is spent even when the answer is refused.
 */
export async function registerPasskey(
  deps: Deps,
  portal: PortalConfig,
  input: { invitation: string; response: RegistrationResponseJSON },
): Promise<OpenedSession> {
  const now = deps.clock();
  const challenge = challengeOf(input.response);
  const result = await inTransaction(deps, async (tx): Promise<OpenedSession | Refusal> => {
    const { db } = tx;
    const invitation = await store.findOpenInvitation(db, hashToken(input.invitation), now, true);
    if (!invitation) throw invitationInvalid();
    if (!(await store.consumeChallenge(db, challenge, 'registration', invitation.id, now))) {
      return { refused: 'The response does not answer registration options of this invitation, or they were answered already or expired; ask for new options' };
    }
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: input.response,
        expectedChallenge: challenge,
        expectedOrigin: portal.origin,
        expectedRPID: portal.rpId,
        requireUserVerification: false,
      });
    } catch (err) {
      return { refused: `The passkey could not be verified: ${(err as Error).message}` };
    }
    if (!verified.verified) return { refused: 'The passkey could not be verified' };
    const { credential } = verified.registrationInfo;
    const investorUserId = invitation.investorUserId;
    const by = { principal: investorUserId, tokenId: `portal-invitation:${invitation.id}` };
    await store.markInvitationUsed(db, invitation.id, now);
    const replaced = await store.replacePasskeys(db, investorUserId, now);
    const signedOut = await store.revokeSessions(db, { investorUserId }, now);
    await store.insertPasskey(db, {
      credentialId: credential.id,
      investorUserId,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? [],
      invitationId: invitation.id,
      createdAt: now,
    });
    for (const old of replaced)
      await recordPortalChange(db, by, 'portal.passkey-replaced', investorUserId, { credentialId: old, replacedBy: credential.id }, now);
    if (signedOut.length > 0)
      await recordPortalChange(db, by, 'portal.signed-out', investorUserId, { sessionIds: signedOut, reason: 'passkey-registered' }, now);
    await recordPortalChange(db, by, 'portal.passkey-registered', investorUserId, { credentialId: credential.id, invitationId: invitation.id }, now);
    const opened = await openSession(tx, portal, investorUserId, credential.id, now);
    await recordPortalChange(db, by, 'portal.signed-in', investorUserId, { sessionId: opened.session.sessionId, credentialId: credential.id }, now);
    return opened;
  });
  if (isRefusal(result)) throw new AppError('validation', result.refused);
  return result;
}

/** POST /portal/api/sessions/options: request options for a discoverable passkey (no user name asked). */
export async function createSignInOptions(deps: Deps, portal: PortalConfig) {
  const now = deps.clock();
  return inTransaction(deps, async ({ db }) => {
    const options = await generateAuthenticationOptions({ rpID: portal.rpId, userVerification: 'preferred', timeout: CHALLENGE_MINUTES * MINUTE });
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
 * POST /portal/api/sessions: checks the assertion against a challenge of sign-in options (spent
 * even when refused) and the passkey's public key and counter (a counter that does not grow means
 * a cloned authenticator: refused), then opens a session.
 */
export async function signIn(deps: Deps, portal: PortalConfig, response: AuthenticationResponseJSON): Promise<OpenedSession> {
  const now = deps.clock();
  const challenge = challengeOf(response);
  const result = await inTransaction(deps, async (tx): Promise<OpenedSession | Refusal> => {
    const { db } = tx;
    if (!(await store.consumeChallenge(db, challenge, 'authentication', null, now))) {
      return { refused: 'The response does not answer sign-in options of this service, or they were answered already or expired; ask for new options' };
    }
    const passkey = await store.findLivePasskeyForUpdate(db, response.id);
    if (!passkey)
      return { refused: 'This passkey is not registered here, or a newer one replaced it; sign in with your current passkey or ask for a new invitation' };
    const userHandle = response.response.userHandle;
    if (userHandle !== undefined && userHandle !== Buffer.from(passkey.investorUserId, 'utf8').toString('base64url')) {
      return { refused: 'The passkey answered for another user' };
    }
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: portal.origin,
        expectedRPID: portal.rpId,
        requireUserVerification: false,
        credential: { id: passkey.credentialId, publicKey: passkey.publicKey, counter: passkey.counter, transports: passkey.transports },
      });
    } catch (err) {
      return { refused: `The passkey's answer could not be verified: ${(err as Error).message}` };
    }
    if (!verified.verified) return { refused: "The passkey's answer could not be verified" };
    await store.recordPasskeyUse(db, passkey.credentialId, verified.authenticationInfo.newCounter, now);
    const opened = await openSession(tx, portal, passkey.investorUserId, passkey.credentialId, now);
    await recordPortalChange(
      db,
      { principal: passkey.investorUserId, tokenId: `portal-session:${opened.session.sessionId}` },
      'portal.signed-in',
      passkey.investorUserId,
      { sessionId: opened.session.sessionId, credentialId: passkey.credentialId },
      now,
    );
    return opened;
  });
  if (isRefusal(result)) throw new AppError('unauthenticated', result.refused);
  return result;
}

/**
 * The live session of a cookie's token, renewed (its end moved to PORTAL_SESSION_MINUTES from now,
 * within SESSION_MAX_HOURS of its sign-in); 401 when missing, expired or signed out. The renewal is
 * written off the request path: started here, not awaited, so no read waits for a commit (a commit
 * that hangs, as on a database whose synchronous standby is gone, must not hang the portal's
 * reads). A renewal that fails is tried again on the session's next request, while it is still live.
 */
export async function authenticatePortalSession(deps: Deps, portal: PortalConfig, token: string | undefined): Promise<PortalSession> {
  if (token === undefined || token === '') throw new AppError('unauthenticated', 'Sign in to the portal: this request has no session cookie');
  const now = deps.clock();
  const found = await store.findLiveSession(deps.db, hashToken(token), now);
  if (!found) throw new AppError('unauthenticated', 'Sign in to the portal: the session has expired or was signed out');
  let expiresAt = found.expiresAt;
  const renewed = sessionEnd(portal, found.createdAt, now);
  if (renewed.getTime() - expiresAt.getTime() >= RENEW_STEP_MS) {
    store.renewSession(deps.db, found.id, now, renewed).catch(() => undefined);
    expiresAt = renewed;
  }
  return { sessionId: found.id, investorUserId: found.investorUserId, name: found.name, csrfToken: csrfTokenOf(token), expiresAt: expiresAt.toISOString() };
}

/** The principal a session acts as: the investor, with exactly an investor token's rights. */
export const sessionPrincipal = (session: PortalSession): Principal => ({
  userId: session.investorUserId,
  role: 'investor',
  investorUserId: session.investorUserId,
  tokenKey: `portal-session:${session.sessionId}`,
});

/** POST /portal/api/sign-out: the caller's sign-in ends, or (everywhere) all of the investor's. */
export async function signOut(deps: Deps, session: PortalSession, everywhere: boolean): Promise<void> {
  const now = deps.clock();
  await inTransaction(deps, async ({ db }) => {
    const revoked = await store.revokeSessions(db, everywhere ? { investorUserId: session.investorUserId } : { id: session.sessionId }, now);
    if (revoked.length === 0) return;
    await recordPortalChange(
      db,
      { principal: session.investorUserId, tokenId: `portal-session:${session.sessionId}` },
      'portal.signed-out',
      session.investorUserId,
      { sessionIds: revoked, reason: everywhere ? 'signed-out-everywhere' : 'signed-out' },
      now,
    );
  });
}

/**
 * Ends an investor's portal access in the caller's transaction (an erasure): unused invitations
 * revoked, passkeys replaced by none, sessions ended, each recorded in their portal chain.
 */
export async function endPortalAccess(db: Deps['db'], principal: Principal, investorUserId: string, now: Date): Promise<void> {
  const by = { principal: actorOf(principal), tokenId: principal.tokenKey };
  for (const r of await store.revokeOpenInvitations(db, [investorUserId], now)) {
    await recordPortalChange(db, by, 'portal.invitation-revoked', investorUserId, { invitationId: r.id, reason: 'erased', replacedBy: null }, now);
  }
  for (const credentialId of await store.replacePasskeys(db, investorUserId, now)) {
    await recordPortalChange(db, by, 'portal.passkey-replaced', investorUserId, { credentialId, replacedBy: null, reason: 'erased' }, now);
  }
  const signedOut = await store.revokeSessions(db, { investorUserId }, now);
  if (signedOut.length > 0) await recordPortalChange(db, by, 'portal.signed-out', investorUserId, { sessionIds: signedOut, reason: 'erased' }, now);
}
