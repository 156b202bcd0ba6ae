// Display helpers both apps use. Amounts are decimal strings and stay strings: grouping and padding
// to the currency's minor units are done on the digits, so nothing is rounded through a binary
// float on its way to the screen.

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

/** `75,000.00 GBP`: the code after the digits, always the currency's minor units (the console's tables and exports). */
export const formatMoney = (amount: string | null | undefined, currency: string | null | undefined) =>
  amount == null || amount === '' ? '—' : `${formatAmount(amount, minorUnits(currency))} ${currency ?? ''}`.trim();

const readerMoney = new Map<string, Intl.NumberFormat>();
/**
 * `25000.5`, `EUR` → `€25,000.50` (en-GB), `25.000,50 €` (de-DE): money as the reader writes it (the
 * portal); an unknown currency code is shown after the digits.
 */
export function formatMoneyForReader(amount: string | null | undefined, currency: string | null | undefined): string {
  if (amount == null || amount === '') return '—';
  const code = currency ?? '';
  let format = readerMoney.get(code);
  if (!format) {
    try {
      format = code ? new Intl.NumberFormat(undefined, { style: 'currency', currency: code }) : new Intl.NumberFormat(undefined, { maximumFractionDigits: 20 });
    } catch {
      format = new Intl.NumberFormat(undefined, { maximumFractionDigits: 20 });
    }
    readerMoney.set(code, format);
  }
  if (!/^-?\d+(\.\d+)?$/.test(amount)) return `${amount} ${code}`.trim();
  // Intl formats a decimal string exactly (ECMA-402 "Intl.NumberFormat v3").
  const text = format.format(amount as Intl.StringNumericLiteral);
  return format.resolvedOptions().style === 'currency' || !code ? text : `${text} ${code}`;
}

/** One date format everywhere: the reader's locale and time zone, date and time; `exactUtc` for a tooltip. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const formatDateTime = (iso: string) => (Number.isNaN(Date.parse(iso)) ? iso : dateTime.format(new Date(iso)));
export const exactUtc = (iso: string) =>
  Number.isNaN(Date.parse(iso))
    ? iso
    : `${new Date(iso)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')}`;

/** A file's size for a reader: whole KB under a megabyte (at least 1), else MB to one decimal. */
export const formatFileSize = (bytes: number) =>
  bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / (1024 * 1024)).toLocaleString(undefined, { maximumFractionDigits: 1 })} MB`;
