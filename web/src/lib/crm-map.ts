// A CRM file's columns mapped to the investor import: guessed from the header names, editable,
// remembered in localStorage per file shape (its header line), and handed to the service as the
// `columns` parameter of POST /investors/import (the service applies the map: ids, name split,
// merge by e-mail). Columns for a step (amount, currency) are read past by the investor import and
// sent afterwards as a move file.
import { parse } from 'csv-parse/browser/esm/sync';

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
  | 'place:currency';

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
  [/amount|commitment|committed|ticket|sum/, 'place:amount'],
  [/^(currency|ccy)$/, 'place:currency'],
];

const normal = (header: string) => header.trim().toLowerCase().replace(/[\s.-]+/g, '_');

export function guessTarget(header: string): Target {
  const name = normal(header);
  return GUESSES.find(([pattern]) => pattern.test(name))?.[1] ?? '';
}

export interface CrmFile {
  header: string[];
  records: string[][];
}

export function readCrmFile(text: string): CrmFile | { error: string } {
  try {
    const rows = parse(text, { skip_empty_lines: true, bom: true, relax_column_count: true }) as string[][];
    if (rows.length < 2) return { error: 'The file has no rows under its header line.' };
    return { header: rows[0]!.map((h) => h.trim()), records: rows.slice(1) };
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

/** The `columns` parameter: every header, null for what the investor import reads past. */
export function serviceColumns(header: string[], map: Target[]): Record<string, string | null> {
  return Object.fromEntries(header.map((h, i) => [h, map[i] && !map[i]!.startsWith('place:') ? map[i]! : null]));
}

/** A map the service can use: one way to the id. */
export const mapProblem = (map: Target[]) =>
  map.includes('id') || map.includes('remoteId') || map.includes('contact.email') ? undefined : 'Map an e-mail, a CRM id or an investor id column: the service derives the ids from it.';
