// CSV on the wire (RFC 4180, via csv-stringify and csv-parse) and its defence against spreadsheet
// formula injection (OWASP "CSV Injection"): a cell that starts with =, +, -, @, tab or carriage
// return is written with a leading apostrophe, which spreadsheets show as text and do not evaluate.
// A plain number ("-5", "-1250.50") is left alone: a spreadsheet reads it as the number it is and
// evaluates nothing, and an apostrophe would turn an amount column into text. Imports undo the
// apostrophe (unneutralise), so an export read back gives the values that were exported.
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

export function neutralise(cell: string): string {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

export function unneutralise(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}

export type Cell = string | number | boolean | null | undefined;

const text = (value: Cell) => (value === null || value === undefined ? '' : neutralise(String(value)));

/** Whether the client asked for CSV (`Accept: text/csv`) rather than the JSON the route serves. */
export const wantsCsv = (request: FastifyRequest) => /(^|,)\s*text\/csv\s*(;|,|$)/i.test(request.headers.accept ?? '');

/**
 * Streams rows as an RFC 4180 CSV attachment: a header line, then one line per row, CRLF line ends.
 * Rows are pulled as the client reads, so memory stays flat whatever the number of rows.
 */
export function sendCsv(reply: FastifyReply, filename: string, header: readonly string[], rows: AsyncIterable<readonly Cell[]>) {
  const cells = Readable.from(
    (async function* () {
      for await (const row of rows) yield row.map(text);
    })(),
  );
  const csv = stringify({ header: true, columns: [...header], record_delimiter: 'windows', quoted_match: /^\s|\s$/ });
  cells.on('error', (err) => csv.destroy(err));
  return reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${filename}"`)
    .send(cells.pipe(csv));
}

/** A 200 response that is JSON (`schema`) or, with `Accept: text/csv`, the CSV export of the same list. */
export const jsonOrCsv = <T extends TSchema>(schema: T, csvDescription: string) =>
  ({
    description: 'The list as JSON, or as CSV with Accept: text/csv',
    content: {
      'application/json': { schema },
      'text/csv': { schema: Type.String({ description: `${csvDescription} RFC 4180; cells starting with = + - @ are prefixed with an apostrophe (plain numbers such as -5 are not).` }) },
    },
  }) as unknown as T;
