// A column map for the investor CSV: a CRM export names its columns its own way (`name`, `email`,
// `Contact ID`…), so the import takes `columns`, an object from each header of the file to a column
// of the investor import (INVESTOR_COLUMNS) or to null (read past, on purpose). With a map, a row
// needs only a name and an e-mail or an id; the rest is filled in:
// - `fullName` alone is split at its last space into forename and surname (one word: the surname);
// - the id, when no column maps to `id`, is derived so that the same file imported again updates
//   the same investors: from the CRM id (`remoteId`) when mapped, else from the e-mail;
// - rows of one file with the same e-mail are one investor (the id of the first); which row's values
//   count is the import's duplicate policy (duplicates.ts);
// - `data.<fieldKey>` maps a column to a field of the step the import places its rows in;
// - every header must be in the map: a column is never ignored without being named;
// - an investor already in the directory keeps every member that no mapped column gives (onto).
import { createHash } from 'node:crypto';
import { AppError, type FieldError } from '../../domain/errors.ts';
import type { Investor } from '../../domain/investor.ts';
import { COMPUTED_COLUMNS, INVESTOR_COLUMNS } from './investor-rows.ts';

export type ColumnMap = Record<string, string | null>;

const TARGETS = new Set<string>([...INVESTOR_COLUMNS, ...COMPUTED_COLUMNS]);
const ID = /^[A-Za-z0-9._:@-]{1,128}$/;
/** A column for a field of the placement step: `data.` and the field's key. */
const DATA = /^data\.(.{1,64})$/s;

/** The step field a target names (`data.committed_amount` → `committed_amount`), or undefined. */
export const dataKeyOf = (target: string | null | undefined): string | undefined => (typeof target === 'string' ? DATA.exec(target)?.[1] : undefined);

