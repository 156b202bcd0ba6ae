// Imports: investors into the directory, and moves of a deal. Rows arrive as an async stream
// (parsed by the caller: CSV or NDJSON over HTTP, a file in the CLI) and are handled in batches, so
// memory stays flat in the file's size; each batch yields its rows' reports in file order.
//
// Re-running a file changes nothing: an investor row equal to the stored entry is `unchanged` (not
// written), and a move whose investor already stands at the target with the same data as their
// latest event is `unchanged` (not refused as a move to the current step).
import { screenInvestors } from './sanctions.ts';
import { type FieldError, forbidden } from '../domain/errors.ts';
import type { Investor } from '../domain/investor.ts';
import { isStaff, type Principal } from '../domain/principal.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { findInvestors, upsertInvestors } from '../store/investor-batches.ts';
import { findLatestMoves } from '../store/move-imports.ts';
import { bulkMove, type Refusal } from './bulk-moves.ts';
import { type Deps, inTransaction } from './deps.ts';
import { engineOf, inOneTransaction } from './pipeline.ts';
import type { BatchTag, MoveInput } from './apply-moves.ts';
import { rolledBack } from './dry-run.ts';

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
  /** Applied moves, and investor rows placed in a step: the new event's id. */
  eventId?: string;
  /** Investor rows of an import that places them in a step: placed (eventId), or already there with the same data. */
  placement?: 'placed' | 'unchanged';
  /** Investor rows whose e-mail is on other rows of the file: all those rows (duplicates.ts). */
  duplicateRows?: number[];
}

/**
 * A row read from a file; `onto`, when given, builds the entry for an investor already stored (a
 * file read through a column map keeps what its columns do not carry). `data`: the row's values for
 * the placement step's fields.
 */
export type InvestorRow = { row: number; id: string | undefined; duplicateRows?: number[] } & (
  | { investor: Investor; onto?: (stored: Investor) => Investor; data?: Record<string, string> }
  | { errors: FieldError[] }
  /** A row of an e-mail whose other row counts (duplicates.ts): nothing is written for it. */
  | { duplicate: true }
);

