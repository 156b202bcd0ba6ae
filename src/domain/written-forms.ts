// Browser-safe: the console and the investor portal import this module (rules in .dependency-cruiser.cjs:
// no Node built-in, and of ours only other browser-safe modules).
// How people write numbers, dates and CSV files in their own locale, and the service's canonical
// forms of them. An export from a European CRM separates its columns with `;`, writes 25,000 euros
// as `25.000,00` and the first of March as `01.03.2026`; the service stores `25000.00` and
// `2026-03-01`. A file is read in the forms the person says it uses, and each value is converted
// before any rule checks it, so a rule never sees a locale's spelling. A value that does not fit
// the form said is not guessed at: the reader refuses it, naming the value.
import { isCalendarDate } from './calendar-date.ts';

/** Column separators a CSV may use (RFC 4180 says `,`; spreadsheets in comma-decimal locales write `;`). */
export const separators = [',', ';', '\t'] as const;
export type Separator = (typeof separators)[number];
/** The names a separator goes by in a query parameter or a flag. */
export const separatorNames = { comma: ',', semicolon: ';', tab: '\t' } as const satisfies Record<string, Separator>;
export type SeparatorName = keyof typeof separatorNames;

/**
 * The separator of a CSV from its header line: the candidate seen most often outside double quotes
 * (a header names its columns, so the separator is there once per column); `,` when none is seen.
 */
export function detectSeparator(headerLine: string): Separator {
  const counts = new Map<Separator, number>(separators.map((s) => [s, 0]));
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch as Separator)) counts.set(ch as Separator, counts.get(ch as Separator)! + 1);
  }
  let best: Separator = ',';
  for (const s of separators) if (counts.get(s)! > counts.get(best)!) best = s;
  return best;
}

/** How a file writes amounts: named by one thousand two hundred and thirty-four and a bit. */
export const numberStyles = ['1234.56', '1,234.56', '1.234,56'] as const;
export type NumberStyle = (typeof numberStyles)[number];

const NUMBER_PATTERNS: Record<NumberStyle, { pattern: RegExp; group: string; point: string }> = {
  '1234.56': { pattern: /^-?\d+(\.\d+)?$/, group: '', point: '.' },
  '1,234.56': { pattern: /^-?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$/, group: ',', point: '.' },
  '1.234,56': { pattern: /^-?(\d{1,3}(\.\d{3})+|\d+)(,\d+)?$/, group: '.', point: ',' },
};

/**
 * A number as the file writes it (`style`), in the service's canonical form: digits, a `.` before
 * the decimals, no grouping, no leading zeros ("25.000,00" → "25000.00"). The decimals are kept as
 * written (money is never rounded); grouping is optional but, when used, in threes. Undefined when
 * the text is not a number in that style ("25.000,00" read as 1,234.56).
 */
export function readNumber(text: string, style: NumberStyle): string | undefined {
  const { pattern, group, point } = NUMBER_PATTERNS[style];
  const value = text.trim();
  if (!pattern.test(value)) return undefined;
  const plain = (group === '' ? value : value.split(group).join('')).replace(point, '.');
  const negative = plain.startsWith('-');
  const [whole, decimals] = (negative ? plain.slice(1) : plain).split('.') as [string, string | undefined];
  const digits = whole.replace(/^0+(?=\d)/, '');
  const sign = negative && /[1-9]/.test(digits + (decimals ?? '')) ? '-' : '';
  return `${sign}${digits}${decimals === undefined ? '' : `.${decimals}`}`;
}

/** A canonical decimal string written in `style` (thousands grouped where the style groups). */
export function writeNumber(canonical: string, style: NumberStyle): string {
  const { group, point } = NUMBER_PATTERNS[style];
  const negative = canonical.startsWith('-');
  const [whole, decimals] = (negative ? canonical.slice(1) : canonical).split('.') as [string, string | undefined];
  const grouped = group === '' ? whole : whole.replace(/\B(?=(\d{3})+$)/g, group);
  return `${negative ? '-' : ''}${grouped}${decimals === undefined ? '' : point + decimals}`;
}

/** How a file writes dates. Day-first and month-first dates may use `.`, `/` or `-` between parts. */
export const dateStyles = ['yyyy-mm-dd', 'dd.mm.yyyy', 'mm/dd/yyyy'] as const;
export type DateStyle = (typeof dateStyles)[number];

const DAY_FIRST = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})$/;
const YEAR_FIRST = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const two = (n: string) => n.padStart(2, '0');

/** A date as the file writes it (`style`) as YYYY-MM-DD, when it is on the calendar; else undefined. */
export function readDate(text: string, style: DateStyle): string | undefined {
  const value = text.trim();
  let iso: string | undefined;
  if (style === 'yyyy-mm-dd') {
    const m = YEAR_FIRST.exec(value);
    if (m) iso = `${m[1]}-${two(m[2]!)}-${two(m[3]!)}`;
  } else {
    const m = DAY_FIRST.exec(value);
    if (m) iso = style === 'dd.mm.yyyy' ? `${m[3]}-${two(m[2]!)}-${two(m[1]!)}` : `${m[3]}-${two(m[1]!)}-${two(m[2]!)}`;
  }
  return iso !== undefined && isCalendarDate(iso) ? iso : undefined;
}

/** A YYYY-MM-DD date written in `style`. */
export function writeDate(iso: string, style: DateStyle): string {
  const [y, m, d] = iso.split('-');
  return style === 'yyyy-mm-dd' ? iso : style === 'dd.mm.yyyy' ? `${d}.${m}.${y}` : `${m}/${d}/${y}`;
}

/** What a refusal says of a value that does not fit the form the file was said to use. */
export const numberRule = (style: NumberStyle) => `is not a number written as ${style}`;
export const dateRule = (style: DateStyle) => `is not a date written as ${style}`;
