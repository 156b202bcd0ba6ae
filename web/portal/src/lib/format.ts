// Money and dates in the reader's own locale (the browser's), through Intl. Amounts are decimal
// strings and are handed to Intl as strings, so no digit goes through a binary float.

const money = new Map<string, Intl.NumberFormat>();
/** `25000.5`, `EUR` → `€25,000.50` (en-GB), `25.000,50 €` (de-DE); an unknown currency code is shown after the digits. */
export function formatMoney(amount: string | null | undefined, currency: string | null | undefined): string {
  if (amount == null || amount === '') return '—';
  const code = currency ?? '';
  let format = money.get(code);
  if (!format) {
    try {
      format = code ? new Intl.NumberFormat(undefined, { style: 'currency', currency: code }) : new Intl.NumberFormat(undefined, { maximumFractionDigits: 20 });
    } catch {
      format = new Intl.NumberFormat(undefined, { maximumFractionDigits: 20 });
    }
    money.set(code, format);
  }
  if (!/^-?\d+(\.\d+)?$/.test(amount)) return `${amount} ${code}`.trim();
  // Intl formats a decimal string exactly (ECMA-402 "Intl.NumberFormat v3").
  const text = format.format(amount as Intl.StringNumericLiteral);
  return format.resolvedOptions().style === 'currency' || !code ? text : `${text} ${code}`;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
/** An instant (ISO 8601) as a date and time in the reader's locale and time zone. */
export const formatDateTime = (iso: string) => (Number.isNaN(Date.parse(iso)) ? iso : dateTime.format(new Date(iso)));
/** A calendar date (`2026-11-26`) as the reader writes dates; no time zone shift. */
export function formatDate(day: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return formatDateTime(day);
  return dateOnly.format(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 12)));
}

/** The currencies the browser knows, for a currency field's choices. */
export function currencies(): string[] {
  try {
    return Intl.supportedValuesOf('currency');
  } catch {
    return ['EUR', 'USD', 'GBP', 'CHF'];
  }
}

const currencyNames = (() => {
  try {
    return new Intl.DisplayNames(undefined, { type: 'currency' });
  } catch {
    return undefined;
  }
})();
/** `EUR` → `Euro (EUR)` in the reader's language. */
export const currencyName = (code: string) => {
  const name = currencyNames?.of(code);
  return name && name !== code ? `${name} (${code})` : code;
};
