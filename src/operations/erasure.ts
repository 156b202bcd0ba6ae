// Erasure of an investor's personal data (UK GDPR art. 17) once the retention period is over
// (five years after their last event by default: MLR 2017 reg. 40). The directory entry keeps its
// ids, classifications and KYC level and loses names, e-mail, username, date of birth; events,
// amounts and the audit chains stay as they are: the chains hash what identifies a change (ids,
// step ids, amounts, field values), never the directory's personal data, so they still verify.
import { AppError, conflict, notFound } from '../domain/errors.ts';
import type { InvestorContact } from '../domain/investor.ts';
import type { Principal } from '../domain/principal.ts';
import { dealsOfInvestor } from '../store/approvals.ts';
import { eraseEvidence, lockForErasure, writeErasure } from '../store/erasure.ts';
import { revokeInvestorTokens } from '../store/tokens.ts';
import { recordErasure, recordTokenChange } from './audit-entries.ts';
import { invalidateLocally, publishInvalidation } from './caches.ts';
import { endPortalAccess } from './portal-access.ts';
import { type Deps, forgetContents } from './deps.ts';
import { fourEyesDeal } from './four-eyes.ts';
import { type Answer, inOneTransaction, type Outcome, type WriteRequest, writeOutcome } from './pipeline.ts';
import { type ProposalView, propose } from './proposals.ts';

export const ERASED_NAME = 'Erased investor';

export interface ErasureInput {
  /** Erase before the retention period ends (a court order, a deal that never went ahead); needs `reason`. */
  overrideRetention?: boolean;
  reason?: string;
}

export interface Erasure {
  investorUserId: string;
  erasedAt: string;
  lastEventAt: string | null;
  retainedUntil: string | null;
  overrideRetention: boolean;
}

/** The contact with every personal field replaced; ids, classes and flags kept. */
export function tombstone(contact: InvestorContact, investorUserId: string): InvestorContact {
  return {
    ...contact,
    contact: { forename: 'Erased', middleNames: null, surname: 'investor', title: null, nickname: null, dateOfBirth: null, email: null },
    username: `erased:${investorUserId}`,
    profilePhotoFileKey: null,
    name: ERASED_NAME,
    fullName: ERASED_NAME,
  };
}

const addYears = (date: Date, years: number) => {
  const d = new Date(date);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d;
};

/** What an erasure did: the erasure, and the API keys it revoked (to drop from this instance's cache once committed). */
interface Erased {
  erasure: Erasure;
  revokedTokens: string[];
  /** The investor was erased before: the erasure answered is that one. */
  before: boolean;
  /** The contents it deleted (their rows): their bytes go from an object store once committed (forgetContents). */
  removedContents: string[];
}

/**
 * Replaces the investor's personal data with a tombstone, in the caller's transaction, with its
 * audit entry. 409 while the retention period runs, unless `overrideRetention` with a reason.
 * Erasing an erased investor again answers the first erasure. With `check`, only the refusals:
 * nothing is written (a held erasure is refused now rather than held when it would be refused).
 */
async function applyErasure(
  tx: Deps,
  principal: Principal,
  investorUserId: string,
  input: ErasureInput,
  retentionYears: number,
  check = false,
): Promise<Erased> {
  const reason = reasonOf(input);
  const row = await lockForErasure(tx.db, investorUserId);
  if (!row) throw notFound('investor', investorUserId);
  const { lastEventAt } = row;
  const retainedUntil = lastEventAt ? addYears(lastEventAt, retentionYears) : null;
  const result = (erasedAt: Date, overridden: boolean): Erasure => ({
    investorUserId,
    erasedAt: erasedAt.toISOString(),
    lastEventAt: lastEventAt?.toISOString() ?? null,
    retainedUntil: retainedUntil?.toISOString() ?? null,
    overrideRetention: overridden,
  });
  if (row.erasedAt) return { erasure: result(row.erasedAt, false), revokedTokens: [], before: true, removedContents: [] };
  const now = tx.clock();
  const early = retainedUntil !== null && now < retainedUntil;
  if (early && !input.overrideRetention) {
    throw conflict(
      `Investor ${investorUserId} is retained until ${retainedUntil.toISOString()} (${retentionYears} years after their last event, ${lastEventAt!.toISOString()}); erase earlier only with overrideRetention and a reason`,
    );
  }
  if (check) return { erasure: result(now, early), revokedTokens: [], before: false, removedContents: [] };
  await writeErasure(tx.db, investorUserId, { contact: tombstone(row.contact, investorUserId), fullName: ERASED_NAME }, now);
  // Their evidence: file names and IP addresses blanked, contents no live record names deleted
  // (after the retention period a signed agreement need not be kept either). The entry counts them.
  const { removedHashes, ...evidence } = await eraseEvidence(tx.db, investorUserId);
  await recordErasure(tx.db, principal, { investorUserId, lastEventAt: lastEventAt?.toISOString() ?? null, override: early, reason, evidence }, now);
  // An erased investor keeps no way in: their API keys are revoked, and they no longer sign in
  // to the portal. New credentials for the id are refused (createToken, createPortalInvitations).
  const revokedTokens = await revokeInvestorTokens(tx.db, investorUserId, now);
  for (const id of revokedTokens) {
    await recordTokenChange(tx.db, principal, 'token.revoked', { id, role: 'investor', investorUserId, reason: 'erased' }, now);
    await publishInvalidation(tx.db, { kind: 'token', tokenId: id });
  }
  await endPortalAccess(tx.db, principal, investorUserId, now);
  return { erasure: result(now, early), revokedTokens, before: false, removedContents: removedHashes };
}

