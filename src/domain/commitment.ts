import Big from 'big.js';
import type { PaidState } from './console.ts';

// Which captured fields hold an investor's commitment in a deal and its currency. A deal's payment
// settings name them (`commitmentFieldKey`, `currencyFieldKey`); a deal without payment settings
// reads these. The one home of the rule: the store's SQL (store/payment-settings.ts,
// `commitmentKeyOf` and `currencyKeyOf`) and the operations read the defaults from here.
export const DEFAULT_COMMITMENT_FIELD_KEY = 'committed_amount';
export const DEFAULT_CURRENCY_FIELD_KEY = 'currency';

/** A captured value as an amount: digits with an optional fraction, else null (a typo, a word). */
export const amountOf = (text: string | null): Big | null => (text !== null && /^[0-9]+(\.[0-9]+)?$/.test(text.trim()) ? new Big(text.trim()) : null);

/**
 * What is still to pay: the commitment less what was received, never below zero, exact. null
 * without both, or when the commitment is not an amount. The one rule behind the console's cards
 * and table and the investor's own deal page; the table's `paid` filter is its SQL form
 * (store/console.ts), and test/payments/paid-state.test.ts keeps the two in step.
 */
export function remainingOf(committed: string | null, received: string | null): Big | null {
  const commitment = amountOf(committed);
  if (received === null || commitment === null) return null;
  const left = commitment.minus(received);
  return left.lt(0) ? new Big(0) : left;
}

/** How much of the commitment is paid (the table's `paid` filter); null without a commitment. */
export function paidStateOf(committed: string | null, received: string | null): PaidState | null {
  const remaining = remainingOf(committed, received ?? '0');
  if (remaining === null) return null;
  if (received === null || new Big(received).eq(0)) return 'none';
  return remaining.gt(0) ? 'partly' : 'full';
}
