// Signing an agreement (docs/reference/signature-format.md): the signer asks for options naming the
// document they reviewed (its SHA-256); the WebAuthn challenge is that hash followed by 16 random
// bytes, so the passkey's assertion (with user verification) binds exactly that document. The
// answer is checked against the signer's own passkey, then the PDF is sealed (pdf-seal.ts) and the
// signature, the sealed PDF's hash and the assertion are recorded with the time and the client's
// address, and appended to the deal's documents audit chain, in one transaction. The investor
// signs first (in the portal); an approver countersigns the investor's sealed PDF (in the console),
// and the investor is mailed that the countersigned copy is ready (in the same transaction).
import { randomBytes } from 'node:crypto';
import type { AuthenticationResponseJSON, verifyAuthenticationResponse } from '@simplewebauthn/server';
import type { SealConfig } from '../config-seal.ts';
import { documentsChain } from '../domain/audit.ts';
import { AppError, conflict, forbidden } from '../domain/errors.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import * as store from '../store/agreements.ts';
import { appendToChain } from '../store/audit.ts';
import { findLivePasskeyForUpdate, recordPasskeyUse } from '../store/sign-in.ts';
import { type Agreement, assertAgreementKept, bytesOfContent, currentAgreement, getAgreement, storeBytes } from './agreements.ts';
import type { Deps } from './deps.ts';
import { AGREEMENT_TITLE, enqueueCountersignedCopy } from './mail-outbox.ts';
import { inOneTransaction } from './pipeline.ts';
import { challengeOf, webAuthn } from './sign-in.ts';

const CHALLENGE_MINUTES = 5;

/** The relying party a passkey answers (the portal's and the console's are the same: PUBLIC_URL's). */
export interface RelyingParty {
  origin: string;
  rpId: string;
}

export type SignerRole = store.SignerRole;

/** Only a person signed in with a passkey signs: an investor in the portal, a staff person in the console. */
function assertPasskeySession(principal: Principal, role: SignerRole): void {
  const door = role === 'investor' ? 'portal-session:' : 'staff-session:';
  if (!principal.tokenKey.startsWith(door)) {
    throw forbidden(
      role === 'investor'
        ? 'An agreement is signed by the investor in the portal, signed in with their passkey'
        : 'An agreement is countersigned by an approver in the console, signed in with their passkey',
    );
  }
}

/** Which PDF the next signature of `role` binds; 409 when it is not that role's turn. */
async function documentToSign(deps: Deps, principal: Principal, dealId: string, investorUserId: string, role: SignerRole) {
  const agreement = await currentAgreement(deps, principal, dealId, investorUserId);
  await assertAgreementKept(deps.db, investorUserId);
  if (role === 'investor' && agreement.state !== 'to-sign') throw conflict('The agreement is signed already');
  if (role === 'countersigner' && agreement.state === 'to-sign') throw conflict('The investor has not signed the agreement yet');
  if (role === 'countersigner' && agreement.state === 'countersigned') throw conflict('The agreement is countersigned already');
  return agreement;
}

/**
 * POST …/signing-options: WebAuthn request options whose challenge binds the reviewed document.
 * 409 when `reviewedHash` is not the agreement as it stands now (the data changed: review it again).
 */
export async function createSigningOptions(
  deps: Deps,
  principal: Principal,
  input: { dealId: string; investorUserId: string; role: SignerRole; contentHash: string },
  rp: RelyingParty,
): Promise<{ contentHash: string; options: unknown }> {
  assertPasskeySession(principal, input.role);
  return inOneTransaction(async (tx) => {
    const agreement = await documentToSign(tx, principal, input.dealId, input.investorUserId, input.role);
    if (agreement.contentHash !== input.contentHash) {
      throw conflict('The agreement is not the one reviewed: it changed since; open it again and review it');
    }
    // The filled PDF is fixed now: stored by its hash, the one the passkey will bind.
    if (agreement.filled) await storeBytes(tx, agreement.filled);
    const now = tx.clock();
    const challenge = Buffer.concat([Buffer.from(agreement.contentHash, 'hex'), randomBytes(16)]);
    const options = await (await webAuthn()).generateAuthenticationOptions({
      rpID: rp.rpId,
      challenge: new Uint8Array(challenge),
      userVerification: 'required',
      timeout: CHALLENGE_MINUTES * 60_000,
    });
    const row = {
      dealId: input.dealId,
      investorUserId: input.investorUserId,
      role: input.role,
      signer: actorOf(principal),
      contentHash: agreement.contentHash,
    };
    await store.insertChallenge(tx.db, options.challenge, row, now, new Date(now.getTime() + CHALLENGE_MINUTES * 60_000));
    return { contentHash: agreement.contentHash, options };
  })(deps);
}

