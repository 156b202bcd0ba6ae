// GET /readyz answers from operations/readiness.ts: ready while a write commits on the database,
// a 503 problem with Retry-After once it does not (here: the database closed under the app).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { client, expectProblem, openTestDatabase } from '../support/app.ts';

test('/readyz is ready while the database answers, and a 503 with Retry-After when it does not', async () => {
  const database = await openTestDatabase();
  const app = await buildApp({ db: database.db, config: loadConfig({ LOG_LEVEL: 'silent' }), clock: systemClock, newId: newUuid });
  try {
    const probe = client(app);
    const ready = await probe.get('/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready' });
    // Ready means a write committed: the heartbeat's row. (A database whose commits hang answers
    // 503 within the bound: test/idempotency/outcome-unknown.test.ts, on a cluster of its own.)
    const { rows } = await sql<{ heartbeat_at: Date | null }>`select heartbeat_at from database_identity`.execute(database.db);
    assert.ok(rows[0]?.heartbeat_at instanceof Date);

    await database.close();
    const down = await probe.get('/readyz');
    const problem = expectProblem(down, 503);
    assert.equal(down.headers['retry-after'], '5');
    assert.match(problem.detail, /^The database does not answer: /);
    // The process itself is alive.
    assert.equal((await probe.get('/healthz')).status, 200);
  } finally {
    await app.close();
  }
});
