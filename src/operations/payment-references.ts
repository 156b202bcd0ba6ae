// Payment references (assigned by the jump with an investor's first event in a deal):
// GET /deals/deal/{dealId}/all-payment-refernces (listPaymentReferences) and GET /payments/references/{reference}.
//
// References are stored and printed compact (RF18539007547034); lookups ignore spaces and case, so
// the grouped form an investor types from an invoice ("rf18 5390 0754 7034") resolves too.
import { invalid, notFound } from '../domain/errors.ts';
import { checkReference, normalizeReference } from '../domain/payment-reference.ts';
import { findDeal } from '../store/deals.ts';
import * as store from '../store/payment-references.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';

/** One entry per investor of the deal (404 unknown deal). */
export async function listPaymentReferences(deps: Deps, dealId: string) {
  const { db } = forReading(deps);
  if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
  return store.listDealPaymentReferences(db, dealId);
}

/** 400 malformed or wrong check digits (a mistyped reference), 404 well-formed but unknown. */
export async function lookupPaymentReference(deps: Deps, input: string) {
  const reference = normalizeReference(input);
  switch (checkReference(reference)) {
    case 'malformed':
      throw invalid(
        [{ in: 'path', field: 'reference', detail: 'is not an RF creditor reference: "RF", two check digits and 1 to 21 digits' }],
        'The payment reference is malformed',
      );
    case 'bad-check-digits':
      throw invalid(
        [{ in: 'path', field: 'reference', detail: 'its check digits do not match (ISO 11649, MOD 97-10): the reference is mistyped' }],
        'The payment reference is mistyped: its check digits are wrong',
      );
    case 'valid':
      break;
  }
  const found = await store.findByPaymentReference(deps.db, reference);
  if (!found) throw notFound('payment reference', reference);
  return found;
}
