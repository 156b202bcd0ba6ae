// Import files as streams of rows: CSV (csv-parse, RFC 4180) or NDJSON, from an HTTP body (held in
// a file first, limits.ts) or a file in the CLI. Each data row is numbered from 1; a row that
// cannot be read is a refused row with its field errors, never the end of the import. A header
// that does not fit is a 400 before any row. The bytes are checked on their way in (limits.ts): a
// line or record longer than MAX_RECORD_BYTES, or bytes that are not UTF-8, end the import with a
// problem naming the line, and a reader never holds more than one record.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { AppError, type FieldError } from '../../domain/errors.ts';
import type { InvestorRow, MoveRow } from '../imports.ts';
import { unneutralise } from '../../domain/spreadsheet-cell.ts';
import { checkedStream, MAX_RECORD_BYTES } from './limits.ts';
import { checkInvestorHeader, investorFromCsv, investorFromJson } from './investor-rows.ts';
import { parseStrictJson } from '../../wire/strict-json.ts';
import { type ColumnMap, checkMappedHeader, mappedRecords, ontoStored } from './column-map.ts';

export const importFormats = ['csv', 'ndjson'] as const;
export type ImportFormat = (typeof importFormats)[number];

type CsvRecord = { record: Record<string, string>; row: number; cellProblem?: FieldError };

async function* csvRecords(raw: Readable, checkHeader: (header: string[]) => void): AsyncGenerator<CsvRecord> {
  let width = 0;
  const input = checkedStream(raw, { quoted: true, header: true, maxRecordBytes: MAX_RECORD_BYTES, what: 'The CSV' });
  const parser = input.pipe(
    parse({
      bom: true,
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
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { invalid_field_length: number; columns: unknown } }>) {
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
    if (typeof code === 'string' && code.startsWith('CSV_')) throw new AppError('validation', `The CSV cannot be read after data row ${row}: ${(err as Error).message}`);
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

/** The rows of an investor file; a CSV read through `columns` when given (column-map.ts). */
export async function* investorRows(input: Readable, format: ImportFormat, columns?: ColumnMap): AsyncGenerator<InvestorRow> {
  if (format === 'ndjson') {
    if (columns !== undefined) throw new AppError('validation', 'A column map applies to a CSV file only', { errors: [{ in: 'query', field: 'columns', detail: 'applies to text/csv only' }] });
    for await (const line of ndjsonLines(input)) {
      const parsed = 'error' in line ? { id: undefined, errors: [{ in: 'body' as const, field: '', detail: line.error }] } : investorFromJson(line.value);
      yield { row: line.row, ...parsed };
    }
    return;
  }
  const mapped = columns === undefined ? undefined : mappedRecords(columns);
  const onto = columns === undefined ? undefined : ontoStored(columns);
  const checkHeader = columns === undefined ? checkInvestorHeader : (header: string[]) => checkMappedHeader(columns, header);
  for await (const { record: raw, row, cellProblem } of csvRecords(input, checkHeader)) {
    const record = mapped ? mapped(raw) : raw;
    if (cellProblem) {
      yield { row, id: record.id || undefined, errors: [cellProblem] };
      continue;
    }
    const parsed = investorFromCsv(record);
    yield 'investor' in parsed && onto ? { row, ...parsed, onto: (stored) => onto(stored, parsed.investor) } : { row, ...parsed };
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
