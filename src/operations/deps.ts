// What every operation needs from outside: the database, the time, new ids. Injected so tests can
// fix them; nothing else reaches for globals.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/schema.ts';
import type { Caches } from './caches.ts';

export type Clock = () => Date;

export interface Deps {
  db: Db;
  clock: Clock;
  newId: () => string;
  /** This instance's caches (caches.ts); absent in the CLI, which reads everything afresh. */
  caches?: Caches;
  /** Picks the database of a list read for a consistency token (reads.ts); absent: always `db`. */
  reader?: (token: string | undefined) => Db;
}

export const systemClock: Clock = () => new Date();
export const newUuid = () => randomUUID();

/**
 * Runs `work` in one database transaction: a new one, or the caller's when `deps.db` is already a
 * transaction (so an operation can be composed into a larger one, e.g. an idempotent request, or
 * an approval that edits an event).
 */
export async function inTransaction<T>(deps: Deps, work: (tx: Deps) => Promise<T>): Promise<T> {
  if (deps.db.isTransaction) return work(deps);
  return deps.db.transaction().execute((trx) => work({ ...deps, db: trx }));
}
