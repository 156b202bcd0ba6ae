// Deals: created and updated by the platform (management API), with caller-supplied ids.
import { isCurrencyCode } from '../domain/currency.ts';
import { invalid, notFound } from '../domain/errors.ts';
import * as deals from '../store/deals.ts';
import type { Deps } from './deps.ts';

export interface PutDealInput {
  name: string;
  description?: string | null;
  currency?: string | null;
}

export async function putDeal(deps: Deps, dealId: string, input: PutDealInput) {
  if (input.currency != null && !isCurrencyCode(input.currency)) {
    throw invalid([{ in: 'body', field: 'currency', detail: `"${input.currency}" is not an ISO 4217 currency code` }]);
  }
  return deals.upsertDeal(deps.db, { id: dealId, name: input.name, description: input.description ?? null, currency: input.currency ?? null }, deps.clock());
}

export async function getDeal(deps: Deps, dealId: string) {
  const deal = await deals.findDeal(deps.db, dealId);
  if (!deal) throw notFound('deal', dealId);
  return deal;
}
