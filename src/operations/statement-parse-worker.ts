// The worker thread of statement-parse.ts: parses one statement, finds its lines' keys and
// references, and posts them back (or the refusal).
import { parentPort, workerData } from 'node:worker_threads';
import { parseCamt } from '../domain/camt.ts';
import { AppError } from '../domain/errors.ts';
import { isBooked, lineKeys } from '../domain/payment-line.ts';
import { findReference } from '../domain/remittance.ts';
import { parseCsvStatement } from '../domain/statement-csv.ts';

const { kind, bytes, csv } = workerData as { kind: 'xml' | 'csv'; bytes: Uint8Array; csv?: Parameters<typeof parseCsvStatement>[1] };
try {
  const text = new TextDecoder().decode(bytes);
  const parsed = kind === 'xml' ? parseCamt(text) : parseCsvStatement(text, csv!);
  const keys = lineKeys(parsed.lines);
  const found = parsed.lines.map((l) => (l.direction === 'credit' && !l.reversal && isBooked(l) ? findReference(l.structuredReferences, l.remittance) : null));
  parentPort!.postMessage({ ok: { parsed, keys, found } });
} catch (err) {
  parentPort!.postMessage(
    err instanceof AppError
      ? { refused: { kind: err.kind, detail: err.message, errors: err.errors, extensions: err.extensions } }
      : { failed: String((err as Error)?.stack ?? err) },
  );
}
