import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { revokeToken } from '../../src/operations/tokens.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';

const secret = 'a-test-secret-that-is-long-enough-for-hs256';
const key = new TextEncoder().encode(secret);
const jwt = (claims: Record<string, unknown>, options: { expiresIn?: string | number; key?: Uint8Array } = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m')
    .sign(options.key ?? key);

describe('authentication', () => {
  const t = startApp({ env: { JWT_SECRET: secret, JWT_ROLE_CLAIM: 'dealflow/role', JWT_INVESTOR_CLAIM: 'investor' } });

  const unauthorized = async (authorization: string | undefined, detail: RegExp) => {
    const response = await client(t.app).get('/whoami', authorization === undefined ? {} : { authorization });
    const problem = expectProblem(response, 401);
    assert.equal(response.headers['www-authenticate'], 'Bearer');
    assert.equal(problem.type, 'urn:dealflow:problem:unauthenticated');
    assert.match(problem.detail, detail);
  };

  test('no token is 401', () => unauthorized(undefined, /Authorization: Bearer/));
  test('a malformed header is 401', () => unauthorized('Basic dXNlcjpwYXNz', /must be "Bearer <token>"/));
  test('an unknown token is 401', () => unauthorized('Bearer dfk_unknown', /unknown or revoked/));

  test('a revoked token is 401, and was accepted before', async () => {
    const created = await createToken(t.database.db, { name: 'to revoke', role: 'admin' });
    assert.equal((await client(t.app, created.token).get('/whoami')).status, 200);
    await revokeToken(t.database.db, created.id);
    await unauthorized(`Bearer ${created.token}`, /unknown or revoked/);
  });

  test('an expired JWT is 401', async () => {
    const token = await jwt({ sub: 'u1', 'dealflow/role': 'admin' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 });
    await unauthorized(`Bearer ${token}`, /expired/);
  });

  test('a JWT signed with another key is 401', async () => {
    const token = await jwt({ sub: 'u1', 'dealflow/role': 'admin' }, { key: new TextEncoder().encode('x'.repeat(40)) });
    await unauthorized(`Bearer ${token}`, /could not be verified/);
  });

  test('a JWT without a known role is 401', async () => {
    const token = await jwt({ sub: 'u1', 'dealflow/role': 'superuser' });
    await unauthorized(`Bearer ${token}`, /must be viewer, operator, approver, admin or investor/);
  });

  test('a valid JWT gives the user id, role and investor id from the configured claims', async () => {
    const admin = await client(t.app, await jwt({ sub: 'staff-7', 'dealflow/role': 'admin' })).get('/whoami');
    assert.deepEqual(admin.body, { userId: 'staff-7', role: 'admin' });
    const investor = await client(t.app, await jwt({ sub: 'user-9', 'dealflow/role': 'investor', investor: 'inv-9' })).get('/whoami');
    assert.deepEqual(investor.body, { userId: 'user-9', role: 'investor', investorUserId: 'inv-9' });
  });

  test('an API key authenticates with its role', async () => {
    const response = await client(t.app, t.adminToken).get('/whoami');
    assert.equal(response.status, 200);
    assert.equal(response.body.role, 'admin');
    const investor = await client(t.app, await t.investorToken('inv-1')).get('/whoami');
    assert.deepEqual(investor.body, { userId: 'inv-1', role: 'investor', investorUserId: 'inv-1' });
  });

  test('an investor token on an admin-only route is 403, and nothing is written', async () => {
    const investor = client(t.app, await t.investorToken('inv-2'));
    const problem = expectProblem(await investor.put('/deals/deal/forbidden-deal', { name: 'x' }), 403);
    assert.equal(problem.type, 'urn:dealflow:problem:forbidden');
    expectProblem(await client(t.app, t.adminToken).get('/deals/deal/forbidden-deal'), 404);
  });

  test('an unknown route is a 404 problem', async () => {
    expectProblem(await client(t.app, t.adminToken).get('/no/such/route'), 404);
  });
});
