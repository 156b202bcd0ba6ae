// Browser-safe: the console and the investor portal import this module (rules in .dependency-cruiser.cjs:
// no Node built-in, and of ours only other browser-safe modules).
// An investor's category under the UK's financial promotion rules (FPO articles 48, 50 and 50A;
// FCA COBS 4.12B and 3.5): the statement the investor signed, the date they signed it and when it
// lapses. A statement counts for 12 months from the day it was signed (the period the FPO's
// statements speak of), so it expires on the same day of the month a year on (29 February: on 28
// February). Staff are warned 30 days before. Every category is renewed the same way: a firm
// re-assesses an elective professional client on the same yearly rhythm, and one rule is one thing
// to check.
import { isCalendarDate } from './calendar-date.ts';

export const investorCategories = [
  'certified-high-net-worth',
  'certified-sophisticated',
  'self-certified-sophisticated',
  'elective-professional',
  'professional',
] as const;
export type InvestorCategory = (typeof investorCategories)[number];

export const isInvestorCategory = (value: unknown): value is InvestorCategory => (investorCategories as readonly unknown[]).includes(value);

/** How long a signed statement counts. */
export const CATEGORY_VALID_MONTHS = 12;
/** How long before its expiry a statement is shown as expiring. */
export const CATEGORY_WARNING_DAYS = 30;

/** The day a statement signed on `signedOn` (YYYY-MM-DD) no longer counts: 12 months on, clamped to the month's end. */
export const categoryExpiry = (signedOn: string): string => monthsAfter(signedOn, CATEGORY_VALID_MONTHS);

/** The same day of the month `months` later (YYYY-MM-DD), clamped to that month's end (29 February + 12: 28 February). */
export function monthsAfter(date: string, months: number): string {
  if (!isCalendarDate(date)) throw new RangeError(`not a calendar date: ${date}`);
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const total = month - 1 + months;
  const y = year + Math.floor(total / 12);
  const m = (total % 12) + 1;
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(Math.min(day, last)).padStart(2, '0')}`;
}

/** valid: counts; expiring: counts, for CATEGORY_WARNING_DAYS or fewer; expired: counts no more. */
export type CategoryStanding = 'valid' | 'expiring' | 'expired';

const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** The standing, on `today` (YYYY-MM-DD, UTC), of a statement that expires on `expiresOn`. */
export function categoryStanding(expiresOn: string, today: string): CategoryStanding {
  const left = dayNumber(expiresOn) - dayNumber(today);
  if (left <= 0) return 'expired';
  return left <= CATEGORY_WARNING_DAYS ? 'expiring' : 'valid';
}

/** The calendar date `days` after `date` (YYYY-MM-DD). */
export const daysAfter = (date: string, days: number): string => new Date((dayNumber(date) + days) * 86_400_000).toISOString().slice(0, 10);

/** Today's calendar date in UTC, the date statements are signed and expire in. */
export const utcDate = (now: Date): string => now.toISOString().slice(0, 10);

/** An investor's newest statement, as the rules need it. */
export interface CategoryStatement {
  category: InvestorCategory;
  expiresOn: string;
}

/** Whether `statement` counts on `today` and is one of `categories`. */
export function holdsCategory(statement: CategoryStatement | null, categories: readonly string[], today: string): boolean {
  return statement !== null && categories.includes(statement.category) && categoryStanding(statement.expiresOn, today) !== 'expired';
}
