// JWT claims the service relies on: exp required, a lifetime no longer than JWT_MAX_LIFETIME, no
// iat or nbf more than 60 s ahead, and an investor claim that is one non-empty string or absent.
// Each refusal is a 401 naming the claim.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { loadConfig } from '../../src/config.ts';
import { client, expectProblem, startApp } from '../support/app.ts';

const secret = 'a-test-secret-that-is-long-enough-for-hs256';
const key = new TextEncoder().encode(secret);
const now = () => Math.floor(Date.now() / 1000);

/** Signs exactly these claims: nothing is added. */
const sign = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(key);

describe('JWT claims', () => {
  const t = startApp({ env: { JWT_SECRET: secret, JWT_MAX_LIFETIME: '2h' } });

  const refused = async (claims: Record<string, unknown>, detail: RegExp) => {
    const response = await client(t.app, await sign(claims)).get('/whoami');
    const problem = expectProblem(response, 401);
    assert.equal(response.headers['www-authenticate'], 'Bearer');
    assert.match(problem.detail, detail);
  };
  const accepted = async (claims: Record<string, unknown>) => {
    const response = await client(t.app, await sign(claims)).get('/whoami');
    assert.equal(response.status, 200, response.text);
    return response.body;
  };
  const admin = { sub: 'staff-1', role: 'admin' };

  test('a JWT without exp is refused, naming exp', () => refused({ ...admin, iat: now() }, /\bexp\b/));
  test('an expired JWT is refused, naming exp', () => refused({ ...admin, iat: now() - 120, exp: now() - 1 }, /expired \(exp\)/));

  test('a lifetime longer than JWT_MAX_LIFETIME is refused; exactly the maximum is accepted', async () => {
    await refused({ ...admin, iat: now(), exp: now() + 2 * 3600 + 60 }, /exp claim.*JWT_MAX_LIFETIME/);
    // Without iat the lifetime counts from now.
    await refused({ ...admin, exp: now() + 3 * 3600 }, /JWT_MAX_LIFETIME/);
    // iat in the past does not make a long token shorter: exp − iat is the lifetime.
    await refused({ ...admin, iat: now() - 3 * 3600, exp: now() + 600 }, /JWT_MAX_LIFETIME/);
    await accepted({ ...admin, iat: now(), exp: now() + 2 * 3600 - 5 });
    await accepted({ ...admin, exp: now() + 60 });
  });

  test('iat or nbf more than 60 s in the future is refused, naming the claim; a few seconds of skew are not', async () => {
    await refused({ ...admin, iat: now() + 600, exp: now() + 1200 }, /\biat\b/);
    await refused({ ...admin, nbf: now() + 600, exp: now() + 1200 }, /\bnbf\b/);
    await accepted({ ...admin, iat: now() + 10, nbf: now() + 10, exp: now() + 600 });
  });

  test('an investor claim that is an array, empty, or not a string is refused; absent falls back to sub', async () => {
    const investor = { sub: 'user-5', role: 'investor', exp: now() + 600 };
    for (const claim of [['inv-a', 'inv-b'], [], '', 42, { id: 'inv-a' }, null, true]) {
      await refused({ ...investor, investor_user_id: claim }, /investor_user_id claim/);
    }
    assert.deepEqual(await accepted(investor), { userId: 'user-5', role: 'investor', investorUserId: 'user-5' });
    assert.deepEqual(await accepted({ ...investor, investor_user_id: 'inv-5' }), { userId: 'user-5', role: 'investor', investorUserId: 'inv-5' });
  });

  test('JWT_MAX_LIFETIME defaults to 24 h and takes seconds or a unit; nonsense is a configuration error', () => {
    const base = { JWT_SECRET: secret };
    assert.equal(loadConfig(base).jwt?.maxLifetimeSeconds, 86_400);
    assert.equal(loadConfig({ ...base, JWT_MAX_LIFETIME: '3600' }).jwt?.maxLifetimeSeconds, 3600);
    assert.equal(loadConfig({ ...base, JWT_MAX_LIFETIME: '15m' }).jwt?.maxLifetimeSeconds, 900);
    assert.equal(loadConfig({ ...base, JWT_MAX_LIFETIME: '7d' }).jwt?.maxLifetimeSeconds, 7 * 86_400);
    for (const bad of ['1 day', '-5', '2w', '0', '1000d']) assert.throws(() => loadConfig({ ...base, JWT_MAX_LIFETIME: bad }), /JWT_MAX_LIFETIME/);
  });
});
