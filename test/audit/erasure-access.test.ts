// Erasure ends every way the investor had in: their API keys are revoked in the erasure's
// transaction (and say so in the audit log), portal sessions, passkeys and open invitations end,
// and no new API key or invitation can be made for the erased id.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import { createToken } from '../../src/operations/tokens.ts';
import { AppError } from '../../src/domain/errors.ts';
import { verify } from '../support/audit.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createInvestor } from '../support/deals.ts';
import { createOpenDeal, investorAtInterest } from '../support/open-deals.ts';
import { invitationToken, portal } from '../support/portal.ts';

describe('erasure access', () => {
  const secret = 'a-test-secret-that-is-long-enough-for-hs256';
  const t = startApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '100000', JWT_SECRET: secret } });
  const origin = 'http://localhost:3000';
  const p = () => portal(t.app, t.config.basePath, origin);

  async function erase(investorUserId: string) {
    const erased = await t.admin.post(`/investors/${investorUserId}/erasure`, { overrideRetention: true, reason: 'the investor asked' });
    assert.equal(erased.status, 200, JSON.stringify(erased.body));
  }

  test("the investor's API keys stop working with the erasure, and say so in the audit log", async () => {
    const deal = await createOpenDeal(t.admin);
    const { id: investor, own } = await investorAtInterest(t, t.admin, deal);
    const second = await t.investorToken(investor);
    assert.equal((await client(t.app, second).get(`/investors/${investor}`)).status, 200);
    await erase(investor);
    const commit = { investorUserId: investor, targetStepId: deal.step('commit'), data: { committed_amount: '10.00', currency: 'EUR' } };
    expectProblem(await own.post(`/deals/deal/${deal.dealId}/jump-to-step`, commit), 401);
    expectProblem(await client(t.app, second).get(`/investors/${investor}`), 401);
    const { rows } = await sql<{ n: string }>`select count(*) as n from api_tokens where investor_user_id = ${investor} and revoked_at is null`.execute(
      t.database.db,
    );
    assert.equal(Number(rows[0]!.n), 0);
    const revoked = await sql<{ n: string }>`select count(*) as n from audit_log where type = 'token.revoked' and change->>'reason' = 'erased'
    and change->>'investorUserId' = ${investor}`.execute(t.database.db);
    assert.equal(Number(revoked.rows[0]!.n), 2);
    const result = await verify(t.database.db);
    assert.equal(result.code, 0, result.output);
  });

  test('no new API key is made for an erased investor, even with --allow-unknown', async () => {
    const investor = (await createInvestor(t.admin)).id;
    await erase(investor);
    for (const requireKnownInvestor of [true, false]) {
      await assert.rejects(
        createToken(t.database.db, { name: 'again', role: 'investor', investorUserId: investor, requireKnownInvestor }),
        (err: unknown) => err instanceof AppError && err.kind === 'conflict' && /erased/.test(err.message),
      );
    }
    const { rows } = await sql<{ n: string }>`select count(*) as n from api_tokens where investor_user_id = ${investor}`.execute(t.database.db);
    assert.equal(Number(rows[0]!.n), 0);
  });

  test('staff cannot invite an erased investor to the portal again: 409 naming them, and nothing is created', async () => {
    const investor = (await createInvestor(t.admin)).id;
    const [first] = await p().invite(t.admin, [investor]);
    await p().register(invitationToken(first!.url));
    await erase(investor);
    const other = (await createInvestor(t.admin)).id;
    const problem = expectProblem(await t.admin.post('/investors/portal-invitations', { investorUserIds: [other, investor] }), 409);
    assert.match(problem.detail, new RegExp(`"${investor}".*erased`));
    const { rows } = await sql<{
      n: string;
    }>`select count(*) as n from sign_in_invitations where subject_id in (${investor}, ${other}) and revoked_at is null and used_at is null`.execute(
      t.database.db,
    );
    assert.equal(Number(rows[0]!.n), 0);
  });

  test('a JWT bound to the erased investor authenticates no more (401), whatever its sub', async () => {
    const deal = await createOpenDeal(t.admin);
    const { id: investor } = await investorAtInterest(t, t.admin, deal);
    const jwt = await new SignJWT({ sub: 'idp|erased', role: 'investor', investor_user_id: investor })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(secret));
    const own = client(t.app, jwt);
    assert.equal((await own.get(`/investors/${investor}`)).status, 200);
    await erase(investor);
    expectProblem(await own.get(`/investors/${investor}`), 401);
    const commit = { investorUserId: investor, targetStepId: deal.step('commit'), data: { committed_amount: '10.00', currency: 'EUR' } };
    expectProblem(await own.post(`/deals/deal/${deal.dealId}/jump-to-step`, commit), 401);
    // Another investor's JWT is not affected.
    const { id: other } = await investorAtInterest(t, t.admin, deal);
    const theirs = await new SignJWT({ sub: 'idp|other', role: 'investor', investor_user_id: other })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(secret));
    assert.equal((await client(t.app, theirs).get(`/investors/${other}`)).status, 200);
  });
});
