// Import files as streams of rows: CSV (csv-parse, RFC 4180) or NDJSON, from an HTTP body (held in
// a file first, limits.ts) or a file in the CLI. Each data row is numbered from 1; a row that
// cannot be read is a refused row with its field errors, never the end of the import. A header
// that does not fit is a 400 before any row. The bytes are checked on their way in (limits.ts): a
// line or record longer than MAX_RECORD_BYTES, or bytes that are not UTF-8, end the import with a
// problem naming the line, and a reader never holds more than one record.
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { type DateStyle, dateRule, detectSeparator, type NumberStyle, numberRule, readDate, readNumber, type Separator } from '../../domain/written-forms.ts';
import type { FieldKind } from '../../domain/workflow.ts';
import type { Investor } from '../../domain/investor.ts';
import { decide, DuplicateFinder, type DuplicateGroup, type DuplicatePolicy } from './duplicates.ts';
import { AppError, type FieldError } from '../../domain/errors.ts';
import type { InvestorRow, MoveRow } from '../imports.ts';
import { unneutralise } from '../../domain/spreadsheet-cell.ts';
import { checkedStream, MAX_RECORD_BYTES } from './limits.ts';
import { checkInvestorHeader, investorFromCsv, investorFromJson } from './investor-rows.ts';
import { parseStrictJson } from '../../wire/strict-json.ts';
import { type ColumnMap, checkMappedHeader, dataKeyOf, mappedRecords, ontoStored } from './column-map.ts';

export const importFormats = ['csv', 'ndjson'] as const;
export type ImportFormat = (typeof importFormats)[number];

type CsvRecord = { record: Record<string, string>; row: number; cellProblem?: FieldError };

/**
 * The first line of `input` (up to the first line break outside double quotes, at most
 * MAX_RECORD_BYTES) and a stream of the whole input again, so that the header can choose how the
 * rest is read.
 */
async function peekHeader(input: Readable): Promise<{ header: string; whole: Readable }> {
  const chunks: Buffer[] = [];
  const iterator = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let text = '';
  let end = -1;
  while (end < 0 && text.length < MAX_RECORD_BYTES) {
    const next = await iterator.next();
    if (next.done) break;
    chunks.push(next.value);
    text += next.value.toString('utf8');
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '"') quoted = !quoted;
      else if (text[i] === '\n' && !quoted) {
        end = i;
        break;
      }
    }
  }
  const rest = async function* () {
    yield* chunks;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  };
  return { header: (end < 0 ? text : text.slice(0, end)).replace(/^\uFEFF/, ''), whole: Readable.from(rest(), { objectMode: false }) };
}

async function* csvRecords(raw: Readable, checkHeader: (header: string[]) => void, separator?: Separator): AsyncGenerator<CsvRecord> {
  let width = 0;
  const checked = checkedStream(raw, { quoted: true, header: true, maxRecordBytes: MAX_RECORD_BYTES, what: 'The CSV' });
  // The separator, unless the caller names it, is the one the header line uses (`,` `;` or tab).
  const { header, whole: input } = await peekHeader(checked);
  const delimiter = separator ?? detectSeparator(header);
  const parser = input.pipe(
    parse({
      bom: true,
      delimiter,
      max_record_size: MAX_RECORD_BYTES,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
      columns: (header: string[]) => {
        const names = header.map((h) => h.trim());
        checkHeader(names);
        width = names.length;
        return names;
      },
    }),
  );
  input.on('error', (err) => parser.destroy(err));
  let row = 0;
  let invalid = 0; // csv-parse counts the rows of the wrong length so far
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { invalid_field_length: number; columns: unknown };
    }>) {
      row++;
      const wrongLength = info.invalid_field_length > invalid || Object.keys(record).length !== width;
      invalid = info.invalid_field_length;
      yield wrongLength
        ? { record, row, cellProblem: { in: 'body', field: `row ${row}`, detail: `does not have one cell per header column (${width})` } }
        : { record, row };
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('CSV_'))
      throw new AppError('validation', `The CSV cannot be read after data row ${row}: ${(err as Error).message}`);
    throw err;
  }
}

async function* ndjsonLines(raw: Readable): AsyncGenerator<{ value: unknown; row: number } | { row: number; error: string }> {
  let row = 0;
  const input = checkedStream(raw, { quoted: false, header: false, maxRecordBytes: MAX_RECORD_BYTES, what: 'The NDJSON file' });
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    row++;
    try {
      yield { value: parseStrictJson(line), row };
    } catch (err) {
      yield { row, error: (err as Error).message };
    }
  }
}

