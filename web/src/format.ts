// Display helpers. Amounts are decimal strings and stay strings: grouping is done on the digits, so
// nothing is rounded through a binary float on its way to the screen.
import type { Money } from './api.ts';

export function formatAmount(amount: string | null | undefined): string {
  if (amount == null || amount === '') return '—';
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(amount);
  if (!match) return amount;
  const [, sign, whole, fraction = ''] = match;
  return `${sign}${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction}`;
}

export const formatMoney = (amount: string | null | undefined, currency: string | null | undefined) =>
  amount == null || amount === '' ? '—' : `${formatAmount(amount)} ${currency ?? ''}`.trim();

export const formatTotals = (totals: Money[]) => (totals.length === 0 ? '—' : totals.map((t) => formatMoney(t.amount, t.currency)).join(' · '));

const DAY = 86_400_000;
export function daysSince(iso: string, now = Date.now()): number {
  return Math.max(0, Math.floor((now - Date.parse(iso)) / DAY));
}
export const formatDays = (days: number) => (days === 0 ? 'today' : days === 1 ? '1 day' : `${days} days`);

const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));

export const fieldLabel = (field: { fieldKey: string; label?: string | null }) =>
  field.label || field.fieldKey.replace(/[_-]+/g, ' ').replace(/^./, (c) => c.toUpperCase());

export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;
