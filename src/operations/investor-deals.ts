// What an investor sees of their deals: GET /investors/{investorUserId}/deals (listInvestorDeals)
// and GET /investors/{investorUserId}/deals/{dealId} (getInvestorDeal). Staff read anyone's; an
// investor only their own, and another investor's id, or a deal they have no journey in, is
// answered exactly as an unknown one (404). One statement per read (store/investor-deals.ts); the
// pure domain/investor-deal.ts puts each deal together.
import { notFound } from '../domain/errors.ts';
import { type InvestorDeal, type InvestorDealFacts, investorDealOf } from '../domain/investor-deal.ts';
import { canActFor, isStaff, type Principal } from '../domain/principal.ts';
import type { Db } from '../store/schema.ts';
import { requiresSignedAgreement } from '../domain/workflow.ts';
import { agreementStatesOf } from '../store/agreements.ts';
import { findDeal } from '../store/deals.ts';
import { findInvestor } from '../store/investors.ts';
import { findInvestorDeals } from '../store/investor-deals.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';

/** Every deal the investor has a journey in, by deal name then id. */
export async function listInvestorDeals(deps: Deps, principal: Principal, investorUserId: string): Promise<{ deals: InvestorDeal[] }> {
  if (!canActFor(principal, investorUserId)) throw notFound('investor', investorUserId);
  const { db } = forReading(deps);
  const facts = await findInvestorDeals(db, investorUserId, null);
  if (facts.length === 0 && isStaff(principal) && !(await findInvestor(db, investorUserId))) throw notFound('investor', investorUserId);
  return { deals: (await withAgreements(db, investorUserId, facts)).map(investorDealOf) };
}

/** One deal the investor has a journey in. */
export async function getInvestorDeal(deps: Deps, principal: Principal, investorUserId: string, dealId: string): Promise<InvestorDeal> {
  if (!canActFor(principal, investorUserId)) throw notFound('investor', investorUserId);
  const { db } = forReading(deps);
  const [facts] = await withAgreements(db, investorUserId, await findInvestorDeals(db, investorUserId, dealId));
  if (facts) return investorDealOf(facts);
  if (!isStaff(principal)) throw notFound('deal', dealId);
  if (!(await findInvestor(db, investorUserId))) throw notFound('investor', investorUserId);
  if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
  throw notFound(`journey of investor ${JSON.stringify(investorUserId)} in deal`, dealId);
}

/** The agreement's state in each deal whose workflow requires it signed (one more read, only then). */
async function withAgreements(db: Db, investorUserId: string, facts: InvestorDealFacts[]): Promise<InvestorDealFacts[]> {
  const requiring = facts.filter((f) => f.workflow?.steps.some(requiresSignedAgreement));
  if (requiring.length === 0) return facts;
  const states = await agreementStatesOf(
    db,
    investorUserId,
    requiring.map((f) => f.dealId),
  );
  return facts.map((f) => (states.has(f.dealId) ? { ...f, agreement: states.get(f.dealId)! } : f));
}
