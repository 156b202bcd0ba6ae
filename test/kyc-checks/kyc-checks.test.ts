// Checks by an external KYC provider, end to end over real HTTP: the app listens on a port, the
// provider simulator (test/support/kyc-simulator.ts, following docs/reference/kyc-provider-contract.md)
// is a real server. An operator starts a check; the simulator answers, then posts the signed result
// to the webhook; a clear result raises the investor's KYC level with an audit entry, and a move
// that requires that level now passes, the move path unchanged. Reading and starting by role.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, type StartedApp, startTestApp } from '../support/app.ts';
import { createDeal, createInvestor } from '../support/deals.ts';
import { type KycSimulator, startKycSimulator } from '../support/kyc-simulator.ts';
import { rowCounts } from '../support/row-counts.ts';
import { feedCaughtUp } from '../support/webhooks.ts';

describe('kyc checks', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  let simulator: KycSimulator;
  let t: StartedApp;
  // The provider's URL goes in the app's configuration, and the app's port in the simulator's: the
  // simulator starts first, the app listens on a port of its own, the simulator is told where.
  before(async () => {
    simulator = await startKycSimulator({ secret, delayMs: 20 });
    const app = await startTestApp({
      env: { KYC_PROVIDER: 'http', KYC_PROVIDER_URL: simulator.url, KYC_WEBHOOK_SECRET: secret, KYC_PROVIDER_NAME: 'simulator' },
    });
    t = { ...app, admin: client(app.app, app.adminToken) };
    simulator.callbackUrl = `${await t.app.listen({ port: 0, host: '127.0.0.1' })}/kyc-provider/webhook`;
  });
  after(async () => {
    await simulator?.stop();
    await t?.close();
  });

  const staffClient = async (role: 'viewer' | 'operator' | 'approver') =>
    client(t.app, (await createToken(t.database.db, { name: `${role} key`, role })).token);
  const auditTypes = async (checkId: string) =>
    (
      await sql<{
        type: string;
        principal: string;
      }>`select type, principal from audit_log where chain = 'directory' and change->>'checkId' = ${checkId} order by seq`.execute(t.database.db)
    ).rows;

  describe('KYC checks by the provider', () => {
    test('start → the provider posts a signed clear result → the level is set → the move that needs it passes', async () => {
      const deal = await createDeal(t.admin);
      const investor = await deal.addInvestor({ kycCheckLevel: 0 });
      await deal.move(investor, 'interest', { note: 'keen' });
      await deal.move(investor, 'commitment', { committed_amount: '1000.00', currency: 'EUR' });
      const refused = expectProblem(
        await t.admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.steps.kyc, data: { kyc_ref: 'K-1' } }),
        422,
      );
      assert.deepEqual(
        (refused.failedRequirements as { kind: string }[]).map((f) => f.kind),
        ['kyc-level'],
      );

      const operator = await staffClient('operator');
      const started = await operator.post(`/investors/${investor}/kyc-checks`, { level: 2, dealId: deal.dealId });
      assert.equal(started.status, 201, started.text);
      assert.equal(started.body.state, 'started');
      assert.equal(started.body.level, 2);
      assert.equal(started.body.provider, 'simulator');
      assert.match(started.body.providerCheckId, /^sim_/);
      assert.equal(started.body.redirectUrl, `${simulator.url}/verify/${started.body.providerCheckId}`);
      assert.equal(started.body.result, null);
      const asked = simulator.requests.find((r) => r.reference === started.body.id);
      assert.deepEqual({ level: asked?.level, dealId: asked?.dealId, investor: asked?.investor.id }, { level: 2, dealId: deal.dealId, investor });

      const delivery = await simulator.settled(started.body.id);
      assert.equal(delivery.status, 200, delivery.body);
      assert.deepEqual(JSON.parse(delivery.body), { checkId: started.body.id, state: 'clear', duplicate: false });

      const listed = await t.admin.get(`/investors/${investor}/kyc-checks`);
      assert.equal(listed.status, 200);
      assert.equal(listed.body.checks.length, 1);
      assert.equal(listed.body.checks[0].state, 'clear');
      assert.equal(listed.body.checks[0].result.level, 2);
      assert.equal((await t.admin.get(`/investors/${investor}`)).body.kycCheckLevel, 2);
      assert.deepEqual(await auditTypes(started.body.id), [
        { type: 'kyc.check-started', principal: started.body.startedBy },
        { type: 'kyc.check-decided', principal: 'kyc-provider:simulator' },
      ]);

      // The deal's feed (and its webhooks) carry the decision.
      await feedCaughtUp(t.database.db);
      const feed = (await t.admin.get(`/deals/deal/${deal.dealId}/events?limit=100`)).body.output as { type: string; data: Record<string, unknown> }[];
      assert.deepEqual(
        feed.filter((e) => e.type === 'kyc-check.decided').map((e) => e.data),
        [{ checkId: started.body.id, investorUserId: investor, dealId: deal.dealId, outcome: 'clear', level: 2, kycCheckLevel: 2 }],
      );

      await deal.move(investor, 'kyc', { kyc_ref: started.body.providerCheckId });
    });

    test('the same result delivered again is answered as the first and changes nothing', async () => {
      const { id: investor } = await createInvestor(t.admin, { kycCheckLevel: 1 });
      const started = await t.admin.post(`/investors/${investor}/kyc-checks`, { level: 3 });
      assert.equal((await simulator.settled(started.body.id)).status, 200);
      const before = await rowCounts(t);
      for (const again of [await simulator.send(started.body.id), await simulator.send(started.body.id, { webhookId: 'msg_retried-with-a-new-id' })]) {
        assert.equal(again.status, 200, again.body);
        assert.deepEqual(JSON.parse(again.body), { checkId: started.body.id, state: 'clear', duplicate: true });
      }
      assert.deepEqual(await rowCounts(t), before);
      assert.equal((await t.admin.get(`/investors/${investor}`)).body.kycCheckLevel, 3);
    });

    test('refer and failed results are recorded and leave the level; a clear result never lowers it', async () => {
      const cases = [
        { surname: 'Refer', level: 1, state: 'refer', after: 1 },
        { surname: 'Fail', level: null, state: 'failed', after: null },
        { surname: 'Higher', level: 4, state: 'clear', after: 4 },
      ];
      for (const c of cases) {
        const { id: investor } = await createInvestor(t.admin, { surname: c.surname, kycCheckLevel: c.level });
        const started = await t.admin.post(`/investors/${investor}/kyc-checks`, { level: 2 });
        assert.equal((await simulator.settled(started.body.id)).status, 200);
        const [check] = (await t.admin.get(`/investors/${investor}/kyc-checks`)).body.checks;
        assert.equal(check.state, c.state, c.surname);
        assert.equal((await t.admin.get(`/investors/${investor}`)).body.kycCheckLevel, c.after, c.surname);
      }
    });

    test('by role: a viewer and an investor may not start one; staff and the investor read them; anyone else’s id is a 404', async () => {
      const { id: investor } = await createInvestor(t.admin);
      const viewer = await staffClient('viewer');
      const own = client(t.app, await t.investorToken(investor));
      const before = await rowCounts(t);
      assert.match(expectProblem(await viewer.post(`/investors/${investor}/kyc-checks`, { level: 2 }), 403).detail, /needs the operator role/);
      expectProblem(await own.post(`/investors/${investor}/kyc-checks`, { level: 2 }), 403);
      expectProblem(await client(t.app).post(`/investors/${investor}/kyc-checks`, { level: 2 }), 401);
      assert.deepEqual(await rowCounts(t), before);

      const approver = await staffClient('approver');
      const started = await approver.post(`/investors/${investor}/kyc-checks`, { level: 2 });
      assert.equal(started.status, 201);
      await simulator.settled(started.body.id);
      assert.equal((await viewer.get(`/investors/${investor}/kyc-checks`)).body.checks.length, 1);
      assert.equal((await own.get(`/investors/${investor}/kyc-checks`)).body.checks.length, 1);
      const { id: other } = await createInvestor(t.admin);
      const stranger = client(t.app, await t.investorToken(other));
      const theirs = expectProblem(await stranger.get(`/investors/${investor}/kyc-checks`), 404);
      const unknown = expectProblem(await stranger.get('/investors/inv-nobody-at-all/kyc-checks'), 404);
      assert.equal(theirs.title, unknown.title);
    });

    test('a start sent again with its Idempotency-Key is answered as the first, and the provider is asked once', async () => {
      const { id: investor } = await createInvestor(t.admin);
      const key = `kyc-${investor}`;
      const first = await t.admin.post(`/investors/${investor}/kyc-checks`, { level: 2 }, { 'idempotency-key': key });
      assert.equal(first.status, 201, first.text);
      const again = await t.admin.post(`/investors/${investor}/kyc-checks`, { level: 2 }, { 'idempotency-key': key });
      assert.equal(again.status, 201);
      assert.equal(again.text, first.text, 'the same bytes');
      assert.equal(simulator.requests.filter((r) => r.investor.id === investor).length, 1, 'one check asked of the provider');
      assert.equal((await t.admin.get(`/investors/${investor}/kyc-checks`)).body.checks.length, 1);
      expectProblem(await t.admin.post(`/investors/${investor}/kyc-checks`, { level: 3 }, { 'idempotency-key': key }), 422);
      assert.equal(simulator.requests.filter((r) => r.investor.id === investor).length, 1, 'nor for another body under the key');
    });

    test('an unknown investor or deal, or a level out of range: 4xx, nothing recorded, the provider not asked', async () => {
      const { id: investor } = await createInvestor(t.admin);
      // The results of the checks started before are posted a moment later: counted before this starts.
      await simulator.idle();
      const asked = simulator.requests.length;
      const before = await rowCounts(t);
      expectProblem(await t.admin.post('/investors/inv-nobody-at-all/kyc-checks', { level: 2 }), 404);
      expectProblem(await t.admin.post(`/investors/${investor}/kyc-checks`, { level: 2, dealId: 'deal-nowhere' }), 404);
      expectProblem(await t.admin.post(`/investors/${investor}/kyc-checks`, { level: 0 }), 400);
      expectProblem(await t.admin.post(`/investors/${investor}/kyc-checks`, { level: 101 }), 400);
      expectProblem(await t.admin.post(`/investors/${investor}/kyc-checks`, {}), 400);
      assert.deepEqual(await rowCounts(t), before);
      assert.equal(simulator.requests.length, asked);
    });
  });
});
