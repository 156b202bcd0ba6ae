// Imports: investors into the directory, and moves of a deal. Rows arrive as an async stream
// (parsed by the caller: CSV or NDJSON over HTTP, a file in the CLI) and are handled in batches, so
// memory stays flat in the file's size; each batch yields its rows' reports in file order.
//
// Re-running a file changes nothing: an investor row equal to the stored entry is `unchanged` (not
// written), and a move whose investor already stands at the target with the same data as their
// latest event is `unchanged` (not refused as a move to the current step).
import { type FieldError, forbidden } from '../domain/errors.ts';
import type { Investor } from '../domain/investor.ts';
import type { Principal } from '../domain/principal.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { batchConcurrency } from '../store/database.ts';
import { findInvestors, upsertInvestors } from '../store/investor-batches.ts';
import { findLatestMoves } from '../store/move-imports.ts';
import { bulkJump, type Refusal } from './bulk-moves.ts';
import { type Deps, inTransaction } from './deps.ts';
import type { JumpInput } from './journeys.ts';

export const IMPORT_BATCH = 500;

/**
 * On the embedded database (one connection, whose lock is not fair), a pause after each batch so
 * that requests waiting for the connection get it before the import takes it again.
 */
const letOthersIn = () => sleep(5);

export const importOutcomes = ['created', 'updated', 'unchanged', 'refused'] as const;
export type ImportOutcome = (typeof importOutcomes)[number];

export interface RowReport {
  /** 1 for the first data row (the line after a CSV header, the first NDJSON line). */
  row: number;
  id: string | null;
  outcome: ImportOutcome;
  /** Refused investor rows: the fields at fault. */
  errors?: FieldError[];
  /** Refused moves: the problem a single move would get. */
  refusal?: Refusal;
  /** Applied moves: the new event's id. */
  eventId?: string;
}

/**
 * A row read from a file; `onto`, when given, builds the entry for an investor already stored (a
 * file read through a column map keeps what its columns do not carry).
 */
export type InvestorRow = { row: number; id: string | undefined } & ({ investor: Investor; onto?: (stored: Investor) => Investor } | { errors: FieldError[] });

/** Canonical JSON (keys sorted at every level): two investors are the same entry when equal. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`
      : JSON.stringify(value);

async function* batches<T>(rows: AsyncIterable<T>, keyOf: (row: T) => string | undefined): AsyncGenerator<T[]> {
  let batch: T[] = [];
  let keys = new Set<string>();
  for await (const row of rows) {
    const key = keyOf(row);
    // A key seen twice in one batch: finish the batch first, so the later row sees the earlier.
    if (batch.length >= IMPORT_BATCH || (key !== undefined && keys.has(key))) {
      yield batch;
      batch = [];
      keys = new Set();
    }
    batch.push(row);
    if (key !== undefined) keys.add(key);
  }
  if (batch.length > 0) yield batch;
}

/** Upserts investors from `rows`; with `dryRun` compares only. One transaction per batch. */
export async function* importInvestors(deps: Deps, principal: Principal, rows: AsyncIterable<InvestorRow>, options: { dryRun?: boolean } = {}): AsyncGenerator<RowReport> {
  if (principal.role !== 'admin') throw forbidden('Only staff import investors');
  const shared = batchConcurrency(deps.db) === 1;
  for await (const batch of batches(rows, (r) => ('investor' in r ? r.id : undefined))) {
    const reports = await inTransaction(deps, async (tx) => {
      const valid = batch.flatMap((r) => ('investor' in r ? [r] : []));
      const stored = await findInvestors(tx.db, valid.map((r) => r.investor.id));
      const changed: Investor[] = [];
      const reports = batch.map((r): RowReport => {
        if (!('investor' in r)) return { row: r.row, id: r.id ?? null, outcome: 'refused', errors: r.errors };
        const before = stored.get(r.investor.id);
        const investor = before && r.onto ? r.onto(before) : r.investor;
        if (before && canonical(before) === canonical(investor)) return { row: r.row, id: investor.id, outcome: 'unchanged' };
        changed.push(investor);
        return { row: r.row, id: investor.id, outcome: before ? 'updated' : 'created' };
      });
      if (!options.dryRun) await upsertInvestors(tx.db, changed, tx.clock());
      return reports;
    });
    yield* reports;
    if (shared) await letOthersIn();
  }
}

export type MoveRow = { row: number; move: JumpInput } | { row: number; investorUserId: string | undefined; errors: FieldError[] };

/** Applies moves from `rows` in bulk batches (the bulk rules: each move its own transaction). */
export async function* importMoves(deps: Deps, principal: Principal, dealId: string, rows: AsyncIterable<MoveRow>, options: { dryRun?: boolean } = {}): AsyncGenerator<RowReport> {
  if (principal.role !== 'admin') throw forbidden('Only staff move investors');
  const shared = batchConcurrency(deps.db) === 1;
  // One batch for the whole file, so the import can be undone as one action.
  const tag = { id: deps.newId(), kind: 'import' as const };
  for await (const batch of batches(rows, (r) => ('move' in r ? r.move.investorUserId : undefined))) {
    const moves = batch.flatMap((r) => ('move' in r ? [r.move] : []));
    const latest = await findLatestMoves(deps.db, dealId, moves.map((m) => m.investorUserId));
    const isDone = (m: JumpInput) => {
      const last = latest.get(m.investorUserId);
      return last !== undefined && last.toStepId === m.targetStepId && canonical(last.data) === canonical(m.data);
    };
    const toApply = moves.filter((m) => !isDone(m));
    const results = new Map((await (toApply.length > 0 ? bulkJump(deps, principal, dealId, toApply, { ...options, tag }) : [])).map((r, i) => [toApply[i]!.investorUserId, r]));
    for (const r of batch) {
      if (!('move' in r)) {
        yield { row: r.row, id: r.investorUserId ?? null, outcome: 'refused', errors: r.errors };
        continue;
      }
      const result = results.get(r.move.investorUserId);
      if (!result) yield { row: r.row, id: r.move.investorUserId, outcome: 'unchanged' };
      else if (result.ok) yield { row: r.row, id: r.move.investorUserId, outcome: 'created', eventId: result.event.id };
      else yield { row: r.row, id: r.move.investorUserId, outcome: 'refused', refusal: result.refusal };
    }
    if (shared) await letOthersIn();
  }
}

export interface ImportSummary {
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  refused: number;
}

export const emptySummary = (): ImportSummary => ({ rows: 0, created: 0, updated: 0, unchanged: 0, refused: 0 });

export function count(summary: ImportSummary, report: RowReport) {
  summary.rows++;
  summary[report.outcome]++;
}

