// Restoring from a real formation (docs/operations/README.md, "A base backup of a pg_auto_failover
// node"): a base backup of the formation's primary carries the node's configuration (the
// synchronous standby it waits for, pg_autoctl's settings). `dealflow restore --postgres` resets
// it (before that, the copy as taken cannot commit, and /readyz answers 503 within its bound);
// PostgreSQL started on the copy with nothing on its command line but a socket folder takes
// the port and addresses given; a write commits there at once, /readyz is ready within its bound,
// `dealflow verify` passes and names the data a copy (sealed on another server). The figures go to
// the test's diagnostics and to test-results/formation-restore.json.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { runVerify } from '../../src/cli/verify.ts';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { openDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { client } from '../support/app.ts';
import { createDeal, createInvestor } from '../support/deals.ts';
import { createFormation, type Formation, formationUnavailable } from '../support/formation.ts';
import { freePort, serverBinDir, serverFolder } from '../support/pg-server.ts';

const why = formationUnavailable();
const skip = why && !process.env.CI ? why : false;

describe('a base backup of a formation’s node, restored as a server of its own', { skip }, () => {
  let formation: Formation | undefined;
  const folder = serverFolder('dealflow-formation-restore-');
  const copy = join(folder.dir, 'copy');
  let started = false;
  after(() => {
    if (started) {
      try {
        folder.run([join(serverBinDir()!, 'pg_ctl'), '-D', copy, '-w', '-t', '60', '-m', 'immediate', 'stop']);
      } catch {
        // already down
      }
    }
    formation?.destroy();
    spawnSync('rm', ['-rf', folder.dir]);
  });

  test('dealflow restore --postgres resets what the node carried; the copy takes writes and verifies', { timeout: 600_000 }, async (t) => {
    assert.equal(why, undefined, why);
    formation = await createFormation();
    const setup = await openDatabase(loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: formation.url }));
    let dealId: string;
    try {
      await migrateToLatest(setup.db);
      const app = await buildApp({
        db: setup.db,
        config: loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: formation.url }),
        clock: systemClock,
        newId: newUuid,
      });
      await app.ready();
      const admin = client(app, (await createToken(setup.db, { name: 'restore', role: 'admin' })).token);
      const deal = await createDeal(admin);
      dealId = deal.dealId;
      for (let i = 0; i < 5; i++) await deal.move(await deal.addInvestor(), 'interest');
      assert.equal(await runVerify(setup.db, { seal: true }, () => {}), 0);
      await app.close();
    } finally {
      await setup.close();
    }

    const primary = (await formation.primary())!;
    const bin = serverBinDir()!;
    const backupStarted = performance.now();
    await folder.runAsync([
      join(bin, 'pg_basebackup'),
      '-D',
      copy,
      '-X',
      'stream',
      '-c',
      'fast',
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
    ]);
    const backupMs = performance.now() - backupStarted;
    // What the copy carries from the node: the standby it waits for, pg_autoctl's settings.
    const carried = readFileSync(join(copy, 'postgresql.auto.conf'), 'utf8');
    assert.match(carried, /synchronous_standby_names = '.*pgautofailover_standby/);
    assert.ok(existsSync(join(copy, 'postgresql-auto-failover.conf')), 'pg_autoctl’s settings come along');

    // The copy as taken, started with only its port and addresses moved off the node's: every commit
    // waits for the formation's standby, which never connects to it. /readyz says so, a 503 within
    // its bound, while a read still answers.
    const asTakenPort = await freePort();
    folder.run(
      [
        join(bin, 'pg_ctl'),
        '-D',
        copy,
        '-l',
        `${copy}.as-taken.log`,
        '-w',
        '-t',
        '120',
        '-o',
        `-k ${folder.dir} -p ${asTakenPort} -c listen_addresses=127.0.0.1 -c shared_buffers=32MB`,
        'start',
      ],
      180_000,
    );
    started = true;
    let asTakenReadyMs: number;
    {
      const asTakenUrl = `postgres://postgres@127.0.0.1:${asTakenPort}/dealflow`;
      const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: asTakenUrl, DATABASE_TIMEOUT_MS: '2000' });
      const reader = new pg.Client({ connectionString: asTakenUrl });
      await reader.connect();
      try {
        const { rows } = await reader.query<{ n: number }>('select count(*)::int as n from workflow_events where deal_id = $1', [dealId]);
        assert.equal(rows[0]!.n, 5, 'a read answers on the copy as taken');
      } finally {
        await reader.end();
      }
      const database = await openDatabase(config);
      try {
        const app = await buildApp({ db: database.db, config, clock: systemClock, newId: newUuid });
        try {
          await app.ready();
          const at = performance.now();
          const notReady = await client(app).get('/readyz');
          asTakenReadyMs = performance.now() - at;
          assert.equal(notReady.status, 503, notReady.text);
          assert.match(notReady.text, /commit/);
          assert.ok(asTakenReadyMs < 1500, `/readyz answered in ${Math.round(asTakenReadyMs)} ms`);
        } finally {
          await app.close();
        }
      } finally {
        await database.close();
      }
    }
    // The heartbeat's commit still waits for the standby: a fast stop ends it.
    folder.run([join(bin, 'pg_ctl'), '-D', copy, '-w', '-t', '60', '-m', 'fast', 'stop']);
    started = false;

    const port = await freePort();
    const restoreStarted = performance.now();
    const reset = spawnSync(
      process.execPath,
      ['bin/dealflow.js', 'restore', '--postgres', copy, '--port', String(port), '--listen-addresses', '127.0.0.1', '--shared-buffers', '32MB'],
      {
        encoding: 'utf8',
        env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '' },
      },
    );
    assert.equal(reset.status, 0, reset.stderr + reset.stdout);
    assert.match(reset.stdout, /dropped synchronous_standby_names/);
    // Nothing but the socket folder on the command line: port and addresses come from the reset.
    folder.run([join(bin, 'pg_ctl'), '-D', copy, '-l', `${copy}.log`, '-w', '-t', '120', '-o', `-k ${folder.dir}`, 'start'], 180_000);
    started = true;
    const startMs = performance.now() - restoreStarted;

    const url = `postgres://postgres@127.0.0.1:${port}/dealflow`;
    const settings = new pg.Client({ connectionString: url });
    await settings.connect();
    const show = async (name: string) => (await settings.query<Record<string, string>>(`show ${name}`)).rows[0]![name];
    assert.equal(await show('synchronous_standby_names'), '');
    assert.equal(await show('listen_addresses'), '127.0.0.1');
    assert.equal(await show('shared_buffers'), '32MB');
    assert.equal((await settings.query<{ r: boolean }>('select pg_is_in_recovery() as r')).rows[0]!.r, false);
    await settings.end();

    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url, DATABASE_TIMEOUT_MS: '2000' });
    const database = await openDatabase(config);
    const lines: string[] = [];
    let figures: Record<string, unknown>;
    try {
      const app = await buildApp({ db: database.db, config, clock: systemClock, newId: newUuid });
      await app.ready();
      const admin = client(app, (await createToken(database.db, { name: 'after restore', role: 'admin' })).token);
      let at = performance.now();
      const ready = await admin.get('/readyz');
      const readyMs = performance.now() - at;
      assert.equal(ready.status, 200, ready.text);
      at = performance.now();
      const investor = (await createInvestor(admin)).id;
      const moved = await admin.post(`/deals/deal/${dealId}/jump-to-step`, { investorUserId: investor, targetStepId: `${dealId}.interest`, data: {} });
      const writeMs = performance.now() - at;
      assert.equal(moved.status, 201, moved.text);
      await app.close();
      assert.equal(await runVerify(database.db, { seal: true }, (line) => lines.push(line)), 0, lines.join('\n'));
      assert.ok(
        lines.some((l) => l.startsWith('NOTE: a copy')),
        lines.join('\n'),
      );
      figures = {
        'base backup of the primary (s)': round(backupMs / 1000),
        'reset and start of the copy (s)': round(startMs / 1000),
        '/readyz on the copy as taken, a 503 (ms)': Math.round(asTakenReadyMs),
        '/readyz on the copy (ms)': Math.round(readyMs),
        'first writes on the copy (ms)': Math.round(writeMs),
      };
    } finally {
      await database.close();
    }
    t.diagnostic(JSON.stringify(figures, null, 2));
    t.diagnostic(lines.join('\n'));
    const out = fileURLToPath(new URL('../../test-results/', import.meta.url));
    mkdirSync(out, { recursive: true });
    writeFileSync(`${out}/formation-restore.json`, `${JSON.stringify(figures, null, 2)}\n`);
  });
});

const round = (n: number) => Math.round(n * 10) / 10;
