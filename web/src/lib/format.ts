// Display helpers. Amounts are decimal strings and stay strings: grouping and padding to the
// currency's minor units are done on the digits, so nothing is rounded through a binary float on
// its way to the screen.
import type { Money } from './api.ts';

/** Digits after the decimal point of a currency (2 for GBP, 0 for JPY, 3 for BHD); 2 if unknown. */
export function minorUnits(currency: string | null | undefined): number {
  if (!currency) return 2;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** `75000` → `75,000`; with `minor` the fraction is padded to that many digits (never cut). */
export function formatAmount(amount: string | null | undefined, minor?: number): string {
  if (amount == null || amount === '') return '—';
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) return amount;
  const [, sign, whole, given = ''] = match;
  const fraction = minor === undefined ? given : given.padEnd(minor, '0');
  return `${sign}${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction ? `.${fraction}` : ''}`;
}

/** `75,000.00 GBP`: always the currency's minor units. */
export const formatMoney = (amount: string | null | undefined, currency: string | null | undefined) =>
  amount == null || amount === '' ? '—' : `${formatAmount(amount, minorUnits(currency))} ${currency ?? ''}`.trim();

export const formatTotals = (totals: Money[]) => (totals.length === 0 ? '—' : totals.map((t) => formatMoney(t.amount, t.currency)).join(' · '));

const DAY = 86_400_000;
export function daysSince(iso: string, now = Date.now()): number {
  return Math.max(0, Math.floor((now - Date.parse(iso)) / DAY));
}
export const formatDays = (days: number) => (days === 0 ? 'today' : days === 1 ? '1 day' : `${days} days`);

/** One date format everywhere: the browser's locale, date and time; `exactUtc` for the tooltip. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const formatDateTime = (iso: string) => (Number.isNaN(Date.parse(iso)) ? iso : dateTime.format(new Date(iso)));
export const exactUtc = (iso: string) => (Number.isNaN(Date.parse(iso)) ? iso : `${new Date(iso).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`);

export const fieldLabel = (field: { fieldKey: string; label?: string | null | undefined }) =>
  field.label || field.fieldKey.replace(/[_-]+/g, ' ').replace(/^./, (c) => c.toUpperCase());

export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;

/** "3 h", "2.5 d": a duration in milliseconds, to two significant figures. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  for (const [size, unit] of units) if (ms >= size) return `${Number((ms / size).toPrecision(2)).toLocaleString('en-GB')} ${unit}`;
  return `${ms} ms`;
}
