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
import { dropAll, freshDatabase } from '../reliability/support/postgres.ts';
import { type Instance, startInstance, stopAll } from '../reliability/support/service.ts';
import { investorBody, uniqueId } from '../support/fixtures.ts';
import { workflowBody } from '../support/workflows.ts';

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
    databaseUrl: '', env: { DATA_DIR: dataDir }, adminToken: token,
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
    databaseUrl: fresh.url, env: {}, adminToken: fresh.adminToken,
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
      service = await startInstance({ databaseUrl: store.databaseUrl, env: { ...store.env } });
      const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}, contentType = 'application/json') => {
        const response = await fetch(`${service!.url}${url}`, {
          method, headers: { authorization: `Bearer ${store.adminToken}`, ...(body === undefined ? {} : { 'content-type': contentType }), ...headers },
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
      };

      // Several attempts at most: a kill that comes after the batch committed tests nothing, so the
      // batch is tried again with new investors and an earlier kill.
      for (let attempt = 0, delayMs = 400; attempt < 4; attempt++, delayMs = Math.max(50, delayMs / 2)) {
        const dealId = uniqueId('crash');
        assert.equal((await call('PUT', `/deals/deal/${dealId}`, { name: 'Crash retry', currency: 'EUR' })).status, 201);
        assert.ok([200, 201].includes((await call('PUT', `/deals/deal/${dealId}/workflow`, workflowBody(dealId))).status));
        const investors = Array.from({ length: MOVES }, () => uniqueId('crash-inv'));
        const ndjson = investors.map((id) => JSON.stringify({ id, ...investorBody() })).join('\n');
        const imported = await call('POST', '/investors/import', ndjson, {}, 'application/x-ndjson');
        assert.equal(imported.status, 200, imported.text.slice(0, 500));

        const key = uniqueId('bulk');
        const body = { moves: investors.map((investorUserId) => ({ investorUserId, targetStepId: `${dealId}.interest`, data: {} })) };
        const first = call('POST', `/deals/deal/${dealId}/jump-to-step/bulk`, body, { 'idempotency-key': key }).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        await service.kill();
        await first;
        const status = await store.keyStatus(key);
        if (status !== 'in-progress') continue; // the batch finished (or never claimed its key) before the kill

        await service.restart();
        const restarted = performance.now();
        let answer: Awaited<ReturnType<typeof call>>;
        let conflicts = 0;
        for (;;) {
          answer = await call('POST', `/deals/deal/${dealId}/jump-to-step/bulk`, body, { 'idempotency-key': key });
          if (answer.status !== 409) break;
          conflicts++;
          assert.ok(performance.now() - restarted < 60_000, 'the retry is still refused after a minute');
          await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? 1) * 1000));
        }
        const elapsed = performance.now() - restarted;
        process.stdout.write(`# ${postgresUrl ? 'PostgreSQL' : 'PGlite'}: killed after ${delayMs} ms; the retry's final answer came ${Math.round(elapsed)} ms after the restart (${conflicts} × 409 before it)\n`);
        assert.equal(answer.status, 200, answer.text.slice(0, 500));
        assert.ok(elapsed <= TARGET_MS, `the retry's answer came ${Math.round(elapsed)} ms after the restart`);
        assert.equal(answer.body.results.length, MOVES);
        assert.ok(answer.body.results.every((r: any) => r.status === 201), 'every move made by the retry');
        // Exactly once: a further retry replays the answer, and every investor has one event.
        const replay = await call('POST', `/deals/deal/${dealId}/jump-to-step/bulk`, body, { 'idempotency-key': key });
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.equal(replay.text, answer.text);
        let events = 0;
        for (let page = 1; ; page++) {
          const listed = await call('GET', `/deals/deal/${dealId}/all-investor-workflows?limit=100&page=${page}`);
          for (const entry of listed.body.output) {
            assert.equal(entry.journey.length, 1, entry.investor.id);
            events += entry.journey.length;
          }
          if (page >= listed.body.totalPages) break;
        }
        assert.equal(events, MOVES);
        return;
      }
      assert.fail('every kill came after the batch committed; the crash was never caught mid-way');
    } finally {
      await service?.stop();
      await store.close();
    }
  });
});
