// Importing a bank statement (POST /payments/statements, `dealflow reconcile`). Contract:
// - the statement is parsed whole (camt.053/054 or CSV; malformed → 400, nothing stored);
// - the same file again changes nothing (payment_statements.content_sha256), and a line already on
//   file from another statement is not stored again (payment_lines.line_key);
// - the statement and then its new lines are stored, a chunk of lines per transaction (so that the
//   embedded database serves other requests meanwhile); the statement reads as complete
//   (new_line_count set) once its last chunk commits, and an import of the same file that finds it
//   incomplete stores the lines still missing; debits, reversals and entries
//   that are not booked (camt Sts PDNG, INFO…) are kept (status ignored), credits without a valid reference or with an unknown one are queued;
//   and the queued lines' payment.queued entries are written a chunk of lines per statement;
// - then its pending lines are matched (payment-matching.ts).
// A process that dies between storing and matching leaves lines `pending`; importing the file
// again finishes them.
import { AppError } from '../domain/errors.ts';
import { createHash } from 'node:crypto';
import { parseCamt } from '../domain/camt.ts';
import { isBooked, type ParsedStatement } from '../domain/payment-line.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import { type CsvOptions, parseCsvStatement } from '../domain/statement-csv.ts';
import { appendOutboxMany } from '../store/outbox.ts';
import { recordImportDecisions } from '../store/payment-decisions.ts';
import { insertLines, type NewLine, type PaymentLine, statementLines } from '../store/payment-lines.ts';
import { countStatementLines, findStatementBySha, insertStatement, resolveReferences, setNewLineCount, type StoredStatement } from '../store/statements.ts';
import { letOthersIn } from './concurrency.ts';
import { type Deps, inTransaction } from './deps.ts';
import { engineOf } from './pipeline.ts';
import type { JobProgress } from './import-jobs.ts';
import { paymentQueuedEntry } from './payment-events.ts';
import { MATCH_BATCH, matchPendingLines } from './payment-matching.ts';
import { type ReadStatement, readStatement } from './statement-parse.ts';

export type StatementInput = { kind: 'xml'; text: string } | { kind: 'csv'; text: string; csv: CsvOptions };

export interface ImportResult {
  statement: StoredStatement;
  /** True when this file was imported before: nothing changed (beyond finishing pending lines). */
  duplicate: boolean;
  /** This statement's lines by outcome and by status. */
  outcomes: Record<string, number>;
  statuses: Record<string, number>;
}

export function parseStatement(input: StatementInput): ParsedStatement {
  return input.kind === 'xml' ? parseCamt(input.text) : parseCsvStatement(input.text, input.csv);
}

export interface ImportOptions {
  /** Batches matched at once (PostgreSQL); default batchConcurrency. */
  concurrency?: number;
  /** Investors per batch; default MATCH_BATCH. */
  batchSize?: number;
  /** Told what the import is doing (an import job's progress). */
  onProgress?: (progress: JobProgress) => void;
}

export async function importStatement(deps: Deps, principal: Principal, input: StatementInput, options: ImportOptions = {}): Promise<ImportResult> {
  const progress = options.onProgress ?? (() => {});
  progress({ stage: 'parsing', done: 0, total: null });
  // Parsed off the event loop when big (statement-parse.ts): the instance answers meanwhile.
  const { parsed, keys, found } = await readStatement(input.kind, input.text, input.kind === 'csv' ? input.csv : undefined);
  // Nothing to import is a mistake to report (a header alone, the wrong file), not an empty statement to keep.
  if (parsed.lines.length === 0) {
    const detail = `The statement has no lines (no ${input.kind === 'csv' ? 'row under the CSV header' : 'Ntry in the camt document'}): nothing to import`;
    throw new AppError('validation', detail, { errors: [{ in: 'body', field: 'statement', detail }] });
  }
  const sha256 = createHash('sha256').update(input.text).digest('hex');
  progress({ stage: 'storing', done: 0, total: parsed.lines.length });
  const lines = await linesToStore(deps, { parsed, keys, found });

  const at = deps.clock();
  const row = {
    id: deps.newId(),
    sha256,
    format: parsed.format,
    messageId: parsed.messageId,
    lineCount: lines.length,
    importedBy: actorOf(principal),
    importedAt: at,
  };
  const { statement, inserted, fresh } = await storeStatement(deps, principal, row, lines, progress);

  // A file imported before: its lines still pending (a process that died, an import running now).
  const pending = inserted ? fresh.filter((l) => l.status === 'pending') : await statementLines(deps.db, statement.id, 'pending');
  progress({ stage: 'matching', done: 0, total: parsed.lines.length });
  await matchPendingLines(deps, pending, { concurrency: options.concurrency ?? engineOf(deps).batchConcurrency, batchSize: options.batchSize ?? MATCH_BATCH });
  progress({ stage: 'done', done: parsed.lines.length, total: parsed.lines.length });
  const counts = await countStatementLines(deps.db, statement.id);
  const { outcomes, statuses } = tally(counts);
  // A duplicate: the file was on file before, and this import stored none of its lines.
  const duplicate = !inserted && fresh.length === 0;
  return { statement, duplicate, outcomes, statuses };
}

/**
 * The statement's lines as they are to be stored: what each is (a credit to match, a reversal, a
 * debit, an entry not booked) and, for a credit, the journey its reference names, or why it is queued.
 */
