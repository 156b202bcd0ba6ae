// Idempotent requests: the protocol behind the `Idempotency-Key` header.
//
// 1. Claim: one autocommit INSERT … ON CONFLICT DO NOTHING marks (scope, key) 'in-progress' under
//    a short lease. Because it commits at once, a concurrent request with the same key never waits
//    for our effect: it finds the row and answers 409 (still running) straight away.
// 2. Effect: the work runs in ONE transaction, and the response (status and body) is stored in that
//    same transaction, marking the key 'done' for the TTL. Effect and stored response commit
//    together or not at all. The update names our lease: if the lease ran out and another request
//    took the key over, our update matches nothing and our effect rolls back.
// 3. Failure: if the work throws (a 4xx, a lost database), the effect rolls back and the claim is
//    deleted, so a retry runs again. If even that delete fails, or the process dies, the lease
//    expires and the key can be taken over. A commit cut off (its outcome unknown) keeps the claim:
//    the retry gets the stored response if it landed, and takes the key over after the lease if not.
// 5. Heartbeat: the lease is short (IDEMPOTENCY_LEASE_MS) and renewed every
//    IDEMPOTENCY_HEARTBEAT_MS while the effect runs, so a live request keeps its key however long
//    it works, and the key of a process that died (SIGKILL, a lost machine) is free for a retry
//    within one lease of its last heartbeat, instead of after a lease as long as the longest bulk.
//    On PGlite one process owns the data, so at start every key left 'in-progress' is freed at once
//    (releaseOrphanedKeys).
// 4. A write that is one statement (a subscription) does all of this in that statement instead:
//    runInOneStatement.
//
// A row past `expires_at` counts as absent (purgeExpiredKeys deletes them in the background).
import { randomUUID } from 'node:crypto';
import { conflict, unprocessable } from '../domain/errors.ts';
import { retryAborted } from '../store/errors.ts';
import * as keys from '../store/idempotency.ts';
import { isOutcomeUnknown } from '../store/errors.ts';
import { type Deps, ownTransaction } from './deps.ts';

/**
 * How long a claimed key stays 'in-progress' after its last heartbeat before a retry may take it
 * over: a retry after a crash waits at most this long (plus its own Retry-After).
 */
export const IDEMPOTENCY_LEASE_MS = 10_000;
/** How often a running request renews its lease: several heartbeats fit in one lease. */
export const IDEMPOTENCY_HEARTBEAT_MS = 2_000;

export interface IdempotentRequest {
  /** The caller's token (Principal.tokenKey): keys of different callers never meet. */
  scope: string;
  key: string;
  /** Hash of method, path and canonical body. */
  fingerprint: string;
}

export interface StoredResponse {
  status: number;
  /** The serialized body, replayed byte for byte. */
  body: string;
}

export interface IdempotentOutcome extends StoredResponse {
  replayed: boolean;
}

export interface IdempotencyOptions {
  ttlMs: number;
  leaseMs?: number;
  /** How often the lease is renewed while the work runs; default IDEMPOTENCY_HEARTBEAT_MS, or a third of a shorter lease. */
  heartbeatMs?: number;
  /**
   * Runs once the key is claimed, before the work's transaction and outside it (a call to another
   * service, which no transaction should wait on): a repeat answered from the key never runs it.
   * When it throws, the key is released as when the work throws.
   */
  beforeWork?: () => Promise<void>;
}

/**
 * Runs `work` once per key: the first request runs it, a repeat gets the stored response, a
 * different request with the key is a 422, a repeat while the first runs is a 409. `deps.db` must
 * not be a transaction (the claim has to commit on its own).
 */
export async function runIdempotently(
  deps: Deps,
  request: IdempotentRequest,
  options: IdempotencyOptions,
  work: (tx: Deps) => Promise<StoredResponse>,
): Promise<IdempotentOutcome> {
  if (deps.db.isTransaction) throw new Error('runIdempotently needs a database handle outside any transaction');
  const leaseId = randomUUID();
  const leaseMs = options.leaseMs ?? IDEMPOTENCY_LEASE_MS;

  // Rarely more than one round: only when the row changes between our statements.
  for (let attempt = 0; ; attempt++) {
    const now = deps.clock();
    const claim = { ...request, leaseId, now, leaseUntil: new Date(now.getTime() + leaseMs) };
    if (await keys.claimKey(deps.db, claim)) break;
    const existing = await keys.findKey(deps.db, request);
    const answer = answerOf(existing, request, now);
    if (answer) return answer;
    if (existing !== undefined && (await keys.takeOverExpiredKey(deps.db, claim))) break;
    if (attempt < 3) continue;
    throw stillRunning();
  }

  const ref = { scope: request.scope, key: request.key, leaseId };
  const heartbeat = startHeartbeat(deps, ref, leaseMs, options.heartbeatMs ?? Math.min(IDEMPOTENCY_HEARTBEAT_MS, leaseMs / 3));
  try {
    await options.beforeWork?.();
    // A transaction PostgreSQL aborted (deadlock, serialization failure) kept nothing: run it again.
    return await retryAborted(() =>
      ownTransaction(deps, () =>
        deps.db.transaction().execute(async (trx) => {
          const response = await work({ ...deps, db: trx });
          const expiresAt = new Date(deps.clock().getTime() + options.ttlMs);
          if (!(await keys.completeKey(trx, ref, response, expiresAt))) {
            throw conflict('This request took longer than its idempotency lease and was taken over by a retry; nothing was stored by this one');
          }
          return { ...response, replayed: false };
        }),
      ),
    );
  } catch (err) {
    await heartbeat.stop();
    // A commit cut off may still land (with the key 'done'): the claim stays, so a retry waits for
    // the true outcome (409 in progress; the stored response once it landed; the key taken over
    // when the lease runs out and it did not). Otherwise, best effort: when the release fails
    // too, the lease expiring frees the key.
    if (!isOutcomeUnknown(err)) await keys.releaseKey(deps.db, ref).catch(() => undefined);
    throw err;
  } finally {
    await heartbeat.stop();
  }
}

