// `dealflow worker` end to end on an embedded database folder, and the dispatcher's configuration.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { inTransaction, newUuid, systemClock } from '../../src/operations/deps.ts';
import { recordStepEntered } from '../../src/operations/outbox-events.ts';
import { checkWorkflowTriggers, saveStepTriggers } from '../../src/operations/step-triggers.ts';
import { seedScale } from '../../src/operations/seed.ts';
import { openDatabase } from '../../src/store/database.ts';
import { findFunnelBacklog } from '../../src/store/funnel-upkeep.ts';
import { upsertDeal } from '../../src/store/deals.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { onPostgres } from '../support/app.ts';
import { eventually, startReceiver } from '../support/webhooks.ts';

describe('dispatcher configuration', () => {
  test('defaults: on, 10 s timeout, 1 s poll', () => {
    const config = loadConfig({});
    assert.equal(config.webhooksDispatcher, true);
    assert.equal(config.webhooksTimeoutMs, 10_000);
    assert.equal(config.webhooksPollMs, 1000);
    assert.equal(loadConfig({ WEBHOOKS_DISPATCHER: 'off' }).webhooksDispatcher, false);
  });

  for (const [variable, value] of [
    ['WEBHOOKS_DISPATCHER', 'maybe'],
    ['WEBHOOKS_TIMEOUT_MS', '10s'],
    ['WEBHOOKS_POLL_MS', '0'],
  ] as const) {
    test(`a bad ${variable} (${value}) is refused, naming it`, () => {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (err: unknown) => err instanceof ConfigError && err.variable === variable,
      );
    });
  }
});

// Like test/cli/cli.test.ts: the CLI opens the database the service would use, so this runs
// on the embedded database only.
describe('dealflow worker', { skip: onPostgres ? 'runs on the embedded database only' : false }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dealflow-worker-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('--help explains it', () => {
    const help = spawnSync(process.execPath, ['bin/dealflow.js', 'worker', '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Delivers the webhooks/);
    assert.match(spawnSync(process.execPath, ['bin/dealflow.js', '--help'], { encoding: 'utf8' }).stdout, /\bworker\b/);
  });

  test('delivers what is due, and stops on SIGTERM', async () => {
    const receiver = await startReceiver();
    try {
      // Write a deal, a trigger and a move into the folder, then hand it to the worker.
      const database = await openDatabase({ ...loadConfig({}), dataDir });
      let entryId: string;
      try {
        await migrateToLatest(database.db);
        const deps = { db: database.db, clock: systemClock, newId: newUuid };
        await upsertDeal(database.db, { id: 'deal-w', name: 'Worker deal', description: null, currency: null }, new Date());
        await inTransaction(deps, (tx) =>
          saveStepTriggers(tx, 'deal-w', checkWorkflowTriggers([{ id: 's', triggers: [{ kind: 'webhook', url: receiver.url }] }])),
        );
        entryId = await inTransaction(deps, (tx) =>
          recordStepEntered(tx, {
            dealId: 'deal-w',
            investorUserId: 'inv-w',
            event: { id: newUuid(), fromStepId: null, toStepId: 's', data: {}, createdByUserId: 'ops', createdAt: new Date().toISOString() },
          }),
        );
      } finally {
        await database.close();
      }
      const worker = spawn(process.execPath, ['bin/dealflow.js', 'worker'], {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', WEBHOOKS_POLL_MS: '50', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      worker.stderr.on('data', (chunk) => (stderr += chunk));
      try {
        await eventually(async () => (receiver.received.length > 0 ? true : undefined), 30_000, `the worker to deliver (stderr: ${stderr})`);
        assert.equal(receiver.received[0]!.headers['webhook-id'], entryId!);
      } finally {
        worker.kill('SIGTERM');
        const [code] = await once(worker, 'exit');
        assert.equal(code, 0, stderr);
      }
    } finally {
      await receiver.close();
    }
  });

  test('keeps the funnel: journeys written while it was stopped are applied', async () => {
    const database = await openDatabase({ ...loadConfig({}), dataDir });
    try {
      await migrateToLatest(database.db);
      await seedScale({ db: database.db, clock: systemClock, newId: newUuid }, { investors: 20, deals: 1 });
      assert.equal((await findFunnelBacklog(database.db)).waiting, true, "the seed's audit entries wait for the funnel");
    } finally {
      await database.close();
    }
    const worker = spawn(process.execPath, ['bin/dealflow.js', 'worker'], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', FUNNEL_UPKEEP_INTERVAL_MS: '50', LOG_LEVEL: 'debug' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    worker.stdout.on('data', (chunk) => (output += chunk));
    worker.stderr.on('data', (chunk) => (output += chunk));
    try {
      await eventually(
        async () => (/took moves and edits into the funnel/.test(output) ? true : undefined),
        30_000,
        `the worker to apply the funnel (output: ${output})`,
      );
    } finally {
      worker.kill('SIGTERM');
      const [code] = await once(worker, 'exit');
      assert.equal(code, 0, output);
    }
    const reopened = await openDatabase({ ...loadConfig({}), dataDir });
    try {
      assert.equal((await findFunnelBacklog(reopened.db)).waiting, false, 'nothing is left waiting');
    } finally {
      await reopened.close();
    }
  });
});
