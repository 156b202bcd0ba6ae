// Browser-safe: the console and the investor portal import this module (rules in .dependency-cruiser.cjs:
// no Node built-in, and of ours only other browser-safe modules).
// Calendar dates (YYYY-MM-DD) as every input of the service carries them: statements' booking and
// value dates, CSV columns, step fields of kind `date`, query parameters. A date that matches the
// pattern but is not on the calendar (2026-02-30, 2026-13-01) is refused here, before PostgreSQL's
// `date` type would refuse it as a 500.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A YYYY-MM-DD date that exists on the proleptic Gregorian calendar, years 0001 to 9999. */
export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

const leap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return leap(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** What a refusal says of a value that is not a calendar date. */
export const CALENDAR_DATE_RULE = 'must be a date that exists, as YYYY-MM-DD';
