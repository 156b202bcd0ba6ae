// Bulk moves (POST /deals/deal/{dealId}/jump-to-step/bulk) and dry runs of moves. Every move goes
// through applyMoves (operations/apply-moves.ts), the one code path that applies the jump rules; this
// file only decides which transaction each move runs in and collects the outcomes. `moveInBulk` is
// the write as the pipeline runs it (pipeline.ts): dry run, or idempotently with the transactions
// the engine allows.
//
// - Not atomic (the default): the moves are cut into chunks of CHUNK_SIZE, each chunk one
//   transaction of two statements whatever its size (load and lock its journeys, write its
//   moves), and a few chunks run side by side on pooled connections. A refused move writes nothing
//   and does not stop its chunk, so each investor's move is applied whole or not at all, exactly as
//   a single request; a lock is held only for its chunk's transaction (milliseconds), never across
//   the batch, and the deal's other moves keep flowing.
// - Atomic: every move in one transaction; the first refusal rolls back all.
// - Dry run: the same, in transactions that are always rolled back (dry-run.ts).
import Big from 'big.js';
import { AppError, type ErrorKind, type FieldError, forbidden, invalid, unprocessable } from '../domain/errors.ts';
import type { WorkflowEvent } from '../domain/event.ts';
import { isStaff, type Principal } from '../domain/principal.ts';
import { type BatchRef, deleteBulkMoveResults, insertBulkMoveResults, listBulkMoveResults } from '../store/bulk-move-results.ts';
import { isDeadlock, retryAborted } from '../store/errors.ts';
import { type Deps, inTransaction } from './deps.ts';
import { rolledBack } from './dry-run.ts';
import { applyMoves, type BatchTag, type MoveInput } from './apply-moves.ts';
import { type Answer, answered, encoded, engineOf, idempotently, isRefusal, type WriteRequest, writeOutcome } from './pipeline.ts';
import { batchCommitment, bulkMoveNeedsSecondPerson } from '../domain/four-eyes.ts';
import { capturedCommitments, journeyPositions } from '../store/approvals.ts';
import { bulkMoveRule } from './four-eyes.ts';
import { propose } from './proposals.ts';

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

/** Moves per transaction of a batch that is not atomic (measured: docs/benchmarks.md, "Bulk moves, imports and exports"). */
export const CHUNK_SIZE = 50;

/** Moves through applyMoves in the caller's transaction, refusals as results. */
async function applyChunk(tx: Deps, principal: Principal, dealId: string, moves: readonly MoveInput[], tag?: BatchTag): Promise<MoveResult[]> {
  const outcomes = await applyMoves(
    tx,
    principal,
    dealId,
    moves.map((input) => ({ input, ...(tag ? { record: { batch: tag } } : {}) })),
  );
  return outcomes.map((o) => {
    if (o.ok) return { ok: true, event: o.event, intermediaryStepIds: o.plan.intermediaryStepIds };
    if (isRefusal(o.error)) return { ok: false, refusal: refusalOf(o.error) };
    throw o.error;
  });
}

/** Dry run of one move: what jump-to-step would answer now; nothing is written. */
export async function dryRunMove(deps: Deps, principal: Principal, dealId: string, move: MoveInput): Promise<MoveResult> {
  return (await rolledBack(deps, (tx) => applyChunk(tx, principal, dealId, [move])))[0]!;
}

/** 400 naming every investor that appears more than once. */
export function checkDistinctInvestors(moves: readonly Pick<MoveInput, 'investorUserId'>[]): void {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { investorUserId } of moves) (seen.has(investorUserId) ? duplicates : seen).add(investorUserId);
  if (duplicates.size === 0) return;
  throw invalid(
    moves.flatMap((m, i) =>
      duplicates.has(m.investorUserId) ? [{ in: 'body' as const, field: `moves.${i}.investorUserId`, detail: 'appears more than once in the batch' }] : [],
    ),
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
  /** The batch the moves' events belong to, for an undo of them all (default: a new bulk-move batch). */
  tag?: BatchTag;
}