/** Canonical JSON (keys sorted at every level): two investors are the same entry when equal. */
export const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
          .join(',')}}`
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

/** Where an investor import places its rows: a step of a deal, with the fields its rows give. */
export interface Placement {
  dealId: string;
  stepId: string;
}

/**
 * Upserts investors from `rows`; with `dryRun` compares only. One transaction per batch. With a
 * `placement` each row is also moved to the step, together or not at all (placed-imports.ts).
 */
export async function* importInvestors(
  deps: Deps,
  principal: Principal,
  rows: AsyncIterable<InvestorRow>,
  options: { dryRun?: boolean; placement?: Placement } = {},
): AsyncGenerator<RowReport> {
  if (!isStaff(principal)) throw forbidden('Only staff import investors');
  const shared = engineOf(deps).batchConcurrency === 1;
  const tag = { id: deps.newId(), kind: 'import' as const };
  for await (const batch of batches(rows, (r) => ('investor' in r ? r.id : undefined))) {
    const reports = options.placement
      ? await placeBatch(deps, principal, batch, options.placement, { dryRun: options.dryRun === true, tag })
      : await inTransaction(deps, async (tx) => (await upsertBatch(tx, batch, options.dryRun === true)).reports);
    yield* reports;
    if (shared) await letOthersIn();
  }
}

/** A batch's rows as the directory would take them: the reports, and the investors to write. */
export async function upsertBatch(tx: Deps, batch: readonly InvestorRow[], dryRun: boolean): Promise<{ reports: RowReport[]; changed: Investor[] }> {
  const valid = batch.flatMap((r) => ('investor' in r ? [r] : []));
  const stored = await findInvestors(
    tx.db,
    valid.map((r) => r.investor.id),
  );
  const changed: Investor[] = [];
  const reports = batch.map((r): RowReport => {
    const duplicates = r.duplicateRows ? { duplicateRows: r.duplicateRows } : {};
    if ('duplicate' in r) return { row: r.row, id: r.id ?? null, outcome: 'unchanged', ...duplicates };
    if (!('investor' in r)) return { row: r.row, id: r.id ?? null, outcome: 'refused', errors: r.errors, ...duplicates };
    const before = stored.get(r.investor.id);
    const investor = before && r.onto ? r.onto(before) : r.investor;
    if (before && canonical(before) === canonical(investor)) return { row: r.row, id: investor.id, outcome: 'unchanged', ...duplicates };
    changed.push(investor);
    return { row: r.row, id: investor.id, outcome: before ? 'updated' : 'created', ...duplicates };
  });
  if (!dryRun) await upsertInvestors(tx.db, changed, tx.clock());
  if (!dryRun && changed.length > 0)
    await screenInvestors(
      tx,
      changed.map((i) => i.id),
    );
  return { reports, changed };
}

/** Rolls back an attempt at a placed batch: these rows' moves were refused. */
class RefusedRows extends Error {
  readonly refusals: Map<number, Refusal>;
  constructor(refusals: Map<number, Refusal>) {
    super('placed import: rows refused, batch rolled back');
    this.refusals = refusals;
  }
}

/** A move's refusal with the values the row gave for the fields it names ("data.amount: … (the row gives "25.000,00")"). */
const withValues = (refusal: Refusal, data: Record<string, string>): Refusal => {
  if (!refusal.errors) return refusal;
  return {
    ...refusal,
    errors: refusal.errors.map((e) => {
      const value = e.field.startsWith('data.') ? data[e.field.slice('data.'.length)] : undefined;
      return value === undefined ? e : { ...e, detail: `${e.detail} (the row gives ${JSON.stringify(value)})` };
    }),
  };
};

/**
 * A batch of investor rows, each written to the directory and moved to the placement's step
 * together or not at all. The batch runs in one transaction: the investors are written, then their
 * moves are applied (applyMoves, the one path of every move); when a move is refused the
 * transaction is rolled back and run again without the refused rows, which are reported with the
 * move's refusal. A dry run is the same transaction, always rolled back, so it refuses exactly the
 * rows the import refuses.
 */
async function placeBatch(
  deps: Deps,
  principal: Principal,
  batch: readonly InvestorRow[],
  placement: Placement,
  options: { dryRun: boolean; tag: BatchTag },
): Promise<RowReport[]> {
  const excluded = new Map<number, Refusal>();
  for (;;) {
    const attempt = async (tx: Deps): Promise<RowReport[]> => {
      const kept = batch.filter((r) => !excluded.has(r.row));
      const { reports } = await upsertBatch(tx, kept, false);
      const moves = kept.flatMap((r) =>
        'investor' in r ? [{ row: r.row, move: { investorUserId: r.investor.id, targetStepId: placement.stepId, data: r.data ?? {} } }] : [],
      );
      const latest = await findLatestMoves(
        tx.db,
        placement.dealId,
        moves.map((m) => m.move.investorUserId),
      );
      const toApply = moves.filter(({ move }) => {
        const last = latest.get(move.investorUserId);
        return !(last !== undefined && last.toStepId === move.targetStepId && canonical(last.data) === canonical(move.data));
      });
      const results =
        toApply.length > 0
          ? await bulkMove(
              tx,
              principal,
              placement.dealId,
              toApply.map((m) => m.move),
              { joined: true, tag: options.tag },
            )
          : [];
      const events = new Map<number, string>();
      const refusals = new Map<number, Refusal>();
      results.forEach((result, i) => {
        const { row, move } = toApply[i]!;
        if (result.ok) events.set(row, result.event.id);
        else refusals.set(row, withValues(result.refusal, move.data));
      });
      if (refusals.size > 0 && !options.dryRun) throw new RefusedRows(refusals);
      const byRow = new Map(reports.map((r) => [r.row, r]));
      const placed = new Set(moves.map((m) => m.row));
      return batch.map((r): RowReport => {
        const refusal = excluded.get(r.row) ?? refusals.get(r.row);
        const report = byRow.get(r.row)!;
        if (refusal)
          return { row: r.row, id: report?.id ?? r.id ?? null, outcome: 'refused', refusal, ...(r.duplicateRows ? { duplicateRows: r.duplicateRows } : {}) };
        if (!placed.has(r.row)) return report;
        const eventId = events.get(r.row);
        return eventId ? { ...report, placement: 'placed', eventId } : { ...report, placement: 'unchanged' };
      });
    };
    try {
      return options.dryRun ? await rolledBack(deps, attempt) : await inOneTransaction(attempt)(deps);
    } catch (err) {
      if (!(err instanceof RefusedRows)) throw err;
      for (const [row, refusal] of err.refusals) excluded.set(row, refusal);
    }
  }
}

export type MoveRow = { row: number; move: MoveInput } | { row: number; investorUserId: string | undefined; errors: FieldError[] };

/** Applies moves from `rows` in bulk batches (the bulk rules: each move its own transaction). */
export async function* importMoves(
  deps: Deps,
  principal: Principal,
  dealId: string,
  rows: AsyncIterable<MoveRow>,
  options: { dryRun?: boolean } = {},
): AsyncGenerator<RowReport> {
  if (!isStaff(principal)) throw forbidden('Only staff move investors');
  const shared = engineOf(deps).batchConcurrency === 1;
  // One batch for the whole file, so the import can be undone as one action.
  const tag = { id: deps.newId(), kind: 'import' as const };
  for await (const batch of batches(rows, (r) => ('move' in r ? r.move.investorUserId : undefined))) {
    const moves = batch.flatMap((r) => ('move' in r ? [r.move] : []));
    const latest = await findLatestMoves(
      deps.db,
      dealId,
      moves.map((m) => m.investorUserId),
    );
    const isDone = (m: MoveInput) => {
      const last = latest.get(m.investorUserId);
      return last !== undefined && last.toStepId === m.targetStepId && canonical(last.data) === canonical(m.data);
    };
    const toApply = moves.filter((m) => !isDone(m));
    const results = new Map(
      (await (toApply.length > 0 ? bulkMove(deps, principal, dealId, toApply, { ...options, tag }) : [])).map((r, i) => [toApply[i]!.investorUserId, r]),
    );
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
  /** An import that places investors: rows placed in the step (or already there). */
  placed?: number;
  /** Rows whose e-mail is on another row of the file. */
  duplicates?: number;
}

export const emptySummary = (): ImportSummary => ({ rows: 0, created: 0, updated: 0, unchanged: 0, refused: 0 });

export function count(summary: ImportSummary, report: RowReport) {
  summary.rows++;
  summary[report.outcome]++;
  if (report.placement) summary.placed = (summary.placed ?? 0) + 1;
  if (report.duplicateRows) summary.duplicates = (summary.duplicates ?? 0) + 1;
}
