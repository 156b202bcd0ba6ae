// Which database a read runs on (docs/guides/postgresql-and-replicas.md). List routes, feeds and the console's
// read models call `forReading(deps)`: outside a transaction it gives them the database chosen by
// `deps.reader` (a streaming replica that is recent enough, else the primary) for the consistency
// token of the request being served; inside a write transaction it changes nothing, so everything
// a write reads comes from the primary. The token travels with the request in an AsyncLocalStorage
// set by the HTTP layer (withConsistencyToken), so operations keep their signatures.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Deps } from './deps.ts';

const requestToken = new AsyncLocalStorage<{ token: string | undefined }>();

/** Runs `work` (a request's handling) with the consistency token the client sent, if any. */
export function withConsistencyToken<T>(token: string | undefined, work: () => T): T {
  return requestToken.run({ token }, work);
}

export function forReading(deps: Deps): Deps {
  if (!deps.reader || deps.db.isTransaction) return deps;
  const db = deps.reader(requestToken.getStore()?.token);
  return db === deps.db ? deps : { ...deps, db };
}
