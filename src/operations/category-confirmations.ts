// The investor confirms a category statement in the portal (docs/concepts.md, "Category
// confirmation"): they pick one of the categories the deal requires, read its statement and confirm
// it. The confirmation is kept as made, with its time and the IP address it came from. A category
// that is the investor's alone to state (self-certified sophisticated) becomes their statement at
// once, counting 12 months; one that needs a certificate or a firm's assessment waits until staff
// accept its evidence, uploaded as a KYC document (kyc-documents.ts).
import { DIRECTORY_CHAIN } from '../domain/audit.ts';
import { categoryStatementTexts } from '../domain/category-statement-text.ts';
import { forbidden, unprocessable } from '../domain/errors.ts';
import { type InvestorCategory, utcDate } from '../domain/investor-category.ts';
import { needsCertificate } from '../domain/kyc.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import { appendToChain } from '../store/audit.ts';
import { type ConfirmationRow, insertConfirmation, newestConfirmation } from '../store/category-confirmations.ts';
import type { Deps } from './deps.ts';
import { appendStatement } from './investor-categories.ts';
import { assertKycAccess, categoryOffers } from './kyc.ts';
import { inOneTransaction } from './pipeline.ts';

/** Records the investor's confirmation (the investor themself only); 422 for a category the deal does not ask for. */
export async function confirmCategory(
  deps: Deps,
  principal: Principal,
  target: { dealId: string; investorUserId: string },
  input: { category: InvestorCategory; ip: string },
): Promise<ConfirmationRow> {
  if (principal.role !== 'investor') throw forbidden('Only the investor confirms their own category statement');
  const { dealId, investorUserId } = target;
  return inOneTransaction(async (tx) => {
    await assertKycAccess(tx.db, principal, dealId, investorUserId);
    const offers = await categoryOffers(tx, dealId);
    if (!offers.some((o) => o.category === input.category)) {
      throw unprocessable(
        `The deal asks for none of its investors to be ${input.category}; it asks for ${offers.map((o) => o.category).join(', ') || 'no category'}`,
      );
    }
    const at = tx.clock();
    const id = tx.newId();
    const statementText = categoryStatementTexts[input.category];
    const needsReview = needsCertificate(input.category);
    await insertConfirmation(tx.db, { id, dealId, investorUserId, category: input.category, statementText, needsReview, confirmedAt: at, ip: input.ip });
    await appendToChain(tx.db, {
      chain: DIRECTORY_CHAIN,
      type: 'investor.category-confirmed',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: { confirmationId: id, dealId, investorUserId, category: input.category, needsReview },
    });
    if (!needsReview)
      await appendStatement(tx, principal, investorUserId, { category: input.category, statementText, signedOn: utcDate(at), confirmationId: id });
    return (await newestConfirmation(tx.db, dealId, investorUserId))!;
  })(deps);
}
