// The value of a `number` field as the service checks it (src/domain/field-value.ts), restated for
// the console and the portal to check before sending; test/console/number-check.test.ts holds the
// two to the same answers. No imports, so the portal and Node's tests read it alone.

/** Digits a number may have in all, before and after its point. */
export const NUMBER_MAX_DIGITS = 30;
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/** "12", "-3.5", "0.25": a decimal string of at most 30 digits; no exponent, separator or plus sign, no leading zero, zero without a minus sign. */
export function isDecimalNumber(value: string): boolean {
  if (value.length > NUMBER_MAX_DIGITS + 2 || !NUMBER.test(value)) return false;
  const digits = value.replace(/[-.]/g, '');
  return digits.length <= NUMBER_MAX_DIGITS && !(value.startsWith('-') && /^0+$/.test(digits));
}