/** A bulk request's answer: one result per move, and (not in a dry run) the batch they belong to. */
export interface BulkAnswer {
  results: MoveResult[];
  batchId?: string;
  dryRun: boolean;
}

/**
 * The bulk move as a write (POST …/jump-to-step/bulk): a dry run answers at once; otherwise the
 * batch runs idempotently, in the transactions that fit. Atomic: all in one (the key's, when it
 * has one). Not atomic: chunks of their own, except with a key on an engine of one connection
 * (PGlite), where they join the key's transaction; with a key on PostgreSQL the chunks commit on
 * their own connections, each recording its outcomes for a retry, and the key's transaction
 * stores the answer. A batch of at least the deal's four-eyes number of investors, or whose
 * commitments add up to its four-eyes amount, is held for a second person instead (202 with the
 * proposal, docs/reference/approvals.md); a dry run never is.
 */
export async function moveInBulk(deps: Deps, request: WriteRequest, dealId: string, moves: readonly MoveInput[], atomic = false): Promise<Answer> {
  const { principal, key } = request;
  if (request.dryRun)
    return answered(request, 200, { results: await bulkMove(deps, principal, dealId, moves, { atomic, dryRun: true }), dryRun: true } satisfies BulkAnswer);
  if (await heldForSecondPerson(deps, dealId, moves)) {
    checkDistinctInvestors(moves);
    if (!isStaff(principal)) throw forbidden('Only staff move investors');
    return writeOutcome(deps, request, async (tx) => ({
      status: 202,
      value: await propose(tx, principal, { action: 'bulk-move', dealId, input: { moves, atomic }, basis: await bulkMoveBasis(tx, dealId, moves) }),
    }));
  }
  const tag: BatchTag = { id: deps.newId(), kind: 'bulk-move' };
  const run = (tx: Deps): Promise<MoveResult[]> => {
    if (atomic) return bulkMove(tx, principal, dealId, moves, { atomic, tag });
    if (!tx.db.isTransaction || !key) return bulkMove(deps, principal, dealId, moves, { tag });
    if (!engineOf(deps).concurrentTransactions) return bulkMove(tx, principal, dealId, moves, { joined: true, tag });
    const batch = { ref: { scope: key.scope, key: key.key, fingerprint: key.fingerprint }, complete: tx };
    return bulkMove(deps, principal, dealId, moves, { batch, tag });
  };
  return idempotently(
    deps,
    request,
    encoded(request, 200, async (tx): Promise<BulkAnswer> => ({ results: await run(tx), batchId: tag.id, dryRun: false })),
  );
}

/** Whether the deal's bulk-move rule holds this batch for a second person (the commitments read only when the rule has an amount). */
async function heldForSecondPerson(deps: Deps, dealId: string, moves: readonly MoveInput[]): Promise<boolean> {
  const rule = await bulkMoveRule(deps, dealId);
  if (rule.fromInvestors === null && rule.fromAmount === null) return false;
  const commitments = rule.fromAmount === null ? undefined : await capturedCommitments(deps.db, dealId, [...new Set(moves.map((m) => m.investorUserId))]);
  const amount = commitments ? batchCommitment(moves, commitments.key, commitments.captured) : new Big(0);
  return bulkMoveNeedsSecondPerson({ count: moves.length, amount }, rule);
}

/** What a held bulk move was checked against: where each of its investors stood (null: not in the workflow yet). */
export async function bulkMoveBasis(tx: Deps, dealId: string, moves: readonly Pick<MoveInput, 'investorUserId'>[]): Promise<Record<string, unknown>> {
  const positions = await journeyPositions(
    tx.db,
    dealId,
    moves.map((m) => m.investorUserId),
  );
  return Object.fromEntries(moves.map((m) => [`step of ${m.investorUserId}`, positions.get(m.investorUserId) ?? null]));
}