async function linesToStore(deps: Deps, { parsed, keys, found }: ReadStatement): Promise<NewLine[]> {
  const resolved = await resolveReferences(deps.db, [...new Set(found.map((f) => f?.reference).filter((r): r is string => !!r))]);
  return parsed.lines.map((line, i) => {
    const base = { ...line, id: deps.newId(), key: keys[i]!, reference: null, dealId: null, investorUserId: null, detail: null };
    // Pending or informational entries are not money on the account yet: kept, never matched. The
    // booked entry comes in a later statement under its own key (lineKeys) and is matched then.
    if (!isBooked(line))
      return {
        ...base,
        outcome: 'not-booked',
        status: 'ignored',
        detail: `entry status ${line.entryStatus}: kept, not matched; only booked (BOOK) entries are matched`,
      };
    if (line.reversal) return { ...base, outcome: 'reversal', status: 'pending' };
    if (line.direction === 'debit') return { ...base, outcome: 'debit', status: 'ignored' };
    const { reference, rejected } = found[i]!;
    if (!reference) {
      const detail = rejected.length
        ? `no valid RF reference; check digits fail for ${rejected.join(', ')}`
        : 'no RF reference in the structured or unstructured remittance information';
      return { ...base, outcome: 'no-reference', status: 'queued', detail };
    }
    const journey = resolved.get(reference);
    if (!journey) return { ...base, reference, outcome: 'unknown-reference', status: 'queued', detail: `${reference} is no investor's payment reference` };
    return { ...base, reference, ...journey, outcome: null, status: 'pending' };
  });
}

/**
 * Stores the statement and its lines in chunks of lines, one transaction each, with the decisions of
 * those decided at import and the queued lines' payment.queued entries; returns the statement,
 * whether this import created it, and the lines this import stored, in statement order.
 *
 * The statement row commits with its first chunk, and reads as complete (new_line_count, -1 until
 * then) from the transaction of its last: an import of the same file at the same time waits on the
 * row's content key until the first chunk has committed, then stores only what is still missing
 * (line keys make the rest no-ops), and finds a statement of one chunk complete, a duplicate. An
 * import that finds the statement incomplete (its process stopped mid-way) stores the lines missing.
 */
async function storeStatement(
  deps: Deps,
  principal: Principal,
  row: Parameters<typeof insertStatement>[1],
  lines: readonly NewLine[],
  progress: (p: JobProgress) => void,
): Promise<{ statement: StoredStatement; inserted: boolean; fresh: PaymentLine[] }> {
  const shared = engineOf(deps).batchConcurrency === 1;
  const size = shared ? SHARED_STORE_CHUNK : STORE_CHUNK;
  let statement: StoredStatement | undefined;
  let inserted = false;
  let fresh: PaymentLine[] = [];
  for (let i = 0; i === 0 || i < lines.length; i += size) {
    const chunk = lines.slice(i, i + size);
    const last = i + size >= lines.length;
    const step = await inTransaction(deps, async (tx) => {
      let current = statement;
      let created = inserted;
      if (!current) {
        const made = await insertStatement(tx.db, row);
        created = made !== undefined;
        current = made ?? (await findStatementBySha(tx.db, row.sha256));
        if (!current) throw new Error('a statement that conflicted on its content is not on file');
        if (!created && current.newLineCount >= 0) return { statement: current, created, rows: [] as PaymentLine[], complete: true };
      }
      // The lines as stored (in statement order), to announce the queued ones and match the pending.
      const rows = await insertLines(tx.db, current.id, chunk, row.importedAt);
      await recordImportDecisions(
        tx.db,
        rows.filter((l) => l.status !== 'pending').map((l) => l.id),
        actorOf(principal),
        row.importedAt,
      );
      // The queued lines' payment.queued entries, a chunk of lines per statement.
      const queued = rows.filter((l) => l.status === 'queued');
      for (let q = 0; q < queued.length; q += QUEUED_CHUNK) {
        await appendOutboxMany(
          tx.db,
          queued.slice(q, q + QUEUED_CHUNK).map((line) => paymentQueuedEntry(tx, { line })),
        );
      }
      if (last) {
        // Counted rather than taken from this import's chunks: another import of the file may have stored some.
        const newLineCount = Object.values(await countStatementLines(tx.db, current.id)).reduce((a, n) => a + n, 0);
        await setNewLineCount(tx.db, current.id, newLineCount);
        current = { ...current, newLineCount };
      }
      return { statement: current, created, rows, complete: last };
    });
    statement = step.statement;
    inserted = step.created;
    fresh = fresh.concat(step.rows);
    progress({ stage: 'storing', done: Math.min(i + size, lines.length), total: lines.length });
    if (step.complete) break;
    if (shared) await letOthersIn();
  }
  return { statement: statement!, inserted, fresh };
}

/** Line counts keyed `outcome/status` (countStatementLines), summed by outcome and by status. */
function tally(counts: Record<string, number>): { outcomes: Record<string, number>; statuses: Record<string, number> } {
  const outcomes: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  for (const [key, n] of Object.entries(counts)) {
    const [outcome, status] = key.split('/') as [string, string];
    outcomes[outcome] = (outcomes[outcome] ?? 0) + n;
    statuses[status] = (statuses[status] ?? 0) + n;
  }
  return { outcomes, statuses };
}

/** Lines stored per transaction at import. */
const STORE_CHUNK = 2000;
/**
 * On the embedded database, whose one connection a transaction holds whole, fewer (about a
 * tenth of a second of work each), and a pause after each transaction of an import (letOthersIn,
 * concurrency.ts): a request that waited for the connection gets it and finishes its few
 * statements before the import takes the connection again (the connection's lock is not fair:
 * without the pause the import, ready first, would take it back after each of them).
 */
const SHARED_STORE_CHUNK = 100;
/** Queued lines per statement of payment.queued entries at import. */
const QUEUED_CHUNK = 500;
