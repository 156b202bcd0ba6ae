// Booking on completion: the subscription an investor's commitment buys, exactly. Units are the
// commitment divided by the price per unit, to at most `unitDecimals` decimals; when the division
// does not come out exactly there, nothing is rounded: the booking is refused (and queued for staff).
import Big from 'big.js';
import type { Decimal } from './money.ts';

export type UnitsResult = { ok: true; units: Decimal; total: Decimal } | { ok: false; reason: string };

export function unitsFor(committed: Decimal, pricePerUnit: Decimal, unitDecimals: number): UnitsResult {
  const amount = new Big(committed);
  const price = new Big(pricePerUnit);
  if (price.lte(0)) return { ok: false, reason: `the price per unit ${pricePerUnit} is not positive` };
  if (amount.lte(0)) return { ok: false, reason: `the commitment ${committed} is not positive` };
  const units = amount.div(price).round(unitDecimals, Big.roundDown);
  if (!units.times(price).eq(amount)) {
    return {
      ok: false,
      reason: `${amount.toFixed()} / ${price.toFixed()} is not a whole number of units to ${unitDecimals} decimal(s) (it is not ${units.toFixed()}); refused rather than rounded`,
    };
  }
  return { ok: true, units: units.toFixed(), total: amount.toFixed() };
}

/** Settlement is never before the invoice (the subscriptions rule): a payment that arrived before
 *  completion settles on the completion date; its own value date is kept in the description. */
export const settlementDate = (invoiceDate: string, paymentValueDate: string) => (paymentValueDate < invoiceDate ? invoiceDate : paymentValueDate);
