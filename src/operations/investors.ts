// The investor directory: upserted by the platform, read by staff and by the investor themself.
import { notFound } from '../domain/errors.ts';
import type { Investor } from '../domain/investor.ts';
import { canActFor, type Principal } from '../domain/principal.ts';
import * as investors from '../store/investors.ts';
import type { Deps } from './deps.ts';
import { inOneTransaction } from './pipeline.ts';
import { screenInvestors } from './sanctions.ts';

export type InvestorInput = Omit<Investor, 'id'>;

export async function putInvestor(deps: Deps, investorUserId: string, input: InvestorInput) {
  return inOneTransaction(async (tx) => {
    const result = await investors.upsertInvestor(tx.db, { id: investorUserId, ...input }, tx.clock());
    await screenInvestors(tx, [investorUserId]);
    return result;
  })(deps);
}

export async function getInvestor(deps: Deps, principal: Principal, investorUserId: string): Promise<Investor> {
  if (!canActFor(principal, investorUserId)) throw notFound('investor', investorUserId);
  const investor = await investors.findInvestor(deps.db, investorUserId);
  if (!investor) throw notFound('investor', investorUserId);
  return investor;
}
