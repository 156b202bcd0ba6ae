// Group commit of single moves (POST /deals/deal/{dealId}/jump-to-step): moves of one deal that
// arrive while a transaction of that deal is in flight wait in the deal's queue; when it ends, the
// queue goes as one group through applyMoves, the path of a bulk chunk (one load, one write, one
// commit for all). A move that finds nothing in flight for its deal starts at once, alone: group
// commit never adds a wait, it only fills the transaction that follows a busy one.
//
// - On PGlite (one connection, its queries run in this thread) a transaction never yields to the
//   event loop, so no request could arrive while it runs: there, a move that finds nothing in
//   flight starts one event-loop turn later (setImmediate, no timer), so that the requests read in
//   the same turn join it.
// - Bounds: a group holds at most GROUP_MAX_MOVES moves (a bulk chunk's size), one per investor and
//   per Idempotency-Key; the rest wait for the next group, in arrival order. There is no timer: a
//   move waits at most for the one group in flight before it, which is itself at most
//   GROUP_MAX_MOVES moves (docs/reference/limits.md).
// - Each move keeps its own answer: its event, or its refusal (applyMoves writes nothing for a
//   refused move and goes on with the others); its outbox entry, webhook deliveries and audit entry
//   are written with its event, as for a move alone.
// - A group whose transaction fails (a database error, anything but a refusal) is rolled back whole
//   and its moves run again one by one, each in a transaction of its own, so one move the database
//   refuses never fails the others. A group whose COMMIT was cut off (the database stopped
//   answering while it committed, as when a synchronous standby is gone) is not run again: the
//   commit may still land with every move of it, so each move answers outcome-unknown.
// - Idempotency-Keys are claimed in the group's transaction and answered in it (the response stored
//   with the move, or the claim deleted again for a refusal), so a key is answered exactly once and
//   a crash before the commit leaves neither the move nor the key. A key that a row already holds (a
//   replay, the key of another request, one still running the ordinary way) is not moved here: the
//   caller runs that request through runIdempotently, which answers for the row.
// - The jump rules run per journey under its lock, as in every move (applyMoves); two moves of one
//   investor never share a group, so each sees the position the other left (expectedCurrentStepId).
import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.ts';
import type { WorkflowEvent } from '../domain/event.ts';
import type { Principal } from '../domain/principal.ts';
import { observeGroupCommitBatch } from '../metrics.ts';
import { isOutcomeUnknown, retryAborted } from '../store/errors.ts';
import { type Claim, claimKeys, completeKeys, releaseKeys } from '../store/idempotency.ts';
import { type Deps, inTransaction } from './deps.ts';
import { type GroupedAnswer, type GroupedKey, IDEMPOTENCY_LEASE_MS, type StoredResponse } from './idempotency.ts';
import { applyMoves, type MoveInput } from './apply-moves.ts';
import { engineOf, isRefusal } from './pipeline.ts';

/** Moves per group at most: the size of a bulk request's chunk (bulk-moves.ts), measured there. */
export const GROUP_MAX_MOVES = 50;

interface Queued {
  principal: Principal;
  input: MoveInput;
  keyed: GroupedKey<WorkflowEvent> | undefined;
  resolve(answer: GroupedAnswer<WorkflowEvent>): void;
  reject(err: unknown): void;
}

const keyOf = (keyed: GroupedKey<unknown> | undefined) => (keyed ? `${keyed.request.scope}\u0000${keyed.request.key}` : undefined);

/** The group commit of one service instance: one queue per deal with a group in flight. */
export class MoveGroups {
  readonly #deps: Deps;
  readonly #maxMoves: number;
  readonly #queues = new Map<string, Queued[]>();
  readonly #oneConnection: boolean;

  constructor(deps: Deps, options: { maxMoves?: number } = {}) {
    this.#deps = deps;
    this.#maxMoves = options.maxMoves ?? GROUP_MAX_MOVES;
    this.#oneConnection = !engineOf(deps).concurrentTransactions;
  }

