// Dry runs: the real operation, in a transaction that is always rolled back. Running the move
// itself (rather than a second evaluation of its rules) is the surest way to predict exactly what
// the move would do, including whatever else the move's transaction writes (outbox entries, and
// any later additions to it). Nothing escapes the rollback: NOTIFY is delivered only on commit, the
// outbox's counters are rows, and the only process-wide effect, the workflow cache, holds what the
// transaction read, never what it wrote.
import type { Deps } from './deps.ts';

/** Carries the result out of a transaction that Kysely must roll back (it rolls back on a throw). */
class RollBack<T> extends Error {
  readonly value: T;
  constructor(value: T) {
    super('dry run: rolled back');
    this.value = value;
  }
}

/**
 * Runs `work` in a new transaction and rolls it back, returning what `work` returned (or throwing
 * what it threw). `deps.db` must not be a transaction: a dry run cannot undo part of its caller's.
 */
export async function rolledBack<T>(deps: Deps, work: (tx: Deps) => Promise<T>): Promise<T> {
  if (deps.db.isTransaction) throw new Error('a dry run needs a database handle outside any transaction');
  try {
    await deps.db.transaction().execute(async (trx) => {
      throw new RollBack(await work({ ...deps, db: trx }));
    });
  } catch (err) {
    if (err instanceof RollBack) return err.value as T;
    throw err;
  }
  throw new Error('unreachable: the dry-run transaction committed');
}
