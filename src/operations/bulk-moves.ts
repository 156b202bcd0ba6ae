// Bulk moves (POST /deals/deal/{dealId}/jump-to-step/bulk) and dry runs of moves. Every move goes
// through jumpToStep, the one operation that applies the jump rules; this file only decides which
// transaction each move runs in and collects the outcomes.
//
// - Not atomic (the default): each move is its own transaction, exactly as a single request, so no
//   lock is held longer than one move needs and the deal's other moves keep flowing. Investors of a
//   batch are distinct, so moves run on a few pooled connections side by side.
// - Atomic: every move in one transaction, in request order; the first refusal rolls back all.
// - Dry run: the same, in transactions that are always rolled back (dry-run.ts).
import { AppError, type ErrorKind, type FieldError, invalid, unprocessable } from '../domain/errors.ts';
import type { WorkflowEvent } from '../domain/event.ts';
import type { Principal } from '../domain/principal.ts';
import { type BatchRef, deleteBulkMoveResults, insertBulkMoveResult, listBulkMoveResults } from '../store/bulk-move-results.ts';
import { batchConcurrency, runsConcurrentTransactions } from '../store/database.ts';
import { SQLSTATE, sqlState } from '../store/errors.ts';
import { lockExistingJourneys } from '../store/journey-batches.ts';
import { type Deps, inTransaction } from './deps.ts';
import { rolledBack } from './dry-run.ts';
import { type JumpInput, jumpToStep } from './journeys.ts';

export const MAX_BULK_MOVES = 1000;

/** A refusal as plain data: what a problem document is built from (and what a batch record keeps). */
export interface Refusal {
  kind: ErrorKind;
  detail: string;
  errors?: FieldError[];
  extensions?: Record<string, unknown>;
}

export type MoveResult = { ok: true; event: WorkflowEvent; intermediaryStepIds: string[] } | { ok: false; refusal: Refusal };

export const refusalOf = (err: AppError): Refusal => ({
  kind: err.kind,
  detail: err.message,
  ...(err.errors ? { errors: err.errors } : {}),
  ...(err.extensions ? { extensions: err.extensions } : {}),
});

export const errorOf = (refusal: Refusal) =>
  new AppError(refusal.kind, refusal.detail, {
    ...(refusal.errors ? { errors: refusal.errors } : {}),
    ...(refusal.extensions ? { extensions: refusal.extensions } : {}),
  });

/** What a client may be told per move; anything else (a bug, a lost database) fails the request. */
const isRefusal = (err: unknown): err is AppError => err instanceof AppError && err.kind !== 'internal' && err.kind !== 'database-unavailable';

/** One move through jumpToStep, its refusal caught as a result. */
export async function attemptMove(deps: Deps, principal: Principal, dealId: string, move: JumpInput): Promise<MoveResult> {
  let intermediaryStepIds: string[] = [];
  try {
    const event = await jumpToStep(deps, principal, dealId, move, { onPlan: (plan) => (intermediaryStepIds = plan.intermediaryStepIds) });
    return { ok: true, event, intermediaryStepIds };
  } catch (err) {
    if (isRefusal(err)) return { ok: false, refusal: refusalOf(err) };
    throw err;
  }
}

/** Dry run of one move: what jump-to-step would answer now; nothing is written. */
export const dryRunMove = (deps: Deps, principal: Principal, dealId: string, move: JumpInput) =>
  rolledBack(deps, (tx) => attemptMove(tx, principal, dealId, move));

/** 400 naming every investor that appears more than once. */
export function checkDistinctInvestors(moves: readonly Pick<JumpInput, 'investorUserId'>[]): void {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { investorUserId } of moves) (seen.has(investorUserId) ? duplicates : seen).add(investorUserId);
  if (duplicates.size === 0) return;
  throw invalid(
    moves.flatMap((m, i) => (duplicates.has(m.investorUserId) ? [{ in: 'body' as const, field: `moves.${i}.investorUserId`, detail: 'appears more than once in the batch' }] : [])),
    `Each investor may be moved at most once per batch; more than once: ${[...duplicates].join(', ')}`,
  );
}

