// An app whose every statement to PostgreSQL is recorded as sent (BEGIN and COMMIT included), for
// tests that count or inspect what an operation sends. It runs on the test file's own schema
// (startApp) through a pool of its own, so the statements of the test's set-up are not counted.
// With `connectCaches` its caches LISTEN as a service's do, so that it is a second instance of the
// service beside the test app (`other`) on the same database.
// PostgreSQL only: the statements come from the `pg` pool (PGlite has none).
import { before } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { type Api, buildApp } from '../../src/http/app.ts';
import { Caches, connectCaches } from '../../src/operations/caches.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { client, type Client, type StartedApp, startApp, testDatabaseUrl } from './app.ts';

export interface CountingApp {
  /** An admin client of the counting app. */
  admin(): Client;
  /** A client of the counting app with `token`. */
  client(token: string): Client;
  /** The counting app's caches. */
  caches(): Caches;
  /** The test app on the same schema: another instance of the service. */
  other: StartedApp;
  /** The statements sent since the last call (and forgets them). */
  take(): string[];
}

/** Call at the top of a describe that skips without PostgreSQL (skipUnlessPostgres). */
export function startCountingApp(options: { connectCaches?: boolean } = {}): CountingApp {
  let counted: Database;
  let app: Api;
  let caches: Caches;
  let admin: Client;
  let unlisten = async () => {};
  let sent: string[] = [];
  const t = startApp({
    beforeClose: async () => {
      await app.close();
      await unlisten();
      caches.close();
      await counted.close();
    },
  });
  before(async () => {
    counted = await openDatabase({ ...loadConfig({}), databaseUrl: testDatabaseUrl! }, { schema: t.database.schema!, onStatement: (text) => sent.push(text) });
    caches = new Caches();
    if (options.connectCaches) unlisten = await connectCaches(counted, caches);
    app = await buildApp({ db: counted.db, config: t.config, clock: systemClock, newId: newUuid, caches });
    await app.ready();
    admin = client(app, t.adminToken);
  });
  return {
    admin: () => admin,
    client: (token) => client(app, token),
    caches: () => caches,
    other: t,
    take: () => {
      const taken = sent;
      sent = [];
      return taken;
    },
  };
}
