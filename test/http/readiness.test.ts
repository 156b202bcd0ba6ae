// GET /readyz answers from operations/readiness.ts: ready while the database answers a statement,
// a 503 problem with Retry-After once it does not (here: the database closed under the app).
import assert from 'node:assert/strict';
import { test } from 'node:test';
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