  /**
   * moveToStep's move, committed with the deal's other moves that wait at the same time: the event
   * (with its stored response when `keyed`), `held` for a key a row already holds; a refusal is
   * thrown, as moveToStep throws it.
   */
  move(principal: Principal, dealId: string, input: MoveInput, keyed?: GroupedKey<WorkflowEvent>): Promise<GroupedAnswer<WorkflowEvent>> {
    return new Promise((resolve, reject) => {
      const item: Queued = { principal, input, keyed, resolve, reject };
      const queue = this.#queues.get(dealId);
      if (queue) {
        queue.push(item);
        return;
      }
      this.#queues.set(dealId, [item]);
      if (this.#oneConnection) setImmediate(() => void this.#drain(dealId));
      else void this.#drain(dealId);
    });
  }

  /** Runs the deal's queue group after group until it is empty. */
  async #drain(dealId: string): Promise<void> {
    const queue = this.#queues.get(dealId)!;
    try {
      while (queue.length > 0) await this.#run(dealId, this.#take(queue));
    } catch (err) {
      for (const item of queue.splice(0)) item.reject(err); // #run answers every move; this is a bug's way out
    } finally {
      this.#queues.delete(dealId);
    }
  }

  /**
   * Takes the next group out of `queue`: in arrival order, at most #maxMoves, one move per investor
   * and per key. A move left behind holds back the later moves of its investor and key, so each
   * investor's moves keep their order.
   */
  #take(queue: Queued[]): Queued[] {
    const group: Queued[] = [];
    const rest: Queued[] = [];
    const investors = new Set<string>();
    const keys = new Set<string>();
    for (const item of queue) {
      const key = keyOf(item.keyed);
      const fits = group.length < this.#maxMoves && !investors.has(item.input.investorUserId) && !(key !== undefined && keys.has(key));
      (fits ? group : rest).push(item);
      investors.add(item.input.investorUserId);
      if (key !== undefined) keys.add(key);
    }
    queue.splice(0, queue.length, ...rest);
    return group;
  }

  /** One group in one transaction; when that fails, its moves one by one. */
  async #run(dealId: string, group: Queued[]): Promise<void> {
    let answers: (GroupedAnswer<WorkflowEvent> | AppError)[];
    try {
      answers = await retryAborted(() => inTransaction(this.#deps, (tx) => this.#apply(tx, dealId, group)));
      observeGroupCommitBatch(group.length);
    } catch (err) {
      // A commit cut off may still land with every move of the group: running them again one by one
      // would wait behind it and answer that nothing was applied. Each hears that its outcome is
      // unknown, and its Idempotency-Key (claimed in the group's transaction) tells the retry.
      if (group.length === 1 || isOutcomeUnknown(err)) {
        for (const item of group) item.reject(err);
        return;
      }
      for (const item of group) await this.#run(dealId, [item]);
      return;
    }
    group.forEach((item, i) => {
      const answer = answers[i]!;
      if (answer instanceof AppError) item.reject(answer);
      else item.resolve(answer);
    });
  }

  /** The group's transaction: claim its keys, apply its moves, answer its keys. */
  async #apply(tx: Deps, dealId: string, group: readonly Queued[]): Promise<(GroupedAnswer<WorkflowEvent> | AppError)[]> {
    const now = tx.clock();
    const claims = new Map<Queued, Claim>();
    for (const item of group) {
      if (item.keyed) claims.set(item, { ...item.keyed.request, leaseId: randomUUID(), now, leaseUntil: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS) });
    }
    const taken = await claimKeys(tx.db, [...claims.values()]);
    const moving = group.filter((item) => !claims.has(item) || taken.has(claims.get(item)!));
    const outcomes =
      moving.length === 0
        ? []
        : await applyMoves(
            tx,
            moving[0]!.principal,
            dealId,
            moving.map((item) => ({ input: item.input, principal: item.principal })),
          );
    const answers = new Map<Queued, GroupedAnswer<WorkflowEvent> | AppError>();
    const done: (Claim & { response: StoredResponse; expiresAt: Date })[] = [];
    const released: Claim[] = [];
    moving.forEach((item, i) => {
      const outcome = outcomes[i]!;
      const claim = claims.get(item);
      if (!outcome.ok) {
        if (!isRefusal(outcome.error)) throw outcome.error;
        if (claim) released.push(claim);
        answers.set(item, outcome.error);
        return;
      }
      if (!claim || !item.keyed) {
        answers.set(item, { result: outcome.event });
        return;
      }
      const response = item.keyed.respond(outcome.event);
      done.push({ ...claim, response, expiresAt: new Date(now.getTime() + item.keyed.ttlMs) });
      answers.set(item, { result: outcome.event, response });
    });
    await completeKeys(tx.db, done);
    await releaseKeys(tx.db, released);
    return group.map((item) => answers.get(item) ?? { held: true });
  }
}