const refused = (detail: string) => new AppError('validation', detail);

/**
 * POST …/signature (…/countersignature): the passkey's answer to signing options. The challenge is
 * spent even when the answer is refused (400); the signer's passkey must verify the user.
 */
export async function signAgreement(
  deps: Deps,
  principal: Principal,
  input: { dealId: string; investorUserId: string; role: SignerRole; response: AuthenticationResponseJSON; ip: string },
  rp: RelyingParty,
  seal: SealConfig | undefined,
): Promise<Agreement> {
  assertPasskeySession(principal, input.role);
  const challenge = challengeOf(input.response);
  const signer = actorOf(principal);
  const outcome = await inOneTransaction(async (tx): Promise<{ refused: string } | { done: true }> => {
    const now = tx.clock();
    const bound = await store.consumeChallenge(tx.db, challenge, now);
    if (!bound || bound.dealId !== input.dealId || bound.investorUserId !== input.investorUserId || bound.role !== input.role || bound.signer !== signer) {
      return {
        refused: 'The response does not answer signing options of this agreement and signer, or they were answered already or expired; ask for new options',
      };
    }
    const passkey = await findLivePasskeyForUpdate(tx.db, input.response.id);
    if (!passkey || passkey.audience !== (input.role === 'investor' ? 'investor' : 'staff') || passkey.subjectId !== signer) {
      return { refused: 'This passkey is not yours, or a newer one replaced it: sign with your current passkey' };
    }
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await (await webAuthn()).verifyAuthenticationResponse({
        response: input.response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.rpId,
        requireUserVerification: true,
        credential: { id: passkey.credentialId, publicKey: passkey.publicKey, counter: passkey.counter, transports: passkey.transports },
      });
    } catch (err) {
      return { refused: `The passkey's answer could not be verified: ${(err as Error).message}` };
    }
    if (!verified.verified) return { refused: "The passkey's answer could not be verified" };
    await recordPasskeyUse(tx.db, passkey.credentialId, verified.authenticationInfo.newCounter, now);
    const agreement = await documentToSign(tx, principal, input.dealId, input.investorUserId, input.role);
    if (agreement.contentHash !== bound.contentHash) throw conflict('The agreement changed after the options were given; ask for new options');
    // The seal's PDF and certificate libraries load at the first countersignature, not at start.
    const [{ sealKeyOf }, { sealPdf }] = await Promise.all([import('./seal-key.ts'), import('./pdf-seal.ts')]);
    const key = await sealKeyOf(tx.db, seal, now);
    const sealed = await sealPdf(await bytesOfContent(tx, bound.contentHash), key, {
      field: input.role === 'investor' ? 'Investor signature' : 'Countersignature',
      name: input.role === 'investor' ? agreement.investorName : signer,
      reason: input.role === 'investor' ? 'Subscription agreement signed by the investor' : 'Subscription agreement countersigned',
      location: input.role === 'investor' ? 'dealflow investor portal' : 'dealflow console',
      contactInfo: signer,
      signingTime: now,
    });
    const stored = await storeBytes(tx, sealed);
    const signature = {
      id: tx.newId(),
      dealId: input.dealId,
      investorUserId: input.investorUserId,
      role: input.role,
      signer,
      signedHash: bound.contentHash,
      sealedHash: stored.contentHash,
      credentialId: passkey.credentialId,
      ip: input.ip,
    };
    if (!(await store.insertSignature(tx.db, { ...signature, signedAt: now, assertion: input.response }))) throw conflict('The agreement is signed so already');
    await appendToChain(tx.db, {
      chain: documentsChain(input.dealId),
      type: input.role === 'investor' ? 'agreement.signed' : 'agreement.countersigned',
      principal: signer,
      tokenId: principal.tokenKey,
      at: now.toISOString(),
      change: { ...signature, userVerified: verified.authenticationInfo.userVerified, assertion: input.response },
    });
    if (input.role === 'countersigner') {
      // One per agreement and investor: a deal has one countersigned agreement per investor.
      const documentId = `agreement:${input.dealId}`;
      await enqueueCountersignedCopy(tx, { dealId: input.dealId, investorUserId: input.investorUserId, documentId, documentTitle: AGREEMENT_TITLE });
    }
    return { done: true };
  })(deps);
  if ('refused' in outcome) throw refused(outcome.refused);
  return getAgreement(deps, principal, input.dealId, input.investorUserId);
}
