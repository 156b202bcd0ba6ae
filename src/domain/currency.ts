// Browser-safe: the console and the investor portal import this module (rules in .dependency-cruiser.cjs:
// no Node built-in, and of ours only other browser-safe modules).
// Currencies: which codes exist, and how many decimals (ISO 4217 "minor units") an amount in each
// may carry. One table, used wherever an amount meets a currency: step fields of a move, statement
// lines, subscriptions' total and fee. No I/O.
import Big from 'big.js';

// ISO 4217 currency codes: the real list (Intl knows it), not any three letters.
const known = new Set<string>(Intl.supportedValuesOf('currency'));

export const isCurrencyCode = (value: string): boolean => /^[A-Z]{3}$/.test(value) && known.has(value);

/**
 * Codes ISO 4217 has withdrawn that Intl (CLDR) still lists, with the code that replaced each. A
 * withdrawn code is refused for new data (a move's captured currency), and offered by no currency
 * field; data stored under it stays as it is and is read, shown and exported as before (history is
 * never rewritten, and an old commitment in HRK was made in HRK).
 */
export const withdrawnCurrencies: Readonly<Record<string, string>> = { ANG: 'XCG', HRK: 'EUR', SLL: 'SLE', ZWL: 'ZWG' };

/** Why `code` may not be used for new data (a withdrawn ISO 4217 code), or undefined. */
export const withdrawnCurrencyProblem = (code: string): string | undefined =>
  code in withdrawnCurrencies ? `"${code}" was withdrawn from ISO 4217; use ${withdrawnCurrencies[code]}` : undefined;

/** The codes a currency field offers: ISO 4217's current ones (Intl's list without the withdrawn). */
export const currentCurrencies = (): string[] => [...known].filter((code) => !(code in withdrawnCurrencies));

/**
 * ISO 4217's minor units where they are not 2 (the list the ISO 4217 maintenance agency publishes).
 * null: the code has no minor units ("N.A.": precious metals, fund and testing codes), so only the
 * general amount rule (at most 8 decimals) applies. Intl's digits are CLDR's display convention
 * (HUF 0, IQD 0), not ISO's, so they are not used here.
 */
export const minorUnitExceptions: Readonly<Record<string, number | null>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
  XAG: null,
  XAU: null,
  XBA: null,
  XBB: null,
  XBC: null,
  XBD: null,
  XDR: null,
  XPD: null,
  XPT: null,
  XSU: null,
  XTS: null,
  XUA: null,
  XXX: null,
};

/** The decimals an amount in `currency` may carry: ISO 4217's minor units, 2 for every code not listed above. */
export const minorUnitsOf = (currency: string): number | null => (currency in minorUnitExceptions ? minorUnitExceptions[currency]! : 2);

/** The decimals a decimal text carries, trailing zeros not counted ("25000.50" 1, "100.00" 0). */
export function decimalsOf(amount: string): number {
  const big = new Big(amount);
  return Math.max(0, big.c.length - big.e - 1);
}

/** Why `amount` does not fit `currency`'s minor units, or undefined when it does. */
export function minorUnitsProblem(amount: string, currency: string): string | undefined {
  const units = minorUnitsOf(currency);
  if (units === null || decimalsOf(amount) <= units) return undefined;
  return units === 0
    ? `must be a whole amount of ${currency} (ISO 4217: no minor units)`
    : `has more decimals than ${currency}'s ${units} (ISO 4217 minor units)`;
}

/** The known codes whose minor units are fewer than `decimals`: an amount with that many decimals fits none of them. */
export function currenciesTooCoarseFor(decimals: number): string[] {
  if (decimals <= 0) return [];
  return [...new Set([...known, ...Object.keys(minorUnitExceptions)])].filter((c) => {
    const units = minorUnitsOf(c);
    return units !== null && units < decimals;
  });
}