/** How an investor CSV is written and read (docs/reference/imports.md). */
export interface InvestorFileOptions {
  /** A CRM export's columns (column-map.ts). */
  columns?: ColumnMap;
  /** Unless given, the header line's. */
  separator?: Separator;
  /** How amounts and numbers of data.* columns are written (default 1234.56). */
  numbers?: NumberStyle;
  /** How dates (data.* columns of kind date, contact.dateOfBirth) are written (default yyyy-mm-dd). */
  dates?: DateStyle;
  /** Rows with the same e-mail (a column map with an e-mail column): duplicates.ts. Default last. */
  duplicates?: DuplicatePolicy;
  /** The kinds of the placement step's fields, for the data.* columns. */
  fields?: ReadonlyMap<string, FieldKind>;
  /** Values of step fields that no column gives (the deal's currency). */
  fill?: Readonly<Record<string, string>>;
}

/**
 * The data.* cells of a record in the service's forms: amounts and numbers read in `numbers`,
 * dates in `dates`; an empty cell supplies nothing. A cell that does not fit is an error naming
 * the column and the value.
 */
function stepData(record: Record<string, string>, columns: ColumnMap, options: InvestorFileOptions): { data: Record<string, string>; errors: FieldError[] } {
  const data: Record<string, string> = {};
  const errors: FieldError[] = [];
  const numbers = options.numbers ?? '1234.56';
  const dates = options.dates ?? 'yyyy-mm-dd';
  for (const [header, cell] of Object.entries(record)) {
    const key = dataKeyOf(columns[header]);
    if (key === undefined) continue;
    const text = unneutralise(cell).trim();
    if (text === '') continue;
    const kind = options.fields?.get(key) ?? 'text';
    const value =
      kind === 'amount' || kind === 'number'
        ? readNumber(text, numbers)
        : kind === 'date'
          ? readDate(text, dates)
          : kind === 'currency'
            ? text.toUpperCase()
            : text;
    if (value === undefined)
      errors.push({ in: 'body', field: header, detail: `${JSON.stringify(text)} ${kind === 'date' ? dateRule(dates) : numberRule(numbers)}` });
    else data[key] = value;
  }
  return { data: { ...options.fill, ...data }, errors };
}

/** contact.dateOfBirth written another way than YYYY-MM-DD, read in `dates`. */
function birthDate(record: Record<string, string>, options: InvestorFileOptions): FieldError | undefined {
  const text = (record['contact.dateOfBirth'] ?? '').trim();
  if (text === '' || options.dates === undefined || options.dates === 'yyyy-mm-dd') return undefined;
  const iso = readDate(text, options.dates);
  if (iso === undefined) return { in: 'body', field: 'contact.dateOfBirth', detail: `${JSON.stringify(text)} ${dateRule(options.dates)}` };
  record['contact.dateOfBirth'] = iso;
  return undefined;
}

/** The first pass of a mapped file with an e-mail column: its e-mails on more than one row. */
async function findDuplicates(input: Readable, columns: ColumnMap, options: InvestorFileOptions): Promise<Map<string, DuplicateGroup>> {
  const finder = new DuplicateFinder();
  const emailHeader = Object.keys(columns).find((h) => columns[h] === 'contact.email')!;
  for await (const { record, row } of csvRecords(input, () => {}, options.separator)) {
    const { data } = stepData(record, columns, { ...options, fill: {} });
    const amounts = new Map<string, string | undefined>();
    const currencies = new Map<string, string>();
    for (const [header, target] of Object.entries(columns)) {
      const key = dataKeyOf(target);
      const kind = key === undefined ? undefined : options.fields?.get(key);
      if (key === undefined || (record[header] ?? '').trim() === '') continue;
      if (kind === 'amount' || kind === 'number') amounts.set(key, data[key]);
      if (kind === 'currency') currencies.set(key, data[key]!);
    }
    finder.add(
      unneutralise(record[emailHeader] ?? '')
        .trim()
        .toLowerCase(),
      row,
      amounts,
      currencies,
    );
  }
  return finder.duplicates();
}

/**
 * The rows of an investor file; a CSV read through `columns` when given (column-map.ts), in the
 * forms `options` name. `open` gives the file from its start (a mapped file with an e-mail column
 * is read twice: duplicates.ts).
 */
