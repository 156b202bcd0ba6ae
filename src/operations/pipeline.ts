// The write pipeline: every write an edge asks for (a move, a bulk move, an edit, a decision, a
// subscription) goes through the same wrappers around its operation, composed the same way:
//
//   write(deps, request, status, op)  =  idempotently(encoded(inOneTransaction(op)))
//   writeOutcome(deps, request, op)   =  the same, the status chosen by the result (four-eyes: 202 when held)
//
// - inOneTransaction: the operation in one transaction (deps.ts inTransaction), run again from
//   the start when PostgreSQL aborts it for a deadlock or a serialization failure (it kept nothing).
// - encoded: the result as the bytes the client gets, by `request.encode`, the pure serializer the
//   edge compiled from the route's response schema. Without a key it runs after the commit.
// - idempotently: with an Idempotency-Key, the key is claimed, `encoded(…)` runs in the transaction
//   that stores its bytes, and a repeat gets those bytes again (idempotency.ts). The stored answer
//   commits with the write or not at all, and a replay is the same bytes as the first answer,
//   whatever a later version of the service would make of the same value.
// - beforeWork: what must happen outside any transaction before it (asking another service), run
//   after the key is claimed, so a repeat answered from the key never asks again.
// - a dry run: dry-run.ts rolledBack in place of the transaction.
// - grouping (single moves only): move-groups.ts, which claims and answers the keys of a group in
//   its one transaction and hands back a key a row already holds to `write`.
// - the engine's strategy: `engineOf` says whether transactions run side by side (pooled
//   PostgreSQL) or one at a time (PGlite); a batch of moves picks its transactions by it.
//
// Nothing here calls back into the edge: what the edge gives is data (who asks, the key, the
// serializer), and what it gets is an Answer, which it sends as is.
import { AppError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import { batchConcurrency, runsConcurrentTransactions } from '../store/database.ts';
import { retryAborted } from '../store/errors.ts';
import { type Deps, inTransaction } from './deps.ts';
import { type IdempotentRequest, runIdempotently, type StoredResponse } from './idempotency.ts';

/** The response body of a status as JSON text: pure, compiled from the route's response schema. */
export type Encode = (status: number, value: unknown) => string;

/** An Idempotency-Key as the pipeline needs it: scoped, fingerprinted, with how long its answer is kept. */
export interface KeyedRequest extends IdempotentRequest {
  ttlMs: number;
}

/** What the edge hands the pipeline with a write: who asks, the key if any, how to encode the answer. */
export interface WriteRequest {
  principal: Principal;
  encode: Encode;
  key?: KeyedRequest | undefined;
  /** Evaluate every rule, write nothing (the moves' ?dryRun=true). */
  dryRun?: boolean;
}

/** What the edge sends: the status and the body's bytes; `replayed` for a stored answer. */
export interface Answer extends StoredResponse {
  replayed: boolean;
}

export type Operation<T> = (deps: Deps) => Promise<T>;

/** How the database runs transactions: side by side on a pool, or one at a time on one connection. */
export interface WriteEngine {
  concurrentTransactions: boolean;
  /** How many transactions of one batch may run side by side. */
  batchConcurrency: number;
}

export const engineOf = (deps: Pick<Deps, 'db'>): WriteEngine => ({
  concurrentTransactions: runsConcurrentTransactions(deps.db),
  batchConcurrency: batchConcurrency(deps.db),
});

/** `op` in one transaction (the caller's when there is one); a new one is retried when aborted by a deadlock. */
export const inOneTransaction =
  <T>(op: Operation<T>): Operation<T> =>
  (deps) =>
    deps.db.isTransaction ? op(deps) : retryAborted(() => inTransaction(deps, op));

/** `op`'s result as its answer's bytes, the status chosen from the result when it is a function. */
export const encoded =
  <T>(request: WriteRequest, status: number | ((result: T) => number), op: Operation<T>): Operation<StoredResponse> =>
  async (deps) => {
    const result = await op(deps);
    const code = typeof status === 'number' ? status : status(result);
    return { status: code, body: request.encode(code, result) };
  };

/**
 * With the request's key: `work` runs at most once per key, in the transaction that stores its
 * answer (`authorize` first, so a replay is never served to a caller the work would refuse).
 * Without: `work` on `deps` as given. `deps.db` must not be a transaction.
 */
export async function idempotently(deps: Deps, request: WriteRequest, work: Operation<StoredResponse>, options: WriteOptions = {}): Promise<Answer> {
  if (request.key === undefined) {
    await options.beforeWork?.();
    return { ...(await work(deps)), replayed: false };
  }
  if (options.authorize) await options.authorize(deps);
  const { ttlMs, ...key } = request.key;
  return runIdempotently(deps, key, { ttlMs, ...(options.beforeWork ? { beforeWork: options.beforeWork } : {}) }, work);
}

export interface WriteOptions {
  /** Checked before a repeat is answered from its key, so a replay is never served to a caller the work would refuse. */
  authorize?: Operation<void>;
  /** Runs before the transaction, outside it, and never for a repeat answered from its key (idempotency.ts). */
  beforeWork?: () => Promise<void>;
}

/** The ordinary write: `op` in one transaction, answered with `status`, idempotent with a key. */
export function write<T>(
  deps: Deps,
  request: WriteRequest,
  status: number | ((result: T) => number),
  op: Operation<T>,
  options: WriteOptions = {},
): Promise<Answer> {
  return idempotently(deps, request, encoded(request, status, inOneTransaction(op)), options);
}

/** A write's result that says its own status: applied (200, 201) or held for a second person (202, four-eyes). */
export interface Outcome {
  status: number;
  value: unknown;
}

/** The write whose status depends on what it did: `op` in one transaction, answered with its status and value, idempotent with a key. */
export function writeOutcome(deps: Deps, request: WriteRequest, op: Operation<Outcome>): Promise<Answer> {
  return idempotently(deps, request, async (d) => {
    const { status, value } = await inOneTransaction(op)(d);
    return { status, body: request.encode(status, value) };
  });
}

/** An answer made now, outside any key (a dry run's, a grouped move's). */
export const answered = (request: WriteRequest, status: number, value: unknown): Answer => ({ status, body: request.encode(status, value), replayed: false });

/** A refusal is told to its request; anything else (a bug, a lost database) fails the write. */
export const isRefusal = (err: unknown): err is AppError => err instanceof AppError && err.kind !== 'internal' && err.kind !== 'database-unavailable';

/**
 * The body `value` encodes to, cut around its string property `name`, whose value a statement
 * fills in: `before` ends with `"name":`, `after` starts right after the value. Inside an encoded
 * string every `"` is escaped, so `"name":""` occurs only where the property itself is (the
 * values cut this way are flat).
 */
export function encodedAround(encode: Encode, status: number, value: Record<string, unknown>, name: string): { before: string; after: string } {
  const body = encode(status, { ...value, [name]: '' });
  const hole = `"${name}":""`;
  const at = body.indexOf(hole);
  if (at < 0) throw new Error(`the response has no string property ${name}`);
  return { before: body.slice(0, at + hole.length - 2), after: body.slice(at + hole.length) };
}