/** The `columns` parameter (a JSON object) as a column map; 400 naming what does not fit. */
export function parseColumnMap(text: string, field = 'columns'): ColumnMap {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('validation', `${field} must be a JSON object from the file's headers to columns of the investor import (or null)`, {
      errors: [{ in: 'query', field, detail: 'must be a JSON object' }],
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('validation', `${field} must be a JSON object`, { errors: [{ in: 'query', field, detail: 'must be a JSON object' }] });
  }
  const errors: FieldError[] = [];
  const targets = new Map<string, string>();
  for (const [header, target] of Object.entries(value as Record<string, unknown>)) {
    if (target === null) continue;
    if (typeof target !== 'string' || (!TARGETS.has(target) && dataKeyOf(target) === undefined)) {
      errors.push({
        in: 'query',
        field: `${field}.${header}`,
        detail: 'must be a column of the investor import, data.<field key> of the placement step, or null',
      });
    } else if (targets.has(target)) {
      errors.push({ in: 'query', field: `${field}.${header}`, detail: `maps to ${target}, as ${targets.get(target)} does` });
    } else targets.set(target, header);
  }
  if (errors.length > 0)
    throw new AppError('validation', `The column map does not fit the investor import: ${errors.map((e) => e.field).join(', ')}`, { errors });
  return value as ColumnMap;
}

/** 400 naming every header of the file that the map does not name, and a map that gives no key. */
export function checkMappedHeader(map: ColumnMap, header: readonly string[]): void {
  const errors: FieldError[] = header
    .filter((h) => !Object.hasOwn(map, h))
    .map((h) => ({ in: 'body', field: h, detail: 'is a column of the file that the column map does not name (map it, or map it to null to read past it)' }));
  const mapped = new Set(header.filter((h) => Object.hasOwn(map, h)).map((h) => map[h]));
  if (!mapped.has('id') && !mapped.has('remoteId') && !mapped.has('contact.email')) {
    errors.push({ in: 'body', field: 'id', detail: 'the column map must give an id, a CRM id (remoteId) or an e-mail (contact.email) column' });
  }
  if (errors.length > 0) throw new AppError('validation', `The CSV header does not fit the column map: ${errors.map((e) => e.field).join(', ')}`, { errors });
}

const digest = (prefix: string, text: string) => `${prefix}-${createHash('sha256').update(text).digest('hex').slice(0, 20)}`;

/** Derived ids: `crm-<CRM id>` (hashed when it has other characters), else `inv-<hash of the e-mail>`. */
export function derivedId(remoteId: string, email: string): string | undefined {
  if (remoteId !== '') return ID.test(`crm-${remoteId}`) ? `crm-${remoteId}` : digest('crm', remoteId);
  if (email !== '') return digest('inv', email.toLowerCase());
  return undefined;
}

/**
 * Per file: turns a record keyed by the file's headers into one keyed by the investor import's
 * columns, with the defaults above. Remembers e-mail → id to merge rows of one investor.
 */
export function mappedRecords(map: ColumnMap) {
  const idByEmail = new Map<string, string>();
  return (record: Record<string, string>): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [header, cell] of Object.entries(record)) {
      const target = map[header];
      if (typeof target === 'string' && dataKeyOf(target) === undefined) out[target] = cell.trim();
    }
    const text = (name: string) => out[name] ?? '';
    const email = text('contact.email').toLowerCase();
    if (email !== '') out['contact.email'] = email;
    let forename = text('contact.forename');
    let surname = text('contact.surname');
    const full = text('fullName') || text('name');
    if (forename === '' && surname === '' && full !== '') {
      const words = full.split(/\s+/);
      surname = words.pop()!;
      forename = words.join(' ');
    }
    const fullName = full || [forename, surname].filter((w) => w !== '').join(' ');
    let id = text('id') || derivedId(text('remoteId'), email) || '';
    if (email !== '') {
      const first = idByEmail.get(email);
      if (first !== undefined) id = first;
      else if (id !== '') idByEmail.set(email, id);
    }
    const defaults: Record<string, string> = {
      id,
      remoteId: text('remoteId') || email || id,
      dataSource: text('dataSource') || 'import',
      guid: text('guid') || id,
      userType: text('userType') || '0',
      status: text('status') || 'active',
      'contact.forename': forename,
      'contact.surname': surname,
      username: text('username') || email || id,
      name: text('name') || fullName,
      fullName,
      tfaEnabled: text('tfaEnabled') || 'false',
    };
    for (const [column, value] of Object.entries(defaults)) out[column] = value;
    return out;
  };
}

/** Where a column of the investor import sits in an Investor. */
const pathOf = (column: string): string[] =>
  column.startsWith('contact.')
    ? ['contact', 'contact', column.slice('contact.'.length)]
    : ['remoteId', 'dataSource', 'teamUserId', 'kycCheckLevel'].includes(column)
      ? [column]
      : ['contact', column];

/**
 * The stored investor with the members the map's columns give taken from the row's entry (a name
 * column gives forename, surname, name and fullName; an e-mail or CRM id that made the id gives
 * nothing more than itself).
 */
export function ontoStored(map: ColumnMap): (stored: Investor, parsed: Investor) => Investor {
  const given = new Set(
    Object.values(map).filter(
      (t): t is string => typeof t === 'string' && t !== 'id' && dataKeyOf(t) === undefined && !(COMPUTED_COLUMNS as readonly string[]).includes(t),
    ),
  );
  if (given.has('fullName') || given.has('name')) for (const c of ['contact.forename', 'contact.surname', 'fullName', 'name']) given.add(c);
  if (given.has('contact.forename') || given.has('contact.surname')) given.add('fullName');
  return (stored, parsed) => {
    const out = structuredClone(stored) as unknown as Record<string, unknown>;
    for (const column of given) {
      const path = pathOf(column);
      let from: unknown = parsed;
      let to = out;
      for (const key of path.slice(0, -1)) {
        from = (from as Record<string, unknown>)[key];
        to = to[key] as Record<string, unknown>;
      }
      to[path.at(-1)!] = (from as Record<string, unknown>)[path.at(-1)!];
    }
    return out as unknown as Investor;
  };
}
