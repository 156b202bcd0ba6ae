// The investor directory as CSV rows: one column map for the export of all-transactions and the
// investor import, so an export reads back unchanged. Header names are the interface's member
// names; the members of the contact object are columns of their own (`guid`, `status`, …), its
// personal `contact` object is flattened as `contact.forename`, `contact.email`, …, and the
// classifications are one cell holding their JSON array. An empty cell is null (or an empty list).
import { AppError, type FieldError } from '../../domain/errors.ts';
import type { Investor } from '../../domain/investor.ts';
// The wire schema of a PUT /investors body and its validation errors as field errors: an imported
// row is validated exactly as that body is.
import { InvestorBody } from '../../wire/investor.ts';
import type { InvestorBody as InvestorBodyType } from '../../wire/investor.ts';
import { compileValidator } from '../../wire/validate.ts';
import type { InvestorInput } from '../investors.ts';
import { unneutralise } from '../../domain/spreadsheet-cell.ts';

export type Cell = string | number | boolean | null | undefined;

export const INVESTOR_COLUMNS = [
  'id',
  'remoteId',
  'dataSource',
  'teamUserId',
  'kycCheckLevel',
  'guid',
  'externalId',
  'userType',
  'status',
  'contact.title',
  'contact.forename',
  'contact.middleNames',
  'contact.surname',
  'contact.nickname',
  'contact.dateOfBirth',
  'contact.email',
  'username',
  'profilePhotoFileKey',
  'name',
  'fullName',
  'tfaEnabled',
  'compliance',
  'classifications',
] as const;

/** Columns of the all-transactions export that the import reads past (they are computed). */
export const COMPUTED_COLUMNS = ['dealsCompletedCount', 'dealsInProgressCount', 'dealsTotal'] as const;

export function investorCells(investor: Investor): Cell[] {
  const c = investor.contact;
  const p = c.contact;
  return [
    investor.id,
    investor.remoteId,
    investor.dataSource,
    investor.teamUserId,
    investor.kycCheckLevel,
    c.guid,
    c.externalId,
    c.userType,
    c.status,
    p.title,
    p.forename,
    p.middleNames,
    p.surname,
    p.nickname,
    p.dateOfBirth,
    p.email,
    c.username,
    c.profilePhotoFileKey,
    c.name,
    c.fullName,
    c.tfaEnabled,
    c.compliance,
    JSON.stringify(c.classifications),
  ];
}

const validateBody = compileValidator(InvestorBody, { method: 'PUT', url: '/investors/import' });

/** 400 for a header naming an unknown column or lacking `id`; before any row is read. */
export function checkInvestorHeader(header: readonly string[]): void {
  const known = new Set<string>([...INVESTOR_COLUMNS, ...COMPUTED_COLUMNS]);
  const errors: FieldError[] = header.filter((h) => !known.has(h)).map((h) => ({ in: 'body', field: h, detail: 'is not a column of the investor import' }));
  if (!header.includes('id')) errors.push({ in: 'body', field: 'id', detail: 'the header must name an id column' });
  if (errors.length > 0)
    throw new AppError('validation', `The CSV header does not fit the investor import: ${errors.map((e) => e.field).join(', ')}`, { errors });
}

export type ParsedInvestor = { id: string; investor: Investor } | { id: string | undefined; errors: FieldError[] };