/**
 * Runs a batch of moves of distinct investors and returns one result per move, in request order.
 * Atomic batches throw a 422 for the first refusal (nothing applied). `deps.db` must not be a
 * transaction unless the batch is atomic or joined (then the moves join it).
 */
export async function bulkMove(
  deps: Deps,
  principal: Principal,
  dealId: string,
  moves: readonly MoveInput[],
  options: BulkOptions = {},
): Promise<MoveResult[]> {
  checkDistinctInvestors(moves);
  if (!isStaff(principal)) throw forbidden('Only staff move investors');
  const tag: BatchTag = options.tag ?? { id: deps.newId(), kind: 'bulk-move' };
  if (options.atomic) {
    const all = (tx: Deps) => atomically(tx, principal, dealId, moves, tag);
    return options.dryRun ? rolledBack(deps, all) : inTransaction(deps, all);
  }
  const recorded = options.batch ? await listBulkMoveResults(deps.db, options.batch.ref) : new Map<number, unknown>();
  const results = new Array<MoveResult>(moves.length);
  for (const [index, result] of recorded) if (index < moves.length) results[index] = result as MoveResult;
  const pending = moves.flatMap((move, index) => (recorded.has(index) ? [] : [{ move, index }]));
  const chunks: (typeof pending)[] = [];
  for (let i = 0; i < pending.length; i += CHUNK_SIZE) chunks.push(pending.slice(i, i + CHUNK_SIZE));
  const run = async (tx: Deps, chunk: typeof pending) => {
    const outcomes = await applyChunk(
      tx,
      principal,
      dealId,
      chunk.map((c) => c.move),
      tag,
    );
    // With an Idempotency-Key each chunk records its moves' outcomes in its own transaction, so a
    // retry after a crash reuses them instead of moving anyone twice.
    if (options.batch)
      await insertBulkMoveResults(
        tx.db,
        options.batch.ref,
        chunk.map((c, i) => ({ item: c.index, result: outcomes[i] })),
        tx.clock(),
      );
    chunk.forEach((c, i) => {
      results[c.index] = outcomes[i]!;
    });
  };
  if (options.joined) {
    for (const chunk of chunks) await run(deps, chunk);
    return results;
  }
  // Chunks of one batch run side by side on PostgreSQL, each on its own pooled connection.
  await inParallel(chunks, engineOf(deps).batchConcurrency, (chunk) =>
    retryAborted(() => (options.dryRun ? rolledBack(deps, (tx) => run(tx, chunk)) : inTransaction(deps, (tx) => run(tx, chunk)))),
  );
  if (options.batch) await deleteBulkMoveResults(options.batch.complete.db, options.batch.ref);
  return results;
}

async function atomically(tx: Deps, principal: Principal, dealId: string, moves: readonly MoveInput[], tag: BatchTag): Promise<MoveResult[]> {
  let results: MoveResult[];
  try {
    results = await applyChunk(tx, principal, dealId, moves, tag);
  } catch (err) {
    // Two writers locking the same investors in different orders: PostgreSQL aborts one.
    if (isDeadlock(err)) {
      throw new AppError('conflict', 'Another batch was moving the same investors; nothing was applied, retry', { extensions: { retryable: true } });
    }
    throw err;
  }
  const index = results.findIndex((r) => !r.ok);
  const refused = results[index];
  if (refused && !refused.ok) {
    const move = moves[index]!;
    throw unprocessable(
      `Move ${index + 1} of ${moves.length} (investor ${JSON.stringify(move.investorUserId)}) was refused, so no move of the batch was applied: ${refused.refusal.detail}`,
      {
        moveIndex: index,
        investorUserId: move.investorUserId,
        refusal: errorOf(refused.refusal), // the edge shows it as the problem document a single move would get
      },
    );
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
