// Undo of a batch (POST /console/batches/{batchId}/undo): a single move, a bulk move, an import's
// placements and a payment decision are each undone as one action by new events (history keeps
// both); refused with 409, nothing changed, when something happened to one of the investors since.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor, importMoves, jump } from '../support/deals.ts';
import { feedCaughtUp } from '../support/webhooks.ts';
import { payingDeal, postStatement } from '../support/payments.ts';

describe('undo of a batch', () => {
  const t = startApp();
  const admin = t.admin;

  const journeyOf = async (dealId: string, investorUserId: string) =>
    (await admin.get(`/deals/deal/${dealId}/investor-data/${investorUserId}`)).body.journey as { id: string; fromStepId: string | null; toStepId: string }[];
  const stepOf = async (dealId: string, investorUserId: string) => (await journeyOf(dealId, investorUserId)).at(-1)!.toStepId;

  /** The activity entry of an event (its batch included). */
  async function entryOf(dealId: string, eventId: string) {
    await feedCaughtUp(t.database.db); // the feed shows an entry once every transaction begun before it has ended
    const { output } = (await admin.get(`/console/deals/${dealId}/activity?limit=100`)).body;
    return output.find((e: { data: { event?: { id: string } } }) => e.data.event?.id === eventId);
  }

  async function threeAtInterest() {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const investors = [];
    for (const name of ['Ann', 'Ben', 'Cai']) {
      const { id } = await createInvestor(admin, { forename: name, surname: 'Undo' });
      await jump(admin, deal.dealId, id, deal.steps.interest);
      investors.push(id);
    }
    return { deal, investors };
  }

  test('a single move: moved back by a new event with the reason; its batch is its event; undone once', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const { id } = await createInvestor(admin);
    await jump(admin, deal.dealId, id, deal.steps.interest);
    const moved = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: id,
      targetStepId: deal.steps.commit,
      data: { committed_amount: '100.00', currency: 'EUR' },
    });
    assert.equal(moved.status, 201);
    const entry = await entryOf(deal.dealId, moved.body.id);
    assert.deepEqual([entry.batch.id, entry.batch.kind, entry.batch.size, entry.batch.undoneBy], [moved.body.id, 'move', 1, null]);
    assert.ok(Date.parse(entry.batch.undoableUntil) > Date.now());

    const undone = await admin.post(`/console/batches/${moved.body.id}/undo`, { reason: 'wrong investor' });
    assert.equal(undone.status, 200, JSON.stringify(undone.body));
    assert.equal(undone.body.undoes, moved.body.id);
    assert.deepEqual(
      undone.body.events.map((e: { fromStepId: string; toStepId: string }) => [e.fromStepId, e.toStepId]),
      [[deal.steps.commit, deal.steps.interest]],
    );
    const journey = await journeyOf(deal.dealId, id);
    assert.deepEqual(
      journey.map((e) => e.toStepId),
      [deal.steps.interest, deal.steps.commit, deal.steps.interest],
      'history keeps the move and its undo',
    );
    const revisions = (await admin.get(`/deals/event/${undone.body.events[0].id}/revisions`)).body;
    assert.match(JSON.stringify(revisions), new RegExp(`undo of batch ${moved.body.id}: wrong investor`));

    const again = await admin.post(`/console/batches/${moved.body.id}/undo`, {});
    expectProblem(again, 409);
    assert.equal(again.body.undoneByBatchId, undone.body.batchId);
    const after = await entryOf(deal.dealId, moved.body.id);
    assert.deepEqual([after.batch.undoneBy, after.batch.undoableUntil], [undone.body.batchId, null]);
    const undoEntry = await entryOf(deal.dealId, undone.body.events[0].id);
    assert.deepEqual([undoEntry.batch.kind, undoEntry.batch.undoes], ['undo', moved.body.id]);
  });

  test('a bulk move: one batch with its count, undone as one action', async () => {
    const { deal, investors } = await threeAtInterest();
    const bulk = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, {
      moves: investors.map((id, i) => ({
        investorUserId: id,
        targetStepId: deal.steps.commit,
        data: { committed_amount: `${(i + 1) * 1000}.00`, currency: 'EUR' },
      })),
    });
    assert.equal(bulk.status, 200);
    assert.ok(bulk.body.batchId);
    const entry = await entryOf(deal.dealId, bulk.body.results[0].event.id);
    assert.deepEqual([entry.batch.id, entry.batch.kind, entry.batch.size], [bulk.body.batchId, 'bulk-move', 3]);
    const dry = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk?dryRun=true`, {
      moves: [{ investorUserId: investors[0], targetStepId: deal.steps.pay, data: {} }],
    });
    assert.equal(dry.body.batchId, undefined, 'a dry run makes no batch');

    const undone = await admin.post(`/console/batches/${bulk.body.batchId}/undo`, {});
    assert.equal(undone.status, 200, JSON.stringify(undone.body));
    assert.equal(undone.body.events.length, 3);
    for (const id of investors) {
      assert.deepEqual(
        (await journeyOf(deal.dealId, id)).map((e) => e.toStepId),
        [deal.steps.interest, deal.steps.commit, deal.steps.interest],
      );
    }
  });

  test('refused with 409 naming who moved since; nothing changed', async () => {
    const { deal, investors } = await threeAtInterest();
    const bulk = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, {
      moves: investors.map((id) => ({ investorUserId: id, targetStepId: deal.steps.commit, data: { committed_amount: '500.00', currency: 'EUR' } })),
    });
    await jump(admin, deal.dealId, investors[1]!, deal.steps.pay);
    const refused = await admin.post(`/console/batches/${bulk.body.batchId}/undo`, {});
    expectProblem(refused, 409);
    assert.deepEqual(
      refused.body.changedSince.map((c: { investorUserId: string; currentStepId: string; reason: string }) => [c.investorUserId, c.currentStepId, c.reason]),
      [[investors[1], deal.steps.pay, 'moved-since']],
    );
    assert.match(refused.body.detail, new RegExp(investors[1]!));
    assert.deepEqual(
      await Promise.all(investors.map((id) => stepOf(deal.dealId, id))),
      [deal.steps.commit, deal.steps.pay, deal.steps.commit],
      'nobody moved back',
    );
  });

  test('an import placement: the whole file undone; an investor who entered with it cannot be', async () => {
    const { deal, investors } = await threeAtInterest();
    const csv = ['investorUserId,targetStepId,committed_amount,currency', ...investors.map((id) => `${id},${deal.steps.commit},750.00,EUR`)].join('\n');
    const imported = await importMoves(t, deal.dealId, csv);
    assert.equal(imported.statusCode, 200, imported.body);
    const rows = JSON.parse(imported.body).rows as { eventId: string }[];
    const entry = await entryOf(deal.dealId, rows[0]!.eventId);
    assert.deepEqual([entry.batch.kind, entry.batch.size], ['import', 3]);
    const undone = await admin.post(`/console/batches/${entry.batch.id}/undo`, {});
    assert.equal(undone.status, 200, JSON.stringify(undone.body));
    assert.deepEqual(
      await Promise.all(investors.map((id) => stepOf(deal.dealId, id))),
      investors.map(() => deal.steps.interest),
    );

    const { id: newcomer } = await createInvestor(admin);
    const first = await t.app.inject({
      method: 'POST',
      url: `/deals/deal/${deal.dealId}/jump-to-step/import`,
      payload: `investorUserId,targetStepId\n${newcomer},${deal.steps.interest}`,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/csv' },
    });
    const placed = await entryOf(deal.dealId, JSON.parse(first.body).rows[0].eventId);
    const refused = await admin.post(`/console/batches/${placed.batch.id}/undo`, {});
    expectProblem(refused, 409);
    assert.equal(refused.body.changedSince[0].reason, 'entered-with-batch');
  });

  test('a payment decision: the investor moved by a staff assignment is moved back', async () => {
    const deal = await payingDeal(admin, { letters: ['A'] });
    const investor = deal.investors['A']!;
    const statement = await postStatement(
      t,
      `date,amount,currency,reference,bank_reference\n2026-11-24,25000.00,EUR,no reference given,UNDO-${deal.dealId}\n`,
      'text/csv',
      '?bankReferenceColumn=bank_reference',
    );
    assert.equal(statement.status, 201, JSON.stringify(statement.body));
    const [line] = (await admin.get(`/payments/lines?statementId=${statement.body.statement.id}`)).body.output;
    const assigned = await admin.post(`/payments/lines/${line.id}/assign`, { dealId: deal.dealId, investorUserId: investor });
    assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
    assert.equal(await stepOf(deal.dealId, investor), deal.step('payment'));
    const eventId = (await journeyOf(deal.dealId, investor)).at(-1)!.id;
    const entry = await entryOf(deal.dealId, eventId);
    assert.deepEqual([entry.batch.id, entry.batch.kind], [eventId, 'payment-decision']);
    const undone = await admin.post(`/console/batches/${eventId}/undo`, { reason: 'assigned to the wrong investor' });
    assert.equal(undone.status, 200, JSON.stringify(undone.body));
    assert.equal(await stepOf(deal.dealId, investor), deal.step('commitment'));
  });

  test('an unknown batch (404), a malformed id (400), an investor token (403)', async () => {
    expectProblem(await admin.post('/console/batches/00000000-0000-4000-8000-000000000000/undo', {}), 404);
    expectProblem(await admin.post('/console/batches/not-a-uuid/undo', {}), 400);
    const { id } = await createInvestor(admin);
    const own = (await import('../support/app.ts')).client(t.app, await t.investorToken(id));
    expectProblem(await own.post('/console/batches/00000000-0000-4000-8000-000000000000/undo', {}), 403);
  });
});