/**
 * Renews the lease `ref` every `everyMs` until stopped (or until the lease is found lost). A
 * renewal that fails (the database briefly away) is tried again at the next beat; the lease still
 * has the rest of its length. On PGlite a renewal waits behind the work's own transaction (one
 * connection): no other request can take the key meanwhile either.
 */
function startHeartbeat(deps: Deps, ref: keys.KeyRef & { leaseId: string }, leaseMs: number, everyMs: number): { stop: () => Promise<void> } {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(async () => {
      if (stopped) return;
      const held = await keys.renewLease(deps.db, ref, new Date(deps.clock().getTime() + leaseMs)).catch(() => true);
      if (!held) stop();
    });
  }, everyMs);
  timer.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return {
    stop: async () => {
      stop();
      await running.catch(() => undefined);
    },
  };
}

/**
 * Frees every key left 'in-progress' (its lease made to expire now): for a database that only this
 * process uses (PGlite), where an in-progress key at start belongs to a process that is gone.
 */
export const releaseOrphanedKeys = (deps: Pick<Deps, 'db' | 'clock'>) => keys.expireInProgressKeys(deps.db, deps.clock());

/**
 * The same promise for a write that is one statement (a subscription), in one round trip instead of
 * five: `write` makes its effect and stores the key as 'done' with its response in that one
 * statement (store/idempotency.ts, keyInsertCte), and returns the body it stored, or undefined when
 * a live row held the key and it wrote nothing. That row then answers as in runIdempotently: its
 * response replayed, a 422 for a different request, a 409 while a claim of runIdempotently runs.
 * There is no claim to release: a refused or failed write stored nothing. A concurrent request
 * with the same key waits for the first one's statement to end (PostgreSQL makes a conflicting
 * insert wait for the other transaction) and then replays its response, instead of a 409: that
 * wait is one statement long, because the write commits with its statement.
 */
export async function runInOneStatement(
  deps: Deps,
  request: IdempotentRequest,
  options: IdempotencyOptions & { status: number },
  write: (key: keys.DoneKey) => Promise<string | undefined>,
): Promise<IdempotentOutcome> {
  // Rarely more than one round: only when the row that held the key expires or goes meanwhile.
  for (let attempt = 0; ; attempt++) {
    const now = deps.clock();
    const key = { ...request, leaseId: randomUUID(), now, expiresAt: new Date(now.getTime() + options.ttlMs), status: options.status };
    const body = await write(key);
    if (body !== undefined) return { status: options.status, body, replayed: false };
    const answer = answerOf(await keys.findKey(deps.db, request), request, now);
    if (answer) return answer;
    if (attempt >= 3) throw stillRunning();
  }
}

/**
 * What a row that holds the key answers: its stored response, a 422 when it was another request,
 * a 409 while that request runs. Undefined when there is no row or it has expired (the key is free).
 */
function answerOf(existing: keys.StoredKey | undefined, request: IdempotentRequest, now: Date): IdempotentOutcome | undefined {
  if (existing === undefined || existing.expiresAt <= now) return undefined;
  if (existing.fingerprint !== request.fingerprint) {
    throw unprocessable('This Idempotency-Key was already used for a different request (method, path or body); use a new key for a new request', {
      idempotencyKey: request.key,
    });
  }
  if (existing.status === 'done' && existing.response) return { ...existing.response, replayed: true };
  throw stillRunning();
}

const stillRunning = () =>
  conflict('A request with this Idempotency-Key is still being processed; nothing was stored by this one, retry shortly', {
    retryable: true,
  });

/** Deletes keys past their expiry; the service calls it periodically. */
export const purgeExpiredKeys = (deps: Pick<Deps, 'db' | 'clock'>) => keys.deleteExpiredKeys(deps.db, deps.clock());

/**
 * A request's Idempotency-Key for work that commits in a group with other requests (move-groups.ts):
 * the key is claimed and answered in the group's transaction. `respond` turns the request's result
 * into the response to store: the pipeline's pure encoder (pipeline.ts), never a call to the edge.
 */
export interface GroupedKey<T> {
  request: IdempotentRequest;
  ttlMs: number;
  respond(result: T): StoredResponse;
}

/**
 * A grouped request's answer: its result (with the stored response when it had a key), or `held`
 * when its key was already held by a row (a replay, a different request, a running claim): the
 * caller then runs the request the ordinary way (runIdempotently), which answers for that row.
 */
export type GroupedAnswer<T> = { result: T; response?: StoredResponse } | { held: true };
