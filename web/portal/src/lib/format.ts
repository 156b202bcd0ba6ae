// Calendar dates and currencies in the reader's own locale (the browser's), through Intl; money and
// instants are formatted by the shared kit (web/kit/format.ts).
import { currentCurrencies } from '../../../../src/domain/currency.ts';
import { formatDateTime } from '../../../kit/format.ts';

const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
/** A calendar date (`2026-11-26`) as the reader writes dates; no time zone shift. */
export function formatDate(day: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return formatDateTime(day);
  return dateOnly.format(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 12)));
}

/** A currency field's choices: the current ISO 4217 codes (withdrawn ones, such as HRK, are refused for new data). */
export function currencies(): string[] {
  try {
    return currentCurrencies();
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
