// A bulk move whose service process is killed (SIGKILL) mid-way leaves its Idempotency-Key
// 'in-progress'. The key of a process that is gone is taken over promptly: the client's retry of
// the same request gets its final answer within 15 s of the restart, and the batch is applied
// exactly once. A real service process, a real SIGKILL, on PGlite (a data directory) and on
// PostgreSQL (a fresh database on TEST_DATABASE_URL's server).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { openDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { killMidBulkAndRetry } from '../reliability/support/crash-retry.ts';
import { dropAll, freshDatabase } from '../reliability/support/postgres.ts';
import { type Instance, startInstance, stopAll } from '../reliability/support/service.ts';

const postgresUrl = process.env.TEST_DATABASE_URL;
const MOVES = 1000;
const TARGET_MS = 15_000;

/** Where the service keeps its data, and a look at one key while the service is down. */
interface Store {
  databaseUrl: string;
  env: Record<string, string>;
  adminToken: string;
  keyStatus(key: string): Promise<string | undefined>;
  close(): Promise<void>;
}

async function pgliteStore(): Promise<Store> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dealflow-crash-retry-'));
  const open = () => openDatabase({ ...loadConfig({}), databaseUrl: undefined, dataDir });
  const database = await open();
  await migrateToLatest(database.db);
  const { token } = await createToken(database.db, { name: 'crash retry', role: 'admin' });
  await database.close();
  return {
    databaseUrl: '',
    env: { DATA_DIR: dataDir },
    adminToken: token,
    async keyStatus(key) {
      const db = await open(); // the service is down: PGlite's data directory is ours for a moment
      try {
        return (await db.db.selectFrom('idempotency_keys').select('status').where('key', '=', key).executeTakeFirst())?.status;
      } finally {
        await db.close();
      }
    },
    close: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

async function postgresStore(): Promise<Store> {
  const fresh = await freshDatabase('crashretry', postgresUrl);
  return {
    databaseUrl: fresh.url,
    env: {},
    adminToken: fresh.adminToken,
    keyStatus: async (key) => (await fresh.pool.query('select status from idempotency_keys where key = $1', [key])).rows[0]?.status,
    close: () => fresh.drop(),
  };
}

describe('a bulk move killed mid-way, retried after the restart', () => {
  after(async () => {
    await stopAll();
    await dropAll();
  });

  test(`the retry gets its final answer within ${TARGET_MS / 1000} s of the restart, and the batch is applied once`, { timeout: 600_000 }, async () => {
    const store = postgresUrl ? await postgresStore() : await pgliteStore();
    let service: Instance | undefined;
    try {
      service = await startInstance({ databaseUrl: store.databaseUrl, env: store.env });
      const outcome = await killMidBulkAndRetry(service, store.adminToken, (key) => store.keyStatus(key), MOVES);
      assert.ok(outcome, 'every kill came after the batch committed; the crash was never caught mid-way');
      process.stdout.write(
        `# ${postgresUrl ? 'PostgreSQL' : 'PGlite'}: killed ${outcome.killedAfterMs} ms into the batch; the retry's final answer came ${Math.round(outcome.elapsedMs)} ms after the restart (${outcome.conflicts} × 409 before it)\n`,
      );
      assert.deepEqual(outcome.failures, []);
      assert.ok(outcome.elapsedMs <= TARGET_MS, `the retry's answer came ${Math.round(outcome.elapsedMs)} ms after the restart`);
    } finally {
      await service?.stop();
      await store.close();
    }
  });
});
