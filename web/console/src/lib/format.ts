// Display helpers. Amounts are decimal strings and stay strings: grouping and padding to the
// currency's minor units are done on the digits, so nothing is rounded through a binary float on
// its way to the screen.
import { formatMoney, minorUnits } from '../../../kit/format.ts';
import type { Money } from './api.ts';

export { exactUtc, formatAmount, formatDateTime, formatMoney, minorUnits } from '../../../kit/format.ts';

/**
 * An amount as a file writes it: plain digits, `.` before the fraction, padded to the currency's
 * minor units (`80000` → `80000.00` EUR), never cut; the service's exports write the same form.
 */
export function plainAmount(amount: string | null | undefined, currency: string | null | undefined): string {
  if (amount == null || amount === '') return '';
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match || !currency) return amount;
  const fraction = (match[2] ?? '').padEnd(minorUnits(currency), '0');
  return `${match[1]!.replace(/^0+(?=\d)/, '')}${fraction ? `.${fraction}` : ''}`;
}

/** What was paid of a commitment, in words: `5,000.00 EUR received · 4,999.99 EUR still due`. */
export const paidText = (row: { receivedAmount: string | null; remainingAmount: string | null; currency: string | null }) =>
  row.receivedAmount === null
    ? null
    : `${formatMoney(row.receivedAmount, row.currency)} received${row.remainingAmount !== null ? ` · ${row.remainingAmount === '0' || /^0(\.0+)?$/.test(row.remainingAmount) ? 'paid in full' : `${formatMoney(row.remainingAmount, row.currency)} still due`}` : ''}`;

export const formatTotals = (totals: Money[]) => (totals.length === 0 ? '—' : totals.map((t) => formatMoney(t.amount, t.currency)).join(' · '));

const DAY = 86_400_000;
export function daysSince(iso: string, now = Date.now()): number {
  return Math.max(0, Math.floor((now - Date.parse(iso)) / DAY));
}
export const formatDays = (days: number) => (days === 0 ? 'today' : days === 1 ? '1 day' : `${days} days`);

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