export interface BulkOptions {
  atomic?: boolean;
  dryRun?: boolean;
  /**
   * An Idempotency-Key's batch (not atomic): each move's outcome is recorded in the move's own
   * transaction and reused on a retry; `complete` is the transaction that stores the response.
   */
  batch?: { ref: BatchRef; complete: Deps };
  /** The moves join `deps.db`, the caller's transaction, one after another (not atomic all the same). */
  joined?: boolean;
}

export { runsConcurrentTransactions };

/**
 * Runs a batch of moves of distinct investors and returns one result per move, in request order.
 * Atomic batches throw a 422 for the first refusal (nothing applied). `deps.db` must not be a
 * transaction unless the batch is atomic (then the moves join it).
 */
export async function bulkJump(deps: Deps, principal: Principal, dealId: string, moves: readonly JumpInput[], options: BulkOptions = {}): Promise<MoveResult[]> {
  checkDistinctInvestors(moves);
  if (options.atomic) {
    const all = (tx: Deps) => atomically(tx, principal, dealId, moves);
    return options.dryRun ? rolledBack(deps, all) : inTransaction(deps, all);
  }
  const recorded = options.batch ? await listBulkMoveResults(deps.db, options.batch.ref) : new Map<number, unknown>();
  if (options.joined) {
    const results: MoveResult[] = [];
    for (const move of moves) results.push(await attemptMove(deps, principal, dealId, move));
    return results;
  }
  // Moves of one batch run side by side on PostgreSQL, each on its own pooled connection.
  const concurrency = batchConcurrency(deps.db);
  const results = await inParallel(moves, concurrency, (move, index) => retryOnDeadlock(async () => {
    if (options.dryRun) return dryRunMove(deps, principal, dealId, move);
    if (recorded.has(index)) return recorded.get(index) as MoveResult;
    const batch = options.batch;
    if (!batch) return attemptMove(deps, principal, dealId, move);
    return inTransaction(deps, async (tx) => {
      const result = await attemptMove(tx, principal, dealId, move);
      await insertBulkMoveResult(tx.db, batch.ref, index, result, tx.clock());
      return result;
    });
  }));
  if (options.batch) await deleteBulkMoveResults(options.batch.complete.db, options.batch.ref);
  return results;
}

/**
 * A move is one transaction, so PostgreSQL's deadlock victim (an atomic batch holding the deal's
 * outbox counter while it locks the next investor) has written nothing: run it again.
 */
async function retryOnDeadlock<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= 3 || sqlState(err) !== SQLSTATE.deadlockDetected) throw err;
    }
  }
}

async function atomically(tx: Deps, principal: Principal, dealId: string, moves: readonly JumpInput[]): Promise<MoveResult[]> {
  // Lock the batch's journeys up front, in one order: the moves then never wait for a journey
  // while holding the deal's outbox counter, which single moves take after their journey.
  await lockExistingJourneys(tx.db, dealId, moves.map((m) => m.investorUserId));
  const results: MoveResult[] = [];
  for (const [index, move] of moves.entries()) {
    let result: MoveResult;
    try {
      result = await attemptMove(tx, principal, dealId, move);
    } catch (err) {
      // Two atomic batches locking the same investors in different orders: PostgreSQL aborts one.
      if (sqlState(err) === SQLSTATE.deadlockDetected) {
        throw new AppError('conflict', 'Another batch was moving the same investors; nothing was applied, retry', { extensions: { retryable: true } });
      }
      throw err;
    }
    if (!result.ok) {
      throw unprocessable(`Move ${index + 1} of ${moves.length} (investor ${JSON.stringify(move.investorUserId)}) was refused, so no move of the batch was applied: ${result.refusal.detail}`, {
        moveIndex: index,
        investorUserId: move.investorUserId,
        refusal: result.refusal,
      });
    }
    results.push(result);
  }
  return results;
}

/** Maps `items` through `work` with at most `limit` running at once; results in input order. */
async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]!, index);
      } catch (err) {
        failed = true; // stop taking new items; the others finish their current one
        throw err;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const rejected = settled.find((s) => s.status === 'rejected');
  if (rejected) throw (rejected as PromiseRejectedResult).reason;
  return results;
}
