// The checks before money on the move path: a move into a step that takes money is refused (422)
// while the investor has an open or confirmed sanctions hit, while their newest category statement
// has expired (a statement that lapsed must be renewed before money is taken; an investor who never
// had one is the workflow's requirements' business, not this gate's), or while their newest
// accepted KYC level has expired (its documents are asked for again). A step takes money when the
// deal's payment settings name it as the payment step (where a matched payment moves the investor
// and whose amount field receives it). The facts come with the move's one load statement
// (store/moves.ts), so the checks cost the move no round trip.
import { type AppError, unprocessable } from '../domain/errors.ts';
import { type CategoryStatement, categoryStanding, isInvestorCategory } from '../domain/investor-category.ts';
import { type KycLevelFact, kycExpired } from '../domain/kyc.ts';
import type { MoveFacts } from '../store/moves.ts';

/** The investor's newest category statement among the facts, or null. */
export function categoryOf(facts: Pick<MoveFacts, 'categories'>, investorUserId: string): CategoryStatement | null {
  const found = facts.categories.get(investorUserId);
  return found && isInvestorCategory(found.category) ? { category: found.category, expiresOn: found.expiresOn } : null;
}

/** What the move's rules judge of an investor's checks: their newest category statement and accepted KYC level. */
export interface InvestorChecks {
  category: CategoryStatement | null;
  kyc: KycLevelFact | null;
}

export const checksOf = (facts: Pick<MoveFacts, 'categories' | 'kycLevels'>, investorUserId: string): InvestorChecks => ({
  category: categoryOf(facts, investorUserId),
  kyc: facts.kycLevels.get(investorUserId) ?? null,
});

/** The refusal of a move into `targetStepId` for this investor on `today` (YYYY-MM-DD), or undefined. */
export function moneyStepRefusal(
  facts: Pick<MoveFacts, 'paymentStepId' | 'sanctioned' | 'categories' | 'kycLevels'>,
  move: { investorUserId: string; targetStepId: string },
  today: string,
): AppError | undefined {
  if (facts.paymentStepId === null || move.targetStepId !== facts.paymentStepId) return undefined;
  if (facts.sanctioned.has(move.investorUserId)) {
    return unprocessable('The investor matches a sanctions list entry under review or confirmed; steps that take money are blocked');
  }
  const category = categoryOf(facts, move.investorUserId);
  if (category !== null && categoryStanding(category.expiresOn, today) === 'expired') {
    return unprocessable(
      `The investor's category statement (${category.category}) expired on ${category.expiresOn}; steps that take money are blocked until a renewed statement is recorded`,
    );
  }
  const kyc = facts.kycLevels.get(move.investorUserId);
  if (kycExpired(kyc, today)) {
    return unprocessable(
      `The investor's KYC (level ${kyc!.level}) expired on ${kyc!.expiresOn}; steps that take money are blocked until their documents are accepted again`,
    );
  }
  return undefined;
}
