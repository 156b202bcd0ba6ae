// Point-in-time recovery with pgBackRest (docs/operations/README.md, "Point-in-time recovery"), on
// a throwaway cluster of its own (free loopback port, temp folder, removed at the end): WAL archived
// by pgBackRest's archive-push, a full backup, a few good moves, the moment noted, a bad bulk move,
// then a restore to that moment into a new folder, started as a cluster of its own. There
// `dealflow verify` passes, the good moves are there and the bad bulk move is not. The figures
// (backup, restore and recovery times; what the restore kept) go to the test's diagnostics and to
// test-results/pitr.json.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
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
import { createDeal } from '../support/deals.ts';
import { freePort, serverBinDir, serverFolder, serverUnavailable } from '../support/pg-server.ts';

const pgbackrest = spawnSync('which', ['pgbackrest'], { encoding: 'utf8' }).stdout.trim();
const why = serverUnavailable() ?? (pgbackrest ? undefined : 'no pgbackrest (apt-get install pgbackrest)');
// In CI a missing pgBackRest is a failure (.ci/run installs it), not a skip that would hide the test.
const skip = why && !process.env.CI ? why : false;

describe('point-in-time recovery with pgBackRest', { skip }, () => {
  const folder = serverFolder('dealflow-pitr-');
  const bin = serverBinDir()!;
  const running: string[] = [];
  after(() => {
    for (const data of running) {
      try {
        folder.run([join(bin, 'pg_ctl'), '-D', data, '-w', '-t', '60', '-m', 'immediate', 'stop']);
      } catch {
        // already down
      }
    }
    spawnSync('rm', ['-rf', folder.dir]);
  });

  test('restore to the moment before a bad bulk move: verify passes, the good moves are there, the bad one is gone', { timeout: 600_000 }, async (t) => {
    assert.equal(why, undefined, why);
    const dir = folder.dir;
    const data = join(dir, 'data');
    const restored = join(dir, 'restored');
    const config = join(dir, 'pgbackrest.conf');
    const stanza = 'dealflow';
    const port = await freePort();
    // One configuration for the source and the restore: the repository, and the source's folder.
    const conf = [
      '[global]',
      `repo1-path=${join(dir, 'repo')}`,
      'repo1-retention-full=2',
      `log-path=${join(dir, 'log')}`,
      `lock-path=${join(dir, 'lock')}`,
      'log-level-console=warn',
      'start-fast=y',
      '',
      `[${stanza}]`,
      `pg1-path=${data}`,
      `pg1-port=${port}`,
      `pg1-socket-path=${dir}`,
      '',
    ].join('\n');
    folder.run(['sh', '-c', `cat > ${config} <<'EOF'\n${conf}EOF`]);
    const backrest = (...args: string[]) => folder.run([pgbackrest, `--config=${config}`, `--stanza=${stanza}`, ...args], 300_000);
    const start = (pgdata: string, at: number) => {
      const options = `-p ${at} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=40 -c shared_buffers=16MB -c wal_level=replica -c fsync=off`;
      folder.run([join(bin, 'pg_ctl'), '-D', pgdata, '-l', `${pgdata}.log`, '-w', '-t', '120', '-o', options, 'start'], 180_000);
      running.push(pgdata);
    };

    folder.run([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    // Continuous archiving: every WAL segment goes to the repository as it fills (or after
    // archive_timeout); archive_timeout bounds what a lost primary loses.
    folder.run([
      'sh',
      '-c',
      `cat >> ${join(data, 'postgresql.conf')} <<'EOF'
archive_mode = on
archive_command = '${pgbackrest} --config=${config} --stanza=${stanza} archive-push %p'
archive_timeout = 60
EOF`,
    ]);
    start(data, port);
    backrest('stanza-create');
    backrest('check');
    let started = performance.now();
    backrest('backup', '--type=full');
    const backupMs = performance.now() - started;

    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const source = new pg.Client({ connectionString: url });
    await source.connect();
    await source.query('create extension if not exists pg_trgm; create extension if not exists btree_gin');
    const appConfig = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url, WEBHOOKS_DISPATCHER: 'off' });
    const database = await openDatabase(appConfig);
    let target: string;
    let dealId: string;
    let good: string[];
    let bad: string[];
    try {
      await migrateToLatest(database.db);
      const app = await buildApp({ db: database.db, config: appConfig, clock: systemClock, newId: newUuid });
      await app.ready();
      const admin = client(app, (await createToken(database.db, { name: 'pitr', role: 'admin' })).token);
      const deal = await createDeal(admin);
      dealId = deal.dealId;
      good = [];
      for (let i = 0; i < 5; i++) {
        const investor = await deal.addInvestor();
        await deal.move(investor, 'interest');
        good.push(investor);
      }
      bad = [];
      for (let i = 0; i < 20; i++) bad.push(await deal.addInvestor());
      // The moment to restore to, from the server's clock: everything above has committed.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      target = (await source.query<{ at: string }>(`select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' as at`)).rows[0]!
        .at;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      // The bad bulk move: every investor of the deal moved to the wrong step.
      const moved = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, {
        moves: [...good, ...bad].map((investorUserId) => ({
          investorUserId,
          targetStepId: deal.step('commitment'),
          data: { committed_amount: '1.00', currency: 'EUR' },
        })),
      });
      assert.equal(moved.status, 200, moved.text);
      await app.close();
    } finally {
      await database.close();
    }
    const applied = await source.query<{ n: number }>(`select count(*)::int as n from workflow_events where deal_id = $1 and to_step_id like '%.commitment'`, [
      dealId,
    ]);
    assert.equal(applied.rows[0]!.n, good.length + bad.length, 'the bad bulk move was applied on the source');
    // Archive the segment that holds the bad move (archive_timeout would, within a minute).
    await source.query('select pg_switch_wal()');
    await source.end();
    backrest('check');

    started = performance.now();
    folder.run(['mkdir', '-m', '700', restored]);
    backrest('restore', `--pg1-path=${restored}`, '--type=time', `--target=${target}`, '--target-action=promote', '--target-exclusive');
    const restoreMs = performance.now() - started;
    const restoredPort = await freePort();
    started = performance.now();
    start(restored, restoredPort);
    const restoredUrl = `postgres://postgres@127.0.0.1:${restoredPort}/postgres`;
    const copy = new pg.Client({ connectionString: restoredUrl });
    for (let i = 0; ; i++) {
      try {
        await copy.connect();
        break;
      } catch (err) {
        if (i > 100) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    while ((await copy.query<{ r: boolean }>('select pg_is_in_recovery() as r')).rows[0]!.r) await new Promise((resolve) => setTimeout(resolve, 200));
    const recoveryMs = performance.now() - started;

    const { rows } = await copy.query<{ investor_user_id: string; to_step_id: string }>(
      'select investor_user_id, to_step_id from workflow_events where deal_id = $1 order by investor_user_id',
      [dealId],
    );
    await copy.end();
    const lines: string[] = [];
    const check = await openDatabase(loadConfig({ DATABASE_URL: restoredUrl }));
    let verified: number;
    try {
      verified = await runVerify(check.db, {}, (line) => lines.push(line));
    } finally {
      await check.close();
    }
    const figures = {
      'full backup (s)': round(backupMs / 1000),
      'restore to the moment (pgbackrest restore, s)': round(restoreMs / 1000),
      'start and recovery to the moment (s)': round(recoveryMs / 1000),
      'recovery time (restore + start, s)': round((restoreMs + recoveryMs) / 1000),
      'good moves kept': rows.filter((r) => good.includes(r.investor_user_id)).length,
      'events of the bad bulk move kept': rows.filter((r) => r.to_step_id.endsWith('.commitment')).length,
      'restored to': target,
    };
    t.diagnostic(JSON.stringify(figures, null, 2));
    const out = fileURLToPath(new URL('../../test-results/', import.meta.url));
    mkdirSync(out, { recursive: true });
    writeFileSync(`${out}/pitr.json`, `${JSON.stringify(figures, null, 2)}\n`);

    assert.equal(verified, 0, lines.join('\n'));
    assert.deepEqual(rows.map((r) => r.investor_user_id).sort(), [...good].sort(), 'the good moves, and nothing of the bad bulk move');
    assert.ok(rows.every((r) => r.to_step_id === `${dealId}.interest`));
  });
});

const round = (n: number) => Math.round(n * 10) / 10;
