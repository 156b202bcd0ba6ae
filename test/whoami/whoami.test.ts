// GET /whoami: who the caller is, for a staff key of each role and an investor's key; no key, or a
// key that is not one, is a 401 problem. On PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { uniqueId } from '../support/fixtures.ts';

describe('whoami', () => {
  const t = startApp();

  test('a staff key says its role; an investor key its investor', async () => {
    const admin = (await t.admin.get('/whoami')).body;
    assert.equal(admin.role, 'admin');
    assert.equal(admin.investorUserId, undefined);
    const operator = client(t.app, (await createToken(t.database.db, { name: 'operator key', role: 'operator' })).token);
    assert.equal((await operator.get('/whoami')).body.role, 'operator');
    const investorId = uniqueId('inv');
    const investor = (await client(t.app, await t.investorToken(investorId)).get('/whoami')).body;
    assert.deepEqual([investor.role, investor.investorUserId], ['investor', investorId]);
  });

  test('no key, a malformed one or an unknown one is a 401', async () => {
    expectProblem(await client(t.app).get('/whoami'), 401);
    expectProblem(await client(t.app, 'not-a-token').get('/whoami'), 401);
    expectProblem(await client(t.app, `dfk_${'0'.repeat(40)}`).get('/whoami'), 401);
  });
});