/** A CSV record (header name → cell) as a PUT /investors body, then validated as one. */
export function investorFromCsv(record: Record<string, string>): ParsedInvestor {
  const cell = (name: string) => unneutralise(record[name] ?? '');
  const nullable = (name: string) => (cell(name) === '' ? null : cell(name));
  const errors: FieldError[] = [];
  const integer = (name: string, optional: boolean): unknown => {
    const text = cell(name);
    if (text === '' && optional) return null;
    if (!/^-?\d+$/.test(text)) errors.push({ in: 'body', field: name, detail: 'must be a whole number' });
    return Number(text);
  };
  let classifications: unknown = [];
  if (cell('classifications') !== '') {
    try {
      classifications = JSON.parse(cell('classifications'));
    } catch {
      errors.push({ in: 'body', field: 'classifications', detail: 'must be a JSON array of {investorClassId, organisation, investorClass, name}' });
    }
  }
  const tfa = cell('tfaEnabled');
  if (tfa !== 'true' && tfa !== 'false') errors.push({ in: 'body', field: 'tfaEnabled', detail: 'must be true or false' });
  const body = {
    remoteId: cell('remoteId'),
    dataSource: cell('dataSource'),
    teamUserId: nullable('teamUserId'),
    kycCheckLevel: integer('kycCheckLevel', true),
    contact: {
      guid: cell('guid'),
      externalId: nullable('externalId'),
      userType: integer('userType', false),
      status: cell('status'),
      contact: {
        forename: cell('contact.forename'),
        middleNames: nullable('contact.middleNames'),
        surname: cell('contact.surname'),
        title: nullable('contact.title'),
        nickname: nullable('contact.nickname'),
        dateOfBirth: nullable('contact.dateOfBirth'),
        email: nullable('contact.email'),
      },
      username: cell('username'),
      profilePhotoFileKey: nullable('profilePhotoFileKey'),
      name: cell('name'),
      classifications,
      fullName: cell('fullName'),
      tfaEnabled: tfa === 'true',
      compliance: cell('compliance'),
    },
  };
  const id = cell('id') || undefined;
  const parsed = withBody(id, body, errors);
  if (!('errors' in parsed)) return parsed;
  // Errors name the CSV's columns, once each: contact.contact.email is the column contact.email.
  const column = (field: string) =>
    field.startsWith('contact.contact.')
      ? field.slice('contact.'.length)
      : field.startsWith('contact.classifications')
        ? 'classifications'
        : field.replace(/^contact\./, '');
  const seen = new Set<string>();
  return { id: parsed.id, errors: parsed.errors.map((e) => ({ ...e, field: column(e.field) })).filter((e) => !seen.has(e.field) && seen.add(e.field)) };
}

/** An NDJSON line: `{"id": …, …the PUT /investors body}`. */
export function investorFromJson(value: unknown): ParsedInvestor {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { id: undefined, errors: [{ in: 'body', field: '', detail: 'must be a JSON object' }] };
  const { id, ...body } = value as Record<string, unknown>;
  return withBody(typeof id === 'string' && id !== '' ? id : undefined, body, []);
}

const ID = /^[A-Za-z0-9._:@-]{1,128}$/;

function withBody(id: string | undefined, body: unknown, errors: FieldError[]): ParsedInvestor {
  if (id === undefined || !ID.test(id)) errors.push({ in: 'body', field: 'id', detail: 'must be 1 to 128 letters, digits or . _ : @ -' });
  if (errors.length === 0) {
    errors.push(...validateBody(body));
  }
  if (errors.length > 0) return { id, errors };
  const input: InvestorInput = toInput(body as InvestorBodyType);
  return { id: id!, investor: { id: id!, ...input } };
}

/** Omitted nullable members are stored as null, so every read has the interface's full shape. */
export function toInput(body: InvestorBodyType): InvestorInput {
  const { contact } = body;
  return {
    remoteId: body.remoteId,
    dataSource: body.dataSource,
    teamUserId: body.teamUserId ?? null,
    kycCheckLevel: body.kycCheckLevel ?? null,
    contact: {
      guid: contact.guid,
      externalId: contact.externalId ?? null,
      userType: contact.userType,
      status: contact.status,
      contact: {
        forename: contact.contact.forename,
        middleNames: contact.contact.middleNames ?? null,
        surname: contact.contact.surname,
        title: contact.contact.title ?? null,
        nickname: contact.contact.nickname ?? null,
        dateOfBirth: contact.contact.dateOfBirth ?? null,
        email: contact.contact.email ?? null,
      },
      username: contact.username,
      profilePhotoFileKey: contact.profilePhotoFileKey ?? null,
      name: contact.name,
      classifications: contact.classifications.map((c) => ({
        investorClassId: c.investorClassId,
        organisation: c.organisation ?? null,
        investorClass: c.investorClass,
        name: c.name,
      })),
      fullName: contact.fullName,
      tfaEnabled: contact.tfaEnabled,
      compliance: contact.compliance,
    },
  };
}
