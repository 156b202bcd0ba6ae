// What an undone write captured no longer counts as captured: not for the jump rules (a required
// field must be given again), not in the export, the console's summary or the funnel. Undoing the
// undo puts the data back. The same for a bulk move, an import and a payment decision.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor, importMoves, jump } from '../support/deals.ts';
import { payingDeal, postStatement } from '../support/payments.ts';
import { feedCaughtUp } from '../support/webhooks.ts';

describe('data of an undone write', () => {
  const t = startApp();
  const admin = t.admin;

  /** The export's cells of one investor, by column. */
  async function exported(dealId: string, investorUserId: string) {
    const csv = await admin.get(`/deals/deal/${dealId}/all-investor-workflows`, { accept: 'text/csv' });
    assert.equal(csv.status, 200);
    const [header, ...lines] = csv.text
      .trim()
      .split(/\r?\n/)
      .map((l: string) => l.split(','));
    const line = lines.find((l: string[]) => l[0] === investorUserId)!;
    return Object.fromEntries(header!.map((h: string, i: number) => [h, line[i] ?? '']));
  }

  test('a bulk move to the payment step undone: its fields are required again; undoing the undo brings them back', async () => {
    const deal = await payingDeal(admin, { letters: ['A', 'B'] });
    const [a, b] = [deal.investors['A']!, deal.investors['B']!];
    const bulk = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, {
      moves: [a, b].map((id) => ({ investorUserId: id, targetStepId: deal.step('payment'), data: { amount_received: '12500.50', received_on: '2026-03-20' } })),
    });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    assert.equal((await exported(deal.dealId, a)).amount_received, '12500.50');
    const undone = await admin.post(`/console/batches/${bulk.body.batchId}/undo`, {});
    assert.equal(undone.status, 200, JSON.stringify(undone.body));

    const again = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: a, targetStepId: deal.step('payment'), data: {} });
    expectProblem(again, 422);
    assert.deepEqual(again.body.missingFields, ['amount_received', 'received_on']);
    assert.deepEqual([(await exported(deal.dealId, a)).amount_received, (await exported(deal.dealId, a)).received_on], ['', '']);
    const dry = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk?dryRun=true`, {
      moves: [{ investorUserId: b, targetStepId: deal.step('payment'), data: {} }],
    });
    assert.equal(dry.body.results[0].status, 422, 'a bulk dry run reads the same captured data');

    // The undo undone: the investors go forward again with the data the first move captured.
    const redone = await admin.post(`/console/batches/${undone.body.batchId}/undo`, {});
    assert.equal(redone.status, 200, JSON.stringify(redone.body));
    assert.deepEqual(
      redone.body.events.map((e: { data: Record<string, string> }) => e.data.amount_received),
      ['12500.50', '12500.50'],
    );
    assert.equal((await exported(deal.dealId, b)).amount_received, '12500.50');
    // Undone a third time: gone again.
    const third = await admin.post(`/console/batches/${redone.body.batchId}/undo`, {});
    assert.equal(third.status, 200, JSON.stringify(third.body));
    assert.equal((await exported(deal.dealId, b)).amount_received, '');
  });

  test('an undone commitment leaves the console summary and the funnel', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const { id } = await createInvestor(admin);
    await jump(admin, deal.dealId, id, deal.steps.interest);
    const moved = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: id,
      targetStepId: deal.steps.commit,
      data: { committed_amount: '4000.00', currency: 'EUR' },
    });
    assert.equal(moved.status, 201);
    assert.equal((await admin.get(`/console/deals/${deal.dealId}/investors/${id}`)).body.committedAmount, '4000.00');
    assert.equal((await admin.post(`/console/batches/${moved.body.id}/undo`, {})).status, 200);

    const summary = (await admin.get(`/console/deals/${deal.dealId}/investors/${id}`)).body;
    assert.equal(summary.committedAmount, null);
    assert.deepEqual(summary.captured, {});
    const funnel = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true`)).body;
    assert.deepEqual(
      funnel.steps.flatMap((s: { committed: unknown[] }) => s.committed),
      [],
      'nothing committed anywhere',
    );
    const board = (await admin.get(`/console/deals/${deal.dealId}/board`)).body;
    assert.deepEqual(
      board.columns.flatMap((c: { committed: unknown[] }) => c.committed),
      [],
    );
  });

  test('an import undone: what it captured is required again', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const { id } = await createInvestor(admin);
    await jump(admin, deal.dealId, id, deal.steps.interest);
    const csv = `investorUserId,targetStepId,committed_amount,currency\n${id},${deal.steps.commit},750.00,EUR`;
    const imported = await importMoves(t, deal.dealId, csv);
    assert.equal(imported.statusCode, 200, imported.body);
    await feedCaughtUp(t.database.db); // the feed shows an entry once every transaction begun before it has ended
    const batch = (await admin.get(`/console/deals/${deal.dealId}/activity?limit=5`)).body.output.find(
      (e: { batch: { kind: string } | null }) => e.batch?.kind === 'import',
    );
    assert.equal((await admin.post(`/console/batches/${batch.batch.id}/undo`, {})).status, 200);
    const again = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: id, targetStepId: deal.steps.commit, data: {} });
    expectProblem(again, 422);
    assert.deepEqual(again.body.missingFields, ['committed_amount', 'currency']);
  });

  test('a payment decision undone: the amount it captured is required again', async () => {
    const deal = await payingDeal(admin, { letters: ['A'] });
    const investor = deal.investors['A']!;
    const statement = await postStatement(
      t,
      `date,amount,currency,reference,bank_reference\n2026-11-24,25000.00,EUR,no reference given,UNDONE-${deal.dealId}\n`,
      'text/csv',
      '?bankReferenceColumn=bank_reference',
    );
    assert.equal(statement.status, 201, JSON.stringify(statement.body));
    const [line] = (await admin.get(`/payments/lines?statementId=${statement.body.statement.id}`)).body.output;
    const assigned = await admin.post(`/payments/lines/${line.id}/assign`, { dealId: deal.dealId, investorUserId: investor });
    assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
    const journey = (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey;
    assert.equal(journey.at(-1).data.amount_received, '25000.00');
    assert.equal((await admin.post(`/console/batches/${journey.at(-1).id}/undo`, {})).status, 200);
    const again = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step('payment'), data: {} });
    expectProblem(again, 422);
    assert.deepEqual(again.body.missingFields, ['amount_received', 'received_on']);
  });
});
