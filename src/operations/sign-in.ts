// Sign-in with a passkey, for investors in the portal and staff in the console alike (an
// `Audience`, sessions.ts): an invitation (a single-use link that expires) lets its subject register
// a passkey (WebAuthn), then they sign in with it; either opens a session. Each operation is one
// transaction, and every change is an entry of the subject's audit chain (the audience's `record`).
import type { AuthenticationResponseJSON, RegistrationResponseJSON, verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import { AppError } from '../domain/errors.ts';
import * as store from '../store/sign-in.ts';
import { type Deps, inTransaction } from './deps.ts';
import { type Audience, type OpenedSession, openSession, prefixOf, sessionKey } from './sessions.ts';
import { hashToken } from './tokens.ts';

/**
 * The WebAuthn library, loaded at the first passkey request rather than at start: with the PDF
 * and certificate libraries of agreements (agreements.ts) it held about 32 MB of a service's
 * memory that most instances never use.
 */
export const webAuthn = () => import('@simplewebauthn/server');

/** How long the options of a registration or a sign-in may be answered. */
const CHALLENGE_MINUTES = 5;
const RP_NAME = 'dealflow';
const MINUTE = 60_000;
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
    const options = await (await webAuthn()).generateRegistrationOptions({
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
export function challengeOf(response: { response: { clientDataJSON: string } }): string {
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
      verified = await (await webAuthn()).verifyRegistrationResponse({
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
    const by = { principal: subjectId, tokenId: `${prefixOf(audience)}-invitation:${invitation.id}` };
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
    const options = await (await webAuthn()).generateAuthenticationOptions({
      rpID: who.settings.rpId,
      userVerification: 'preferred',
      timeout: CHALLENGE_MINUTES * MINUTE,
    });
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
      verified = await (await webAuthn()).verifyAuthenticationResponse({
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
