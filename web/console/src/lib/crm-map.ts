// A CRM file's columns mapped to the investor import: guessed from the header names, editable,
// remembered in localStorage per file shape (its header line), and handed to the service as the
// `columns` parameter of POST /investors/import (the service applies the map: ids, name split,
// merge by e-mail). Columns for a step (amount, currency, date) become `data.<field key>` of the step
// the rows are placed in, in the same request. The separator is the header line's (the service's
// own rule, src/domain/written-forms.ts), and how numbers and dates are written is guessed from the
// first values, for the person to check.
import { parse } from 'csv-parse/browser/esm/sync';
import { type DateStyle, detectSeparator, type NumberStyle, type SeparatorName, separatorNames } from '../../../../src/domain/written-forms.ts';

export type Target =
  | ''
  | 'id'
  | 'remoteId'
  | 'fullName'
  | 'contact.forename'
  | 'contact.surname'
  | 'contact.email'
  | 'kycCheckLevel'
  | 'status'
  | 'place:amount'
  | 'place:currency'
  | 'place:date';

export const targetLabels: Record<Target, string> = {
  '': 'Not imported',
  id: 'Investor id',
  remoteId: 'CRM id',
  fullName: 'Full name (split)',
  'contact.forename': 'Forename',
  'contact.surname': 'Surname',
  'contact.email': 'E-mail',
  kycCheckLevel: 'KYC level',
  status: 'Status',
  'place:amount': 'Amount (for the step)',
  'place:currency': 'Currency (for the step)',
  'place:date': 'Date (for the step)',
};

const GUESSES: [RegExp, Target][] = [
  [/^(investor_?(user_?)?)?id$/, 'id'],
  [/^(crm|contact|external|remote|customer|client|record)_?id$/, 'remoteId'],
  [/^(full_?)?name$|^contact_?name$|^investor(_?name)?$/, 'fullName'],
  [/^(fore|first|given)_?name$|^forename$/, 'contact.forename'],
  [/^(sur|last|family)_?name$|^surname$/, 'contact.surname'],
  [/^e_?mail(_?address)?$|^mail$/, 'contact.email'],
  [/^kyc(_?(check_?)?level)?$/, 'kycCheckLevel'],
  [/^status$/, 'status'],
  [/^((amount_?)?currency|ccy)$/, 'place:currency'],
  [/amount|commitment|committed|ticket|sum/, 'place:amount'],
  [/date/, 'place:date'],
];

const normal = (header: string) =>
  header
    .trim()
    .toLowerCase()
    .replace(/[\s.-]+/g, '_');

export function guessTarget(header: string): Target {
  const name = normal(header);
  return GUESSES.find(([pattern]) => pattern.test(name))?.[1] ?? '';
}

export interface CrmFile {
  header: string[];
  records: string[][];
  /** The separator of its header line, as the service's `separator` names it. */
  separator: SeparatorName;
}

const nameOfSeparator = (char: string) => (Object.keys(separatorNames) as SeparatorName[]).find((name) => separatorNames[name] === char) ?? 'comma';

export function readCrmFile(text: string): CrmFile | { error: string } {
  try {
    const delimiter = detectSeparator(text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '');
    const rows = parse(text, { skip_empty_lines: true, bom: true, relax_column_count: true, delimiter }) as string[][];
    if (rows.length < 2) return { error: 'The file has no rows under its header line.' };
    return { header: rows[0]!.map((h) => h.trim()), records: rows.slice(1), separator: nameOfSeparator(delimiter) };
  } catch (error) {
    return { error: `The file is not a CSV this page can read: ${error instanceof Error ? error.message : String(error)}` };
  }
}

const storageKey = (header: string[]) => `dealflow.import-columns.${JSON.stringify(header)}`;

/** The map remembered for files of this shape, else the guesses; each target used once. */
export function initialMap(header: string[]): Target[] {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey(header)) ?? 'null') as Target[] | null;
    if (Array.isArray(saved) && saved.length === header.length) return saved;
  } catch {
    // an unreadable entry is a guess again
  }
  const used = new Set<Target>();
  return header.map((h) => {
    const target = guessTarget(h);
    if (target === '' || used.has(target)) return '';
    used.add(target);
    return target;
  });
}

export function rememberMap(header: string[], map: Target[]) {
  try {
    localStorage.setItem(storageKey(header), JSON.stringify(map));
  } catch {
    // storage full or off: the map is guessed next time
  }
}

/** The step field each column for the step fills (none: the column is read past). */
export type StepKeys = Partial<Record<'place:amount' | 'place:currency' | 'place:date', string>>;

/** The `columns` parameter: every header, `data.<key>` for a column that fills a step field, null for what is read past. */
export function serviceColumns(header: string[], map: Target[], keys: StepKeys = {}): Record<string, string | null> {
  return Object.fromEntries(
    header.map((h, i) => {
      const target = map[i];
      if (!target) return [h, null];
      if (target.startsWith('place:')) {
        const key = keys[target as keyof StepKeys];
        return [h, key ? `data.${key}` : null];
      }
      return [h, target];
    }),
  );
}

/** How the file writes numbers, guessed from a column's values (25.000,00 is European). */
export function guessNumbers(values: string[]): NumberStyle {
  const filled = values.map((v) => v.trim()).filter((v) => v !== '');
  if (filled.some((v) => /,\d{1,2}$/.test(v) || /^\d{1,3}(\.\d{3})+(,\d+)?$/.test(v))) return '1.234,56';
  if (filled.some((v) => /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(v))) return '1,234.56';
  return '1234.56';
}

/** How the file writes dates, guessed from a column's values. */
export function guessDates(values: string[]): DateStyle {
  const filled = values.map((v) => v.trim()).filter((v) => v !== '');
  if (filled.some((v) => /^\d{1,2}\.\d{1,2}\.\d{4}$/.test(v))) return 'dd.mm.yyyy';
  if (filled.some((v) => /^\d{1,2}\/\d{1,2}\/\d{4}$/.test(v))) return filled.some((v) => Number(v.split('/')[0]) > 12) ? 'dd.mm.yyyy' : 'mm/dd/yyyy';
  return 'yyyy-mm-dd';
}

/** A map the service can use: one way to the id. */
export const mapProblem = (map: Target[]) =>
  map.includes('id') || map.includes('remoteId') || map.includes('contact.email')
    ? undefined
    : 'Map an e-mail, a CRM id or an investor id column: the service derives the ids from it.';
