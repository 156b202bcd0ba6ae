// An app whose every statement to PostgreSQL is recorded as sent (BEGIN and COMMIT included), for
// tests that count or inspect what an operation sends. It runs on the test file's own schema
// (startApp) through a pool of its own, so the statements of the test's set-up are not counted.
// PostgreSQL only: the statements come from the `pg` pool (PGlite has none).
import { before } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { type Api, buildApp } from '../../src/http/app.ts';
import { Caches } from '../../src/operations/caches.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { client, type Client, startApp, testDatabaseUrl } from './app.ts';

export interface CountingApp {
  /** An admin client of the counting app. */
  admin(): Client;
  /** The statements sent since the last call (and forgets them). */
  take(): string[];
}

/** Call at the top of a describe that skips without PostgreSQL (skipUnlessPostgres). */
export function startCountingApp(): CountingApp {
  let counted: Database;
  let app: Api;
  let caches: Caches;
  let admin: Client;
  let sent: string[] = [];
  const t = startApp({
    beforeClose: async () => {
      await app.close();
      caches.close();
      await counted.close();
    },
  });
  before(async () => {
    counted = await openDatabase({ ...loadConfig({}), databaseUrl: testDatabaseUrl! }, { schema: t.database.schema!, onStatement: (text) => sent.push(text) });
    caches = new Caches();
    app = await buildApp({ db: counted.db, config: t.config, clock: systemClock, newId: newUuid, caches });
    await app.ready();
    admin = client(app, t.adminToken);
  });
  return {
    admin: () => admin,
    take: () => {
      const taken = sent;
      sent = [];
      return taken;
    },
  };
}
