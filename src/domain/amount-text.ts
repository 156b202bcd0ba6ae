// The one written form of an amount in an export: a plain decimal (no grouping, `.` before the
// fraction) with exactly the currency's ISO 4217 minor units, so that `80000` and `60000.00` of
// one currency are written `80000.00` and `60000.00`. Without a currency (or one without minor
// units) the shortest exact form (`60000.00` → `60000`). Never rounds: a value with more decimals
// than its currency allows (which a move refuses) keeps them. Text that is not a decimal is left
// as it is. No I/O.
import Big from 'big.js';
import { isCurrencyCode, minorUnitsOf } from './currency.ts';

const DECIMAL = /^[0-9]+(\.[0-9]+)?$/;

export function canonicalAmount(value: string, currency: string | null | undefined): string {
  if (!DECIMAL.test(value)) return value;
  const big = new Big(value);
  const units = currency && isCurrencyCode(currency) ? minorUnitsOf(currency) : null;
  const shortest = big.toFixed();
  const decimals = shortest.split('.')[1]?.length ?? 0;
  return units === null || decimals > units ? shortest : big.toFixed(units);
}
