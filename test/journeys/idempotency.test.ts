// Idempotency-Key on the jump (moveToStep) and the event edit (editWorkflowEvent).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { expectProblem, skipUnlessPostgres, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';

describe('idempotent jumps and event edits', () => {
  const t = startApp();
  const admin = t.admin;

  const key = () => `key-${randomUUID()}`;
  const journeyOf = async (dealId: string, investorId: string) =>
    (await admin.get(`/deals/deal/${dealId}/investor-data/${investorId}`)).body.journey as { id: string }[];

  test('a replayed jump returns the same event and records no second one', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const k = key();
    const body = { investorUserId: investor, targetStepId: deal.step('commitment'), data: { committed_amount: '25000.00', currency: 'EUR' } };
    const first = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, body, { 'idempotency-key': k });
    assert.equal(first.status, 201, first.text);
    const again = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, body, { 'idempotency-key': k });
    assert.equal(again.status, 201);
    assert.equal(again.text, first.text);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    // Without the key the same move would be a 409 (already at commitment): the replay is not a re-run.
    expectProblem(await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, body), 409);
    assert.deepEqual(
      (await journeyOf(deal.dealId, investor)).map((e) => e.id),
      [first.body.id],
    );
  });

  test('the same key with a different jump is a 422 and moves nobody', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const k = key();
    const url = `/deals/deal/${deal.dealId}/jump-to-step`;
    const first = await admin.post(url, { investorUserId: investor, targetStepId: deal.step('interest'), data: {} }, { 'idempotency-key': k });
    assert.equal(first.status, 201, first.text);
    const body = { investorUserId: investor, targetStepId: deal.step('commitment'), data: { committed_amount: '1.00', currency: 'EUR' } };
    expectProblem(await admin.post(url, body, { 'idempotency-key': k }), 422);
    // Same body on another deal's path with that key: also another request.
    const other = await createDeal(admin);
    expectProblem(
      await admin.post(`/deals/deal/${other.dealId}/jump-to-step`, { ...body, targetStepId: other.step('interest') }, { 'idempotency-key': k }),
      422,
    );
    assert.equal((await journeyOf(deal.dealId, investor)).length, 1);
  });

  test('a jump refused by the rules keeps no key: the corrected retry runs', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const k = key();
    const url = `/deals/deal/${deal.dealId}/jump-to-step`;
    // commitment needs committed_amount and currency: 422.
    expectProblem(await admin.post(url, { investorUserId: investor, targetStepId: deal.step('commitment'), data: {} }, { 'idempotency-key': k }), 422);
    const retry = await admin.post(
      url,
      { investorUserId: investor, targetStepId: deal.step('commitment'), data: { committed_amount: '5.00', currency: 'EUR' } },
      { 'idempotency-key': k },
    );
    assert.equal(retry.status, 201, retry.text);
    assert.equal((await journeyOf(deal.dealId, investor)).length, 1);
  });

  test('a replayed event edit returns the same event and adds no revision; a different edit is a 422', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const event = await deal.move(investor, 'commitment', { committed_amount: '25000.00', currency: 'EUR' });
    const k = key();
    const url = `/deals/event/${event.id}/edit`;
    const data = { committed_amount: '30000.00', currency: 'EUR' };
    const first = await admin.post(url, data, { 'idempotency-key': k });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.committed_amount, '30000.00');
    const again = await admin.post(url, data, { 'idempotency-key': k });
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    expectProblem(await admin.post(url, { ...data, committed_amount: '31000.00' }, { 'idempotency-key': k }), 422);
    const revisions = await admin.get(`/deals/event/${event.id}/revisions`);
    assert.equal(revisions.status, 200);
    assert.equal(revisions.body.length, 2, JSON.stringify(revisions.body)); // the original and one edit
  });

  test('20 concurrent jumps with one key record exactly one event', { skip: skipUnlessPostgres }, async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const k = key();
    const body = { investorUserId: investor, targetStepId: deal.step('interest'), data: {} };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, body, { 'idempotency-key': k })),
    );
    assert.ok(
      responses.every((r) => r.status === 201 || r.status === 409),
      responses.map((r) => r.status).join(','),
    );
    const created = responses.filter((r) => r.status === 201);
    assert.equal(new Set(created.map((r) => r.body.id)).size, 1);
    assert.equal((await journeyOf(deal.dealId, investor)).length, 1);
  });
});
