// Parsing a statement without stalling the instance: a big statement (a 32 MiB camt.053 is some
// seconds of parsing) is parsed in a worker thread, so requests on the instance are answered
// meanwhile; a small one is parsed in place, where a thread would cost more than the parse.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { parseCamt } from '../domain/camt.ts';
import { AppError } from '../domain/errors.ts';
import { isBooked, lineKeys, type ParsedStatement } from '../domain/payment-line.ts';
import { findReference, type FoundReference } from '../domain/remittance.ts';
import { type CsvOptions, parseCsvStatement } from '../domain/statement-csv.ts';

/** Statements larger than this are parsed in a worker thread. */
export const PARSE_IN_WORKER_BYTES = 256 * 1024;

export interface ReadStatement {
  parsed: ParsedStatement;
  /** Each line's key (lineKeys). */
  keys: string[];
  /** Each booked credit's reference (findReference); null for other lines. */
  found: (FoundReference | null)[];
}

function readInPlace(kind: 'xml' | 'csv', text: string, csv: CsvOptions | undefined): ReadStatement {
  const parsed = kind === 'xml' ? parseCamt(text) : parseCsvStatement(text, csv!);
  const keys = lineKeys(parsed.lines);
  const found = parsed.lines.map((l) => (l.direction === 'credit' && !l.reversal && isBooked(l) ? findReference(l.structuredReferences, l.remittance) : null));
  return { parsed, keys, found };
}

const workerUrl = new URL(`./statement-parse-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export async function readStatement(kind: 'xml' | 'csv', text: string, csv?: CsvOptions): Promise<ReadStatement> {
  if (text.length <= PARSE_IN_WORKER_BYTES) return readInPlace(kind, text, csv);
  const bytes = new TextEncoder().encode(text);
  const worker = new Worker(workerUrl, { workerData: { kind, bytes, csv }, transferList: [bytes.buffer as ArrayBuffer] });
  try {
    const message = await new Promise<{
      ok?: ReadStatement;
      refused?: { kind: AppError['kind']; detail: string; errors?: never; extensions?: never };
      failed?: string;
    }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the statement parser stopped (exit ${code})`)));
    });
    if (message.refused)
      throw new AppError(message.refused.kind, message.refused.detail, { errors: message.refused.errors, extensions: message.refused.extensions });
    if (message.failed) throw new Error(`the statement parser failed: ${message.failed}`);
    return message.ok!;
  } finally {
    void worker.terminate();
  }
}
