// The restore drill, on both databases: a real service takes moves with Idempotency-Keys from
// several clients while a backup runs (`dealflow backup` of the embedded database through the
// running service; pg_basebackup of a throwaway PostgreSQL cluster); the backup is restored into a
// fresh folder (`dealflow restore`) or started as a fresh cluster; a service starts on it;
// `dealflow verify` passes; every move acknowledged before the backup began is there, once; a retry
// of its Idempotency-Key answers the stored event and writes nothing; and the feed goes on after the
// restored entries.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { onPostgres } from '../support/app.ts';
import { checkedFetch } from '../support/contract.ts';
import { clusterUnavailable, createCluster } from '../support/throwaway-cluster.ts';
import { startServiceProcess } from '../support/service-process.ts';
import { workflowBody } from '../support/workflows.ts';
import { investorBody } from '../support/fixtures.ts';

type Env = Record<string, string>;

const cli = (env: Env, ...args: string[]) =>
  spawnSync(process.execPath, ['bin/dealflow.js', ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, encoding: 'utf8', timeout: 180_000 });

const cliAsync = (env: Env, ...args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['bin/dealflow.js', ...args], {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });

interface Service {
  base: string;
  stop(): Promise<void>;
}

const startService = (env: Env): Promise<Service> => startServiceProcess({ WEBHOOKS_DISPATCHER: 'off', ...env });

interface Ack {
  key: string;
  investor: string;
  eventId: string;
  at: number;
  body: string;
}

/**
 * Runs `backup` while `clients` clients move their investors back and forth with Idempotency-Keys;
 * returns the acknowledged moves and when the backup began and ended.
 */
async function underLoad(base: string, token: string, dealId: string, investors: string[][], backup: () => Promise<void>) {
  const acks: Ack[] = [];
  let stop = false;
  let failures = 0;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const clients = investors.map(async (own) => {
    for (let round = 0; !stop; round++) {
      for (const investor of own) {
        if (stop) return;
        const target = round % 2 === 0 ? 'commitment' : 'interest';
        const key = randomUUID();
        const body = JSON.stringify({
          investorUserId: investor,
          targetStepId: `${dealId}.${target}`,
          data: target === 'commitment' ? { committed_amount: '1000.00', currency: 'EUR' } : {},
        });
        const response = await checkedFetch(base, `/deals/deal/${dealId}/jump-to-step`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': key },
          body,
        });
        if (response.status === 201) acks.push({ key, investor, eventId: response.json.id, at: performance.now(), body });
        else failures++;
      }
    }
  });
  // Some moves acknowledged before the backup begins, some while it runs.
  while (acks.length < 40) await new Promise((resolve) => setTimeout(resolve, 20));
  const began = performance.now();
  await backup();
  const ended = performance.now();
  // And a few after it ended, which the backup need not hold.
  const atEnd = acks.length;
  while (acks.length < atEnd + 10) await new Promise((resolve) => setTimeout(resolve, 20));
  stop = true;
  await Promise.all(clients);
  return { acks, began, ended, failures };
}

async function setUp(base: string, token: string, clients: number, perClient: number) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const dealId = `drill-${randomUUID().slice(0, 8)}`;
  assert.equal(
    (await checkedFetch(base, `/deals/deal/${dealId}`, { method: 'PUT', headers, body: JSON.stringify({ name: 'Drill', currency: 'EUR' }) })).status,
    201,
  );
  assert.equal(
    (await checkedFetch(base, `/deals/deal/${dealId}/workflow`, { method: 'PUT', headers, body: JSON.stringify(workflowBody(dealId)) })).status,
    201,
  );
  const investors: string[][] = [];
  for (let c = 0; c < clients; c++) {
    const own: string[] = [];
    for (let i = 0; i < perClient; i++) {
      const id = `inv-${c}-${i}-${randomUUID().slice(0, 6)}`;
      assert.equal((await checkedFetch(base, `/investors/${id}`, { method: 'PUT', headers, body: JSON.stringify(investorBody()) })).status, 201);
      own.push(id);
    }
    investors.push(own);
  }
  return { dealId, investors };
}

/** What the restored service must hold: every move acknowledged before the backup began, once. */
async function checkRestored(base: string, token: string, dealId: string, load: Awaited<ReturnType<typeof underLoad>>) {
  const headers = { authorization: `Bearer ${token}` };
  const feed = await checkedFetch(base, `/deals/deal/${dealId}/events?after=0&limit=100`, { headers });
  assert.equal(feed.status, 200, feed.text);
  let entries: any[] = feed.json.output;
  let lastSequence: number = feed.json.lastSequence;
  // Page through the rest of the feed.
  for (let more = feed.json.hasMore; more; ) {
    const page = await checkedFetch(base, `/deals/deal/${dealId}/events?after=${lastSequence}&limit=100`, { headers });
    entries = [...entries, ...page.json.output];
    lastSequence = page.json.lastSequence;
    more = page.json.hasMore;
  }
  // No entry twice: the feed a consumer reads has no duplicate.
  assert.equal(new Set(entries.map((e) => e.id)).size, entries.length);
  const text = JSON.stringify(entries);
  const before = load.acks.filter((a) => a.at < load.began);
  const missing = before.filter((a) => !text.includes(a.eventId));
  assert.deepEqual(
    missing.map((a) => a.eventId),
    [],
    'every move acknowledged before the backup began is in the restored feed',
  );
  for (const a of before) assert.equal(text.split(a.eventId).length - 1 > 0, true);
  // Retrying an acknowledged key answers the stored event and moves nothing.
  for (const a of before.slice(0, 5)) {
    const again = await checkedFetch(base, `/deals/deal/${dealId}/jump-to-step`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': a.key },
      body: a.body,
    });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.json.id, a.eventId, 'the stored response, not a new move');
  }
  return {
    entries,
    lastSequence,
    restoredBefore: before.length,
    restoredDuring: load.acks.filter((a) => a.at >= load.began && text.includes(a.eventId)).length,
  };
}

