// The caches of issue #8 (src/operations/caches.ts): a cached API key stops working as soon as it is
// revoked, in this instance at once and in the others when the NOTIFY arrives.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { publishInvalidation } from '../../src/operations/caches.ts';
import { createToken, revokeToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startTestApp, type TestApp } from '../support/app.ts';

describe('token cache', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('a revoked token is refused on the next request, though it was just cached', async () => {
    const created = await createToken(t.database.db, { name: 'cached', role: 'admin' });
    const api = client(t.app, created.token);
    assert.equal((await api.get('/whoami')).status, 200);
    assert.equal((await api.get('/whoami')).status, 200, 'served from the cache');
    await revokeToken(t.database.db, created.id);
    expectProblem(await api.get('/whoami'), 401);
  });

  test('a revocation made elsewhere reaches this instance through its notification', async () => {
    const created = await createToken(t.database.db, { name: 'revoked elsewhere', role: 'admin' });
    const api = client(t.app, created.token);
    assert.equal((await api.get('/whoami')).status, 200);
    // Another instance (or the CLI in another process) revokes: the row changes, then its NOTIFY
    // arrives here. Until then this instance still trusts its cache, for at most the TTL.
    await sql`update api_tokens set revoked_at = now() where id = ${created.id}`.execute(t.database.db);
    assert.equal((await api.get('/whoami')).status, 200, 'the cache answered, not the database');
    const arrived = once(t.caches.events, 'invalidated');
    await publishInvalidation(t.database.db, { kind: 'token', tokenId: created.id });
    const [message] = await arrived;
    assert.deepEqual(message, { kind: 'token', tokenId: created.id });
    expectProblem(await api.get('/whoami'), 401);
  });
});
