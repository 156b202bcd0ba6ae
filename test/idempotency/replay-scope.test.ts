// Idempotency keys belong to the whole principal, and a replay is served only after the route's own
// authorization: two investor JWTs with the same `sub` but different investors do not share keys,
// so investor A sending B's key and body gets A's answer (a 404 for B's event), never B's stored
// edit request.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';

const secret = 'a-test-secret-that-is-long-enough-for-hs256';
const jwt = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(secret));

describe('idempotency keys are scoped to the whole principal', () => {
  const t = startApp({ env: { JWT_SECRET: secret } });
  const admin = t.admin;

  test("same sub, different investor claim: A replaying B's key and body gets a 404, not B's request", async () => {
    const deal = await createDeal(admin);
    const a = await deal.addInvestor();
    const b = await deal.addInvestor();
    await deal.move(a, 'commitment', { committed_amount: '1000.00', currency: 'EUR' });
    const eventB = await deal.move(b, 'commitment', { committed_amount: '2000.00', currency: 'EUR' });
    const asA = client(t.app, await jwt({ sub: 'shared-login', role: 'investor', investor_user_id: a }));
    const asB = client(t.app, await jwt({ sub: 'shared-login', role: 'investor', investor_user_id: b }));
    const body = { workflowEventId: eventB.id, type: 'Withdraw Investment', reason: 'leaving' };
    const headers = { 'idempotency-key': 'shared-key-1' };

    const created = await asB.post('/deals/request-to-edit', body, headers);
    assert.equal(created.status, 201, created.text);
    const replayByA = await asA.post('/deals/request-to-edit', body, headers);
    const problem = expectProblem(replayByA, 404);
    assert.equal(replayByA.headers['idempotent-replayed'], undefined);
    assert.doesNotMatch(replayByA.text, new RegExp(created.body.id));
    assert.match(problem.detail, /workflow event/);
    // B's own replay still works: the key was B's all along.
    const replayByB = await asB.post('/deals/request-to-edit', body, headers);
    assert.equal(replayByB.status, 201);
    assert.equal(replayByB.headers['idempotent-replayed'], 'true');
    assert.equal(replayByB.text, created.text);
  });

  test('the same key used by two principals runs twice, once for each: keys never meet', async () => {
    const deal = await createDeal(admin);
    const a = await deal.addInvestor();
    const b = await deal.addInvestor();
    const eventA = await deal.move(a, 'commitment', { committed_amount: '1000.00', currency: 'EUR' });
    const eventB = await deal.move(b, 'commitment', { committed_amount: '2000.00', currency: 'EUR' });
    const asA = client(t.app, await jwt({ sub: 'shared-login-2', role: 'investor', investor_user_id: a }));
    const asB = client(t.app, await jwt({ sub: 'shared-login-2', role: 'investor', investor_user_id: b }));
    const headers = { 'idempotency-key': 'shared-key-2' };
    const first = await asA.post('/deals/request-to-edit', { workflowEventId: eventA.id, type: 'Withdraw Investment', reason: 'a' }, headers);
    const second = await asB.post('/deals/request-to-edit', { workflowEventId: eventB.id, type: 'Withdraw Investment', reason: 'b' }, headers);
    assert.equal(first.status, 201, first.text);
    assert.equal(second.status, 201, `a different body under another principal's key is not a 422: ${second.text}`);
    assert.notEqual(first.body.id, second.body.id);
  });
});
