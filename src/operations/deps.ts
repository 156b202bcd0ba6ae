// What every operation needs from outside: the database, the time, new ids. Injected so tests can
// fix them; nothing else reaches for globals.
import { randomUUID } from 'node:crypto';
import type { ContentStore, DocumentContents } from '../store/document-contents.ts';
import { trackingJourneyVersions } from '../store/journey-versions.ts';
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
  /** Where the contents of documents are kept (DOCUMENT_STORE), opened at start; absent in the CLI, which stores and reads none. */
  contentStore?: ContentStore;
}

/** The contents of documents in the store opened at start, seen through `deps.db` (its transaction, if any). */
export function contentsOf(deps: Pick<Deps, 'db' | 'contentStore'>): DocumentContents {
  if (!deps.contentStore) throw new Error('no store of document contents was given (Deps.contentStore)');
  return deps.contentStore.contents(deps.db);
}

export const systemClock: Clock = () => new Date();
export const newUuid = () => randomUUID();

/**
 * Runs `work` in one database transaction: a new one, or the caller's when `deps.db` is already a
 * transaction (so an operation can be composed into a larger one, e.g. an idempotent request, or
 * an approval that edits an event). A new one's changes of journey versions are dropped from this
 * instance's caches once it has ended (`ownTransaction`).
 */
export async function inTransaction<T>(deps: Deps, work: (tx: Deps) => Promise<T>): Promise<T> {
  if (deps.db.isTransaction) return work(deps);
  return ownTransaction(deps, () => deps.db.transaction().execute((trx) => work({ ...deps, db: trx })));
}

/**
 * Runs `transaction`, one that this process opens (inTransaction, an idempotent request's), so that
 * the journey versions its statements change are dropped from this instance's kept ones once it
 * has ended, before anything answers from it: a client that got a write's answer never gets a 304
 * for the version it replaced from this instance (store/journey-versions.ts, caches.ts).
 */
export function ownTransaction<T>(deps: Pick<Deps, 'caches'>, transaction: () => Promise<T>): Promise<T> {
  return trackingJourneyVersions(transaction, (dealIds) => deps.caches?.dropJourneyVersions(dealIds, 'local'));
}

/**
 * After an erasure committed: the bytes of the contents it deleted, removed from an object store
 * (DOCUMENT_STORE=s3); nothing to do for the database's own. A store that fails does not fail the
 * erasure (it has committed): a process warning names the objects left, for the operator to delete.
 */
export async function forgetContents(deps: Pick<Deps, 'db' | 'contentStore'>, contentHashes: readonly string[]): Promise<number> {
  const store = deps.contentStore;
  if (!store?.forget || contentHashes.length === 0) return 0;
  try {
    return await store.forget(deps.db, contentHashes);
  } catch (err) {
    process.emitWarning(
      `an erased investor's contents could not be removed from the object store (${err instanceof Error ? err.message : String(err)}): ` +
        `delete the objects sha256/<first two>/<hash> of ${contentHashes.join(', ')} unless a document names them again`,
      { code: 'DEALFLOW_CONTENTS_LEFT' },
    );
    return 0;
  }
}
