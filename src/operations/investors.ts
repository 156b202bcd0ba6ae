// The investor directory: upserted by the platform, read by staff and by the investor themself.
import { forbidden, notFound } from '../domain/errors.ts';
import type { Investor } from '../domain/investor.ts';
import { canActFor, type Principal } from '../domain/principal.ts';
import * as investors from '../store/investors.ts';
import type { Deps } from './deps.ts';

export type InvestorInput = Omit<Investor, 'id'>;

export async function putInvestor(deps: Deps, investorUserId: string, input: InvestorInput) {
  return investors.upsertInvestor(deps.db, { id: investorUserId, ...input }, deps.clock());
}

export async function getInvestor(deps: Deps, principal: Principal, investorUserId: string): Promise<Investor> {
  if (!canActFor(principal, investorUserId)) throw forbidden('An investor token may read only its own directory entry');
  const investor = await investors.findInvestor(deps.db, investorUserId);
  if (!investor) throw notFound('investor', investorUserId);
  return investor;
}
