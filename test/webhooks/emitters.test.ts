// Every domain event reaches the outbox from the operation that causes it, in that operation's
// transaction: edit requests (created, approved with their effect, rejected) and subscriptions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, startApp } from '../support/app.ts';
import { createDeal, createInvestor, type TestDeal } from '../support/deals.ts';
import { subscriptionBody, uniqueAssetId, uniqueId } from '../support/fixtures.ts';
import { feedCaughtUp } from '../support/webhooks.ts';

const REQUESTS = '/deals/request-to-edit';

describe('domain events in the outbox', () => {
  const t = startApp();
  const admin = t.admin;

  const feedOf = async (dealId: string) => {
    await feedCaughtUp(t.database.db);
    return (await admin.get(`/deals/deal/${dealId}/events?limit=100`)).body.output as any[];
  };

  /** A deal and an investor at its commitment step (25000.00 EUR). */
  async function committed(): Promise<{ deal: TestDeal; investorUserId: string; event: any }> {
    const deal = await createDeal(admin);
    const investorUserId = await deal.addInvestor();
    await deal.move(investorUserId, 'interest');
    const event = await deal.move(investorUserId, 'commitment', { committed_amount: '25000.00', currency: 'EUR' });
    return { deal, investorUserId, event };
  }

  test('an amount request: created, then approved with the edit it causes', async () => {
    const { deal, investorUserId, event } = await committed();
    const own = client(t.app, await t.investorToken(investorUserId));
    const request = await own.post(REQUESTS, {
      workflowEventId: event.id,
      type: 'Investment Amount',
      reason: 'Bonus',
      newData: { committed_amount: '30000.00' },
    });
    assert.equal(request.status, 201, JSON.stringify(request.body));
    assert.equal((await admin.post(`${REQUESTS}/${request.body.id}/approve`, { reason: 'ok' })).status, 200);

    const feed = await feedOf(deal.dealId);
    assert.deepEqual(
      feed.map((e) => e.type),
      ['journey.step-entered', 'journey.step-entered', 'edit-request.created', 'edit-request.approved', 'event.edited'],
    );
    assert.equal(new Set(feed.map((e) => e.sequence)).size, 5);
    const [, , created, approved, edited] = feed;
    assert.equal(created.data.editRequest.id, request.body.id);
    assert.equal(created.data.editRequest.status, 'pending');
    assert.equal(created.data.stepId, deal.step('commitment'));
    assert.equal(created.data.investorUserId, investorUserId);
    assert.equal(approved.data.editRequest.status, 'approved');
    assert.ok(approved.data.decidedByUserId);
    assert.deepEqual(edited.data.newData, { committed_amount: '30000.00', currency: 'EUR' });
  });

  test('a rejected request', async () => {
    const { deal, event } = await committed();
    const request = await admin.post(REQUESTS, { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'Changed my mind' });
    assert.equal(request.status, 201, JSON.stringify(request.body));
    assert.equal((await admin.post(`${REQUESTS}/${request.body.id}/reject`, { reason: 'Too late' })).status, 200);
    assert.deepEqual(
      (await feedOf(deal.dealId)).slice(2).map((e) => [e.type, e.data.editRequest.status]),
      [
        ['edit-request.created', 'pending'],
        ['edit-request.rejected', 'rejected'],
      ],
    );
  });

  test('an approved withdrawal moves the investor: journey.step-entered into the withdrawn step', async () => {
    const { deal, investorUserId, event } = await committed();
    const request = await admin.post(REQUESTS, { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'Leaving' });
    assert.equal((await admin.post(`${REQUESTS}/${request.body.id}/approve`, {})).status, 200);
    const feed = await feedOf(deal.dealId);
    assert.deepEqual(
      feed.slice(2).map((e) => e.type),
      ['edit-request.created', 'edit-request.approved', 'journey.step-entered'],
    );
    assert.equal(feed.at(-1).data.toStepId, deal.step('withdrawn'));
    assert.equal(feed.at(-1).data.investorUserId, investorUserId);
  });

  test('an approval whose effect fails leaves the request pending and the outbox as it was', async () => {
    const { deal, investorUserId, event } = await committed();
    const request = await admin.post(REQUESTS, { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'Leaving' });
    // From KYC the withdrawn step is out of reach: the approval's jump is refused.
    await deal.move(investorUserId, 'kyc', { kyc_ref: 'K-1' });
    const before = await feedOf(deal.dealId);
    const approve = await admin.post(`${REQUESTS}/${request.body.id}/approve`, {});
    assert.equal(approve.status, 409, JSON.stringify(approve.body));
    assert.deepEqual(await feedOf(deal.dealId), before);
    assert.equal((await admin.get(`${REQUESTS}/${request.body.id}`)).body.status, 'pending');
  });

  test('a subscription is in the platform feed once, its amounts exact', async () => {
    const assetId = uniqueAssetId();
    assert.equal((await admin.put(`/portfolio/assets/${assetId}`, { name: 'Acme', currency: 'EUR' })).status, 201);
    const investorId = uniqueId('inv');
    await createInvestor(admin, {}, investorId);
    const key = { 'idempotency-key': uniqueId('key') };
    const body = subscriptionBody(assetId, investorId);
    const created = await admin.post('/portfolio/transactions/subscriptions', body, key);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // A replay returns the first response and writes nothing, to the outbox neither.
    const replayed = await admin.post('/portfolio/transactions/subscriptions', body, key);
    assert.equal(replayed.body.id, created.body.id, `${replayed.status} ${replayed.text}`);

    // Read on from where the feed stood: entries of other tests may sit before ours.
    await feedCaughtUp(t.database.db);
    let after = 0;
    const entries: any[] = [];
    for (let page = 0; page < 100; page++) {
      const next = (await admin.get(`/webhooks/events?after=${after}&limit=100`)).body;
      entries.push(...next.output);
      after = next.lastSequence;
      if (!next.hasMore) break;
    }
    const mine = entries.filter((e) => e.data.subscription.id === created.body.id);
    assert.equal(mine.length, 1);
    assert.equal(mine[0].type, 'subscription.created');
    assert.equal(mine[0].dealId, null);
    assert.equal(mine[0].data.subscription.units, '10');
    assert.equal(mine[0].data.subscription.pricePerUnit, '100.5');
    assert.equal(mine[0].data.subscription.total, '1005');
    assert.equal(mine[0].data.subscription.investorId, investorId);
  });
});
