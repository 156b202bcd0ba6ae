// An import job left running by a process that stopped: on the embedded database, whose data folder
// one process holds, the next start reports every job still running as failed (interrupted), at
// once rather than after the heartbeat's 30 s. (On PostgreSQL other instances may be running jobs:
// only jobs whose heartbeat is old are failed, on reading them; import-jobs.test.ts.)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { serve } from '../../src/main.ts';
import { openDatabase } from '../../src/store/database.ts';
import { insertJob } from '../../src/store/import-jobs.ts';
import { onPostgres } from '../support/app.ts';
import { checkedFetch } from '../support/contract.ts';

describe('import jobs across a restart', { skip: onPostgres ? 'runs on the embedded database only' : false }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-jobs-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a job still running when the process stopped is failed at the next start, interrupted', async () => {
    const config = loadConfig({ DATA_DIR: join(dir, 'data'), PORT: '0', LOG_LEVEL: 'silent', WEBHOOKS_DISPATCHER: 'off' });
    const lines: string[] = [];
    const first = await serve(config, { demo: false, print: (line) => lines.push(line) });
    await first.close();
    const token = /dfk_[A-Za-z0-9_-]+/.exec(lines.join('\n'))?.[0];
    assert.ok(token, 'the first run prints an admin token');

    // A job as a process that was killed mid-import leaves it: running, its heartbeat fresh.
    const id = crypto.randomUUID();
    const database = await openDatabase(config);
    await insertJob(database.db, {
      id,
      kind: 'investors',
      dealId: null,
      dryRun: false,
      createdBy: 'x',
      bytes: 1,
      progress: { stage: 'reading', done: 10, total: null },
      createdAt: new Date(),
    });
    await database.close();

    const second = await serve(config, { demo: false, print: () => {} });
    try {
      const job = await checkedFetch(second.url, `/imports/jobs/${id}`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(job.status, 200, job.text);
      assert.equal(job.json.status, 'failed');
      assert.equal(job.json.problem.interrupted, true);
      assert.deepEqual(job.json.progress, { stage: 'reading', done: 10, total: null });
    } finally {
      await second.close();
    }
  });
});