function reasonOf(input: ErasureInput): string | null {
  const reason = input.reason?.trim() || null;
  if (input.overrideRetention && !reason) {
    throw new AppError('validation', 'overrideRetention needs a reason (the legal basis for erasing early)', {
      errors: [{ in: 'body', field: 'reason', detail: 'is required with overrideRetention' }],
    });
  }
  return reason;
}

/** A held erasure's input: what was asked, and the retention rule in force when it was asked. */
export interface HeldErasure extends ErasureInput {
  investorUserId: string;
  retentionYears: number;
}

/**
 * The erasure, or, when a deal the investor has a journey in holds erasures for a second admin
 * (its four-eyes rule `erasure`), the proposal (202), checked first so that one that would be
 * refused is refused now. An investor erased already answers the first erasure (200).
 */
async function eraseOrPropose(tx: Deps, principal: Principal, investorUserId: string, input: ErasureInput, retentionYears: number): Promise<Outcome & Erased> {
  const checked = await applyErasure(tx, principal, investorUserId, input, retentionYears, true);
  const holding = checked.before ? undefined : await fourEyesDeal(tx, await dealsOfInvestor(tx.db, investorUserId), 'erasure');
  if (holding === undefined) {
    const erased = await applyErasure(tx, principal, investorUserId, input, retentionYears);
    return { status: 200, value: erased.erasure, ...erased };
  }
  const held: HeldErasure = { investorUserId, ...input, retentionYears };
  const proposal = await propose(tx, principal, { action: 'erasure', dealId: holding, input: { ...held }, basis: { erasedAt: null } });
  return { status: 202, value: proposal, ...checked };
}

/** The erasure as the API's write (POST /investors/{id}/erasure): applied (200) or held for a second admin (202). */
export async function eraseInvestor(deps: Deps, request: WriteRequest, investorUserId: string, input: ErasureInput, retentionYears: number): Promise<Answer> {
  let revoked: string[] = [];
  let removed: string[] = [];
  const answer = await writeOutcome(deps, request, async (tx) => {
    const { status, value, revokedTokens, removedContents } = await eraseOrPropose(tx, request.principal, investorUserId, input, retentionYears);
    revoked = revokedTokens;
    removed = removedContents;
    return { status, value };
  });
  for (const tokenId of revoked) invalidateLocally({ kind: 'token', tokenId });
  await forgetContents(deps, removed);
  return answer;
}

/** The erasure from the command line: applied, or the proposal when a deal holds it for a second admin. */
export async function eraseFromCommandLine(
  deps: Deps,
  principal: Principal,
  investorUserId: string,
  input: ErasureInput,
  retentionYears: number,
): Promise<{ erasure: Erasure } | { proposal: ProposalView }> {
  const outcome = await inOneTransaction((tx) => eraseOrPropose(tx, principal, investorUserId, input, retentionYears))(deps);
  await forgetContents(deps, outcome.removedContents);
  return outcome.status === 202 ? { proposal: outcome.value as ProposalView } : { erasure: outcome.erasure };
}

/** A held erasure approved: applied as proposed, in the approval's transaction (the caller drops the revoked keys once committed). */
export const applyHeldErasure = (tx: Deps, principal: Principal, held: HeldErasure): Promise<Erased> =>
  applyErasure(tx, principal, held.investorUserId, held, held.retentionYears);

/** What a held erasure was checked against: the investor not erased yet. */
export const erasureBasis = async (tx: Deps, investorUserId: string): Promise<Record<string, unknown>> => ({
  erasedAt: (await lockForErasure(tx.db, investorUserId))?.erasedAt?.toISOString() ?? null,
});
