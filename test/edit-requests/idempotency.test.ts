// Idempotency-Key on edit requests: create, approve, reject.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';

describe('idempotent edit requests', () => {
  const t = startApp();
  const admin = t.admin;

  const key = () => `key-${randomUUID()}`;

  async function committed() {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const event = await deal.move(investor, 'commitment', { committed_amount: '25000.00', currency: 'EUR' });
    const filtered = async () =>
      (await admin.get(`/deals/request-to-edit/filtered?dealId=${deal.dealId}&investorUserId=${investor}`)).body as { id?: string }[];
    return { deal, investor, event, filtered };
  }

  test('a replayed create returns the same request and makes no second one; another body is a 422', async () => {
    const { investor, event, filtered } = await committed();
    const asInvestor = client(t.app, await t.investorToken(investor));
    const k = key();
    const body = { workflowEventId: event.id, type: 'Investment Amount', reason: 'More', newData: { committed_amount: '30000.00' } };
    const first = await asInvestor.post('/deals/request-to-edit', body, { 'idempotency-key': k });
    assert.equal(first.status, 201, first.text);
    const again = await asInvestor.post('/deals/request-to-edit', body, { 'idempotency-key': k });
    assert.equal(again.status, 201);
    assert.equal(again.text, first.text);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    expectProblem(await asInvestor.post('/deals/request-to-edit', { ...body, reason: 'Much more' }, { 'idempotency-key': k }), 422);
    assert.equal((await filtered()).length, 1);
  });

  test('a replayed approval returns the same result and applies the change once', async () => {
    const { event } = await committed();
    const created = await admin.post('/deals/request-to-edit', {
      workflowEventId: event.id,
      type: 'Investment Amount',
      reason: 'More',
      newData: { committed_amount: '30000.00' },
    });
    assert.equal(created.status, 201, created.text);
    const id: string = created.body.id;
    const k = key();
    const first = await admin.post(`/deals/request-to-edit/${id}/approve`, { reason: 'ok' }, { 'idempotency-key': k });
    assert.equal(first.status, 200, first.text);
    const again = await admin.post(`/deals/request-to-edit/${id}/approve`, { reason: 'ok' }, { 'idempotency-key': k });
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    // Without the key a second approval is refused (no longer pending): the replay did not re-run.
    assert.notEqual((await admin.post(`/deals/request-to-edit/${id}/approve`, { reason: 'ok' })).status, 200);
    // Same key on reject: another path, so another request.
    expectProblem(await admin.post(`/deals/request-to-edit/${id}/reject`, { reason: 'ok' }, { 'idempotency-key': k }), 422);
    const revisions = await admin.get(`/deals/event/${event.id}/revisions`);
    assert.equal(revisions.body.length, 2, JSON.stringify(revisions.body));
  });

  test('a replayed rejection returns the same result', async () => {
    const { event } = await committed();
    const created = await admin.post('/deals/request-to-edit', { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'Changed my mind' });
    assert.equal(created.status, 201, created.text);
    const k = key();
    const first = await admin.post(`/deals/request-to-edit/${created.body.id}/reject`, undefined, { 'idempotency-key': k });
    assert.equal(first.status, 200, first.text);
    const again = await admin.post(`/deals/request-to-edit/${created.body.id}/reject`, undefined, { 'idempotency-key': k });
    assert.equal(again.text, first.text);
    assert.equal(again.headers['idempotent-replayed'], 'true');
  });
});
