// Erasure of an investor's personal data (UK GDPR art. 17) once the retention period is over
// (five years after their last event by default: MLR 2017 reg. 40). The directory entry keeps its
// ids, classifications and KYC level and loses names, e-mail, username, date of birth; events,
// amounts and the audit chains stay as they are: the chains hash what identifies a change (ids,
// step ids, amounts, field values), never the directory's personal data, so they still verify.
import { AppError, conflict, notFound } from '../domain/errors.ts';
import type { InvestorContact } from '../domain/investor.ts';
import type { Principal } from '../domain/principal.ts';
import { lockForErasure, writeErasure } from '../store/erasure.ts';
import { revokeInvestorTokens } from '../store/tokens.ts';
import { recordErasure, recordTokenChange } from './audit-entries.ts';
import { invalidateLocally, publishInvalidation } from './caches.ts';
import { endPortalAccess } from './portal-access.ts';
import { type Deps, inTransaction } from './deps.ts';

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

/**
 * Replaces the investor's personal data with a tombstone, in one transaction with its audit entry.
 * 409 while the retention period runs, unless `overrideRetention` with a reason. Erasing an erased
 * investor again answers the first erasure.
 */
export async function eraseInvestor(deps: Deps, principal: Principal, investorUserId: string, input: ErasureInput, retentionYears: number): Promise<Erasure> {
  const reason = input.reason?.trim() || null;
  if (input.overrideRetention && !reason) {
    throw new AppError('validation', 'overrideRetention needs a reason (the legal basis for erasing early)', {
      errors: [{ in: 'body', field: 'reason', detail: 'is required with overrideRetention' }],
    });
  }
  let revokedTokens: string[] = [];
  const erasure = await inTransaction(deps, async ({ db, clock }) => {
    const row = await lockForErasure(db, investorUserId);
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
    if (row.erasedAt) return result(row.erasedAt, false);
    const now = clock();
    const early = retainedUntil !== null && now < retainedUntil;
    if (early && !input.overrideRetention) {
      throw conflict(
        `Investor ${investorUserId} is retained until ${retainedUntil.toISOString()} (${retentionYears} years after their last event, ${lastEventAt!.toISOString()}); erase earlier only with overrideRetention and a reason`,
      );
    }
    await writeErasure(db, investorUserId, { contact: tombstone(row.contact, investorUserId), fullName: ERASED_NAME }, now);
    await recordErasure(db, principal, { investorUserId, lastEventAt: lastEventAt?.toISOString() ?? null, override: early, reason }, now);
    // An erased investor keeps no way in: their API keys are revoked, and they no longer sign in
    // to the portal. New credentials for the id are refused (createToken, createPortalInvitations).
    revokedTokens = await revokeInvestorTokens(db, investorUserId, now);
    for (const id of revokedTokens) {
      await recordTokenChange(db, principal, 'token.revoked', { id, role: 'investor', investorUserId, reason: 'erased' }, now);
      await publishInvalidation(db, { kind: 'token', tokenId: id });
    }
    await endPortalAccess(db, principal, investorUserId, now);
    return result(now, early);
  });
  for (const tokenId of revokedTokens) invalidateLocally({ kind: 'token', tokenId });
  return erasure;
}
