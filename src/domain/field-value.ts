// Browser-safe: the console and the investor portal import this module (rules in .dependency-cruiser.cjs:
// no Node built-in, and of ours only other browser-safe modules).
// Values of step fields: strings on the wire, checked against the field's kind.
import { CALENDAR_DATE_RULE, isCalendarDate } from './calendar-date.ts';
import { isCurrencyCode } from './currency.ts';
import type { StepField } from './workflow.ts';

/** A non-negative decimal string: money is never a float ("25000.00", "0.5"; not "1e3", "-1", "01"). */
const AMOUNT = /^(0|[1-9]\d{0,17})(\.\d{1,8})?$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** A decimal number, signed ("12", "-3.5", "0.25"; not "1e3", "1,000", "+1", ".5", "5.", "01"). */
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;
/** Digits a number may have in all, before and after its point: far more than a count of shares or a percentage needs, and a bound on what a reader (PostgreSQL `numeric`, a spreadsheet, Big.js) must hold exactly. */
export const NUMBER_MAX_DIGITS = 30;
export const NUMBER_RULE = `must be a decimal number such as "12", "-3.5" or "0.25": at most ${NUMBER_MAX_DIGITS} digits, no exponent, no thousands separators`;

/** Whether `value` is a number field's value: a decimal string of at most 30 digits, never read as a float; zero has no minus sign. */
export function isDecimalNumber(value: string): boolean {
  if (value.length > NUMBER_MAX_DIGITS + 2 || !NUMBER.test(value)) return false;
  const digits = value.replace(/[-.]/g, '');
  return digits.length <= NUMBER_MAX_DIGITS && !(value.startsWith('-') && /^0+$/.test(digits));
}

export { isCalendarDate };

/** Why `value` does not fit `field`, or undefined when it does. */
export function valueProblem(field: Pick<StepField, 'kind' | 'options'>, value: string): string | undefined {
  switch (field.kind) {
    case 'text':
      return undefined;
    case 'amount':
      return AMOUNT.test(value) ? undefined : 'must be a non-negative decimal string such as "25000.00"';
    case 'currency':
      return isCurrencyCode(value) ? undefined : 'must be an ISO 4217 currency code such as "EUR"';
    case 'date':
      return isCalendarDate(value) ? undefined : CALENDAR_DATE_RULE;
    case 'email':
      return value.length <= 320 && EMAIL.test(value) ? undefined : 'must be an e-mail address';
    case 'number':
      return isDecimalNumber(value) ? undefined : NUMBER_RULE;
    case 'choice':
      return (field.options ?? []).includes(value) ? undefined : `must be one of ${(field.options ?? []).map((o) => JSON.stringify(o)).join(', ')}`;
    default: {
      const exhaustive: never = field.kind;
      return `unknown kind ${String(exhaustive)}`;
    }
  }
}

/** A field counts as populated when its value holds more than white space. */
export const isPopulated = (value: string | undefined): boolean => value !== undefined && value.trim() !== '';