describe('restore drill', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-drill-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('embedded database: dealflow backup under load, dealflow restore into a fresh folder, verify, every acknowledged write there', {
    skip: onPostgres ? 'the embedded database drill runs without TEST_DATABASE_URL' : false,
    timeout: 600_000,
  }, async () => {
    const source = { DATA_DIR: join(dir, 'source'), DATABASE_URL: '' };
    const service = await startService(source);
    let restored: Service | undefined;
    try {
      const created = cli(source, 'token', 'create', '--role', 'admin', '--name', 'drill');
      assert.equal(created.status, 0, created.stderr);
      const token = /dfk_[A-Za-z0-9_-]+/.exec(created.stdout)![0];
      const { dealId, investors } = await setUp(service.base, token, 3, 4);
      const file = join(dir, 'backup.tar.gz');
      let output = '';
      const load = await underLoad(service.base, token, dealId, investors, async () => {
        const backup = await cliAsync(source, 'backup', file);
        assert.equal(backup.status, 0, backup.stderr);
        output = backup.stdout;
      });
      assert.match(output, /^Wrote .*backup\.tar\.gz: \d+ bytes in \d+ ms\.$/m);
      await service.stop();

      // A folder that is not empty is refused.
      const refused = cli({ DATA_DIR: source.DATA_DIR, DATABASE_URL: '' }, 'restore', file);
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /is not empty/);

      const fresh = { DATA_DIR: join(dir, 'restored'), DATABASE_URL: '' };
      const restore = cli(fresh, 'restore', file);
      assert.equal(restore.status, 0, restore.stdout + restore.stderr);
      assert.match(restore.stdout, /^OK: \d+ entries/m);
      assert.match(restore.stdout, /^Feed: /m);

      restored = await startService(fresh);
      const verify = cli(fresh, 'verify');
      assert.equal(verify.status, 0, verify.stdout + verify.stderr);
      assert.match(verify.stdout, /^Schema: (\d+) of \1 migrations applied/m);
      const result = await checkRestored(restored.base, token, dealId, load);
      process.stdout.write(
        `# embedded drill: ${load.acks.length} moves acknowledged (${result.restoredBefore} before the backup, all restored; ${result.restoredDuring} of those during it in the copy), backup ${Math.round(load.ended - load.began)} ms, ${load.failures} refused moves\n`,
      );
      // The feed goes on after the restored entries.
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const next = await checkedFetch(restored.base, `/deals/deal/${dealId}/jump-to-step`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ investorUserId: investors[0]![0], targetStepId: `${dealId}.withdrawn`, data: {} }),
      });
      assert.equal(next.status, 201, next.text);
      const after = await checkedFetch(restored.base, `/deals/deal/${dealId}/events?after=${result.lastSequence}`, { headers });
      assert.ok(JSON.stringify(after.json).includes(next.json.id), 'a move after the restore follows the restored entries in the feed');
    } finally {
      await service.stop();
      await restored?.stop();
    }
  });

  const pgSkip = !onPostgres ? 'needs PostgreSQL (set TEST_DATABASE_URL)' : (clusterUnavailable() ?? false);
  test('PostgreSQL: pg_basebackup under load, a fresh cluster from it, verify, every acknowledged write there', {
    skip: pgSkip,
    timeout: 600_000,
  }, async () => {
    const cluster = await createCluster();
    const source = { DATABASE_URL: cluster.url };
    const migrate = cli(source, 'migrate');
    assert.equal(migrate.status, 0, migrate.stderr);
    const service = await startService(source);
    let restored: Service | undefined;
    try {
      const created = cli(source, 'token', 'create', '--role', 'admin', '--name', 'drill');
      assert.equal(created.status, 0, created.stderr);
      const token = /dfk_[A-Za-z0-9_-]+/.exec(created.stdout)![0];
      const { dealId, investors } = await setUp(service.base, token, 4, 4);
      let copy = '';
      let backupMs = 0;
      const load = await underLoad(service.base, token, dealId, investors, async () => {
        const made = await cluster.baseBackup();
        copy = made.data;
        backupMs = made.ms;
      });
      await service.stop();
      const copyUrl = await cluster.startCopy(copy);
      const fresh = { DATABASE_URL: copyUrl };
      restored = await startService(fresh);
      const verify = cli(fresh, 'verify');
      assert.equal(verify.status, 0, verify.stdout + verify.stderr);
      assert.match(verify.stdout, /^Schema: (\d+) of \1 migrations applied/m);
      assert.match(verify.stdout, /^Feed: /m);
      const result = await checkRestored(restored.base, token, dealId, load);
      process.stdout.write(
        `# PostgreSQL drill: ${load.acks.length} moves acknowledged (${result.restoredBefore} before the backup, all restored; ${result.restoredDuring} of those during it in the copy), pg_basebackup ${backupMs} ms, ${load.failures} refused moves\n`,
      );
    } finally {
      await service.stop();
      await restored?.stop();
      cluster.destroy();
    }
  });
});
