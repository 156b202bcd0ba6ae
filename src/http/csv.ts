// CSV on the wire (RFC 4180, via csv-stringify and csv-parse); every cell goes through the defence
// against spreadsheet formula injection (domain/spreadsheet-cell.ts).
import { Readable } from 'node:stream';
import { stringify, type Options } from 'csv-stringify/sync';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';

import { neutralise } from '../domain/spreadsheet-cell.ts';

export { neutralise, unneutralise } from '../domain/spreadsheet-cell.ts';

export type Cell = string | number | boolean | null | undefined;

const text = (value: Cell) => (value === null || value === undefined ? '' : neutralise(String(value)));

/** Whether the client asked for CSV (`Accept: text/csv`) rather than the JSON the route serves. */
export const wantsCsv = (request: FastifyRequest) => /(^|,)\s*text\/csv\s*(;|,|$)/i.test(request.headers.accept ?? '');

// Records end in CRLF (RFC 4180); a cell holding a line break of its own (CR or LF alone, which
// csv-stringify only quotes when it is the record delimiter) is quoted too, so that spreadsheets
// keep it in its cell; so is a cell with space at either end, which some readers trim.
const CSV_OPTIONS: Options = { record_delimiter: 'windows', quoted_match: /^\s|\s$|[\r\n]/ };

/**
 * Streams pages of rows as an RFC 4180 CSV attachment: a header line, then one line per row, CRLF
 * line ends. Each page is written as one string (csv-stringify's sync API, the same stringifier as
 * its stream, so the bytes are the stream's: every line ends in CRLF, the header is written once),
 * and pages are pulled as the client reads, so memory stays flat whatever the number of rows.
 */
export function sendCsvPages(reply: FastifyReply, filename: string, header: readonly string[], pages: AsyncIterable<readonly (readonly Cell[])[]>) {
  const columns = [...header];
  const body = Readable.from(
    (async function* () {
      let first = true;
      for await (const page of pages) {
        yield stringify(
          page.map((row) => row.map(text)),
          { ...CSV_OPTIONS, columns, header: first },
        );
        first = false;
      }
      if (first) yield stringify([], { ...CSV_OPTIONS, columns, header: true });
    })(),
  );
  return reply.code(200).type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="${filename}"`).send(body);
}

/** As sendCsvPages, for rows that come one at a time (short lists: they are sent in pages of 1,000). */
export function sendCsv(reply: FastifyReply, filename: string, header: readonly string[], rows: AsyncIterable<readonly Cell[]>) {
  return sendCsvPages(reply, filename, header, pagesOf(rows, 1000));
}

async function* pagesOf<T>(items: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let page: T[] = [];
  for await (const item of items) {
    page.push(item);
    if (page.length === size) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}

/** A 200 response that is JSON (`schema`) or, with `Accept: text/csv`, the CSV export of the same list. */
export const jsonOrCsv = <T extends TSchema>(schema: T, csvDescription: string) =>
  ({
    description: 'The list as JSON, or as CSV with Accept: text/csv',
    content: {
      'application/json': { schema },
      'text/csv': {
        schema: Type.String({
          description: `${csvDescription} RFC 4180; cells a spreadsheet could take for a formula (starting with = + - @, also after leading white space or in full-width form such as ＝, or starting with a tab or line break) are prefixed with an apostrophe (plain numbers such as -5 are not).`,
        }),
      },
    },
  }) as unknown as T;
