// Single moves with Idempotency-Keys committing in groups, the service process SIGKILLed while they
// run, restarted, and every move retried with its key: each move acknowledged before the kill is
// replayed byte for byte, none is made twice, every one gets its final answer. A real service
// process and a real SIGKILL, on PGlite (a data directory) and on PostgreSQL (a fresh database on
// TEST_DATABASE_URL's server).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { openDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { killDuringGroupsAndRetry } from '../reliability/support/group-crash.ts';
import { dropAll, freshDatabase } from '../reliability/support/postgres.ts';
import { type Instance, startInstance, stopAll } from '../reliability/support/service.ts';

const postgresUrl = process.env.TEST_DATABASE_URL;

async function pgliteStore() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dealflow-group-crash-'));
  const database = await openDatabase({ ...loadConfig({}), databaseUrl: undefined, dataDir });
  await migrateToLatest(database.db);
  const { token } = await createToken(database.db, { name: 'group crash', role: 'admin' });
  await database.close();
  return { databaseUrl: '', env: { DATA_DIR: dataDir }, adminToken: token, close: async () => rmSync(dataDir, { recursive: true, force: true }) };
}

async function postgresStore() {
  const fresh = await freshDatabase('groupcrash', postgresUrl);
  return { databaseUrl: fresh.url, env: {}, adminToken: fresh.adminToken, close: () => fresh.drop() };
}

describe('single moves in groups, the service killed while they run', () => {
  after(async () => {
    await stopAll();
    await dropAll();
  });

  test('after the restart every retry gets its answer: nothing acknowledged is lost, nothing is made twice', { timeout: 600_000 }, async () => {
    const store = postgresUrl ? await postgresStore() : await pgliteStore();
    let service: Instance | undefined;
    try {
      service = await startInstance({ databaseUrl: store.databaseUrl, env: store.env });
      const outcome = await killDuringGroupsAndRetry(service, store.adminToken);
      process.stdout.write(
        `# ${postgresUrl ? 'PostgreSQL' : 'PGlite'}: ${outcome.acknowledged} of ${outcome.moves} moves acknowledged before the kill, ${outcome.cut} cut by it\n`,
      );
      assert.deepEqual(outcome.failures, []);
      assert.ok(outcome.acknowledged > 0 && outcome.acknowledged < outcome.moves, 'the kill came while moves were running');
    } finally {
      await service?.stop();
      await store.close();
    }
  });
});