export async function* investorRows(open: () => Readable, format: ImportFormat, options: InvestorFileOptions = {}): AsyncGenerator<InvestorRow> {
  const { columns } = options;
  if (format === 'ndjson') {
    if (columns !== undefined)
      throw new AppError('validation', 'A column map applies to a CSV file only', {
        errors: [{ in: 'query', field: 'columns', detail: 'applies to text/csv only' }],
      });
    for await (const line of ndjsonLines(open())) {
      const parsed = 'error' in line ? { id: undefined, errors: [{ in: 'body' as const, field: '', detail: line.error }] } : investorFromJson(line.value);
      yield { row: line.row, ...parsed };
    }
    return;
  }
  const mapped = columns === undefined ? undefined : mappedRecords(columns);
  const onto = columns === undefined ? undefined : ontoStored(columns);
  const checkHeader = columns === undefined ? checkInvestorHeader : (header: string[]) => checkMappedHeader(columns, header);
  const emailHeader = columns === undefined ? undefined : Object.keys(columns).find((h) => columns[h] === 'contact.email');
  const policy = options.duplicates ?? 'last';
  let groups: Map<string, DuplicateGroup> | undefined;
  for await (const { record: raw, row, cellProblem } of csvRecords(open(), checkHeader, options.separator)) {
    // The header has been checked: now the first pass, when rows may share an e-mail.
    if (groups === undefined) groups = columns && emailHeader !== undefined ? await findDuplicates(open(), columns, options) : new Map();
    const record = mapped ? mapped(raw) : raw;
    const email =
      emailHeader === undefined
        ? ''
        : unneutralise(raw[emailHeader] ?? '')
            .trim()
            .toLowerCase();
    const group = groups.get(email);
    const duplicateRows = group ? { duplicateRows: group.rows } : {};
    if (cellProblem) {
      yield { row, id: record.id || undefined, errors: [cellProblem], ...duplicateRows };
      continue;
    }
    const decision = group ? decide(policy, group, row, email, emailHeader!) : { import: true as const };
    if (!decision.import) {
      yield 'errors' in decision
        ? { row, id: record.id || undefined, errors: decision.errors, ...duplicateRows }
        : { row, id: record.id || undefined, duplicate: true, ...duplicateRows };
      continue;
    }
    const errors: FieldError[] = [];
    const birth = birthDate(record, options);
    if (birth) errors.push(birth);
    const step = columns ? stepData(raw, columns, options) : undefined;
    if (step) errors.push(...step.errors);
    const parsed = investorFromCsv(record);
    if ('errors' in parsed || errors.length > 0) {
      yield {
        row,
        id: parsed.id,
        errors: [...errors, ...('errors' in parsed ? parsed.errors.filter((e) => !errors.some((o) => o.field === e.field)) : [])],
        ...duplicateRows,
      };
      continue;
    }
    const data = step && (Object.keys(step.data).length > 0 || decision.data) ? { data: { ...step.data, ...decision.data } } : {};
    yield { row, ...parsed, ...data, ...duplicateRows, ...(onto ? { onto: (stored: Investor) => onto(stored, parsed.investor) } : {}) };
  }
}

const ID = /^[A-Za-z0-9._:@-]{1,128}$/;
const MOVE_COLUMNS = ['investorUserId', 'targetStepId', 'expectedCurrentStepId'];

function checkMoveHeader(header: string[]) {
  const missing = ['investorUserId', 'targetStepId'].filter((c) => !header.includes(c));
  const long = header.filter((h) => h.length === 0 || h.length > 64);
  const errors: FieldError[] = [
    ...missing.map((c) => ({ in: 'body' as const, field: c, detail: 'the header must name this column' })),
    ...long.map((h) => ({ in: 'body' as const, field: h, detail: 'a field key column must be named by 1 to 64 characters' })),
  ];
  if (new Set(header).size !== header.length) errors.push({ in: 'body', field: 'header', detail: 'names a column twice' });
  if (errors.length > 0) throw new AppError('validation', `The CSV header does not fit the move import: ${errors.map((e) => e.field).join(', ')}`, { errors });
}

/** investorUserId, targetStepId, optional expectedCurrentStepId, then one column per field key (empty: not supplied). */
export async function* moveRows(input: Readable): AsyncGenerator<MoveRow> {
  for await (const { record, row, cellProblem } of csvRecords(input, checkMoveHeader)) {
    const cell = (name: string) => unneutralise(record[name] ?? '');
    const investorUserId = cell('investorUserId');
    const errors: FieldError[] = cellProblem ? [cellProblem] : [];
    if (!ID.test(investorUserId)) errors.push({ in: 'body', field: 'investorUserId', detail: 'must be 1 to 128 letters, digits or . _ : @ -' });
    const targetStepId = cell('targetStepId');
    if (targetStepId === '' || targetStepId.length > 64) errors.push({ in: 'body', field: 'targetStepId', detail: 'must be 1 to 64 characters' });
    const data: Record<string, string> = {};
    for (const [key, value] of Object.entries(record)) {
      if (MOVE_COLUMNS.includes(key) || value === '') continue;
      if (value.length > 10_000) errors.push({ in: 'body', field: `data.${key}`, detail: 'is longer than 10,000 characters' });
      data[key] = unneutralise(value);
    }
    if (errors.length > 0) {
      yield { row, investorUserId: investorUserId || undefined, errors };
      continue;
    }
    const expected = cell('expectedCurrentStepId');
    yield { row, move: { investorUserId, targetStepId, data, ...(expected !== '' ? { expectedCurrentStepId: expected } : {}) } };
  }
}
