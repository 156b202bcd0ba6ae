// Four-eyes on bulk moves: from the deal's number of investors on (bulkMovesFrom), or from a sum
// of the commitments it moves (bulkMovesFromAmount), a bulk move answers 202 with a proposal and
// moves no one; another operator approves it (the moves made by the same operation, one batch) or
// it is refused when one of its investors moved meanwhile.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { StaffRole } from '../../src/domain/principal.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, type TestDeal } from '../support/deals.ts';

describe('four-eyes bulk moves', () => {
  const t = startApp();
  const admin = t.admin;
  const as = async (role: StaffRole, name = `${role} key`) => client(t.app, (await createToken(t.database.db, { name, role })).token);
  let deal: TestDeal;
  const stepOf = async (investorUserId: string) =>
    (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investorUserId}`)).body.journey.at(-1)?.toStepId ?? null;
  const toInterest = (ids: string[]) => ({ moves: ids.map((investorUserId) => ({ investorUserId, targetStepId: deal.step('interest'), data: {} })) });

  before(async () => {
    deal = await createDeal(admin);
    const set = await admin.put(`/deals/deal/${deal.dealId}/four-eyes`, { paymentDecisions: false, bulkMovesFrom: 3 });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.bulkMovesFrom, 3);
  });

  test('below the number a bulk move is applied at once; from it on, a 202 proposal that moves no one until another operator approves', async () => {
    const [first, second] = [await as('operator', 'operator one'), await as('operator', 'operator two')];
    const ids = [await deal.addInvestor(), await deal.addInvestor(), await deal.addInvestor(), await deal.addInvestor(), await deal.addInvestor()];
    const small = await first.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, toInterest(ids.slice(0, 2)));
    assert.equal(small.status, 200, small.text);
    const held = await first.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, toInterest(ids.slice(2)));
    assert.equal(held.status, 202, held.text);
    assert.deepEqual([held.body.action, held.body.neededRole], ['bulk-move', 'operator']);
    assert.equal(await stepOf(ids[2]!), null, 'no one moved');
    const dryRun = await first.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk?dryRun=true`, toInterest(ids.slice(2)));
    assert.equal(dryRun.status, 200, 'a dry run is never held');
    assert.match(expectProblem(await first.post(`/approvals/${held.body.id}/approve`), 403).detail, /second person/);
    assert.match(expectProblem(await (await as('viewer')).post(`/approvals/${held.body.id}/approve`), 403).detail, /needs the operator role/);
    const approved = await second.post(`/approvals/${held.body.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.decision.result.moved, 3);
    for (const id of ids.slice(2)) assert.equal(await stepOf(id), deal.step('interest'));
  });

  test('an investor of the batch moved meanwhile: the approval is refused, naming them, and no one moves', async () => {
    const [first, second] = [await as('operator'), await as('operator')];
    const ids = [await deal.addInvestor(), await deal.addInvestor(), await deal.addInvestor()];
    const held = await first.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, toInterest(ids));
    assert.equal(held.status, 202, held.text);
    await deal.move(ids[1]!, 'interest');
    const refused = expectProblem(await second.post(`/approvals/${held.body.id}/approve`), 409);
    assert.deepEqual(
      (refused.changed as { field: string }[]).map((c) => c.field),
      [`step of ${ids[1]}`],
    );
    assert.equal(await stepOf(ids[0]!), null);
    assert.equal((await admin.get(`/approvals/${held.body.id}`)).body.status, 'refused');
  });

  test('switched off with null: a large batch is applied at once', async () => {
    assert.equal((await admin.put(`/deals/deal/${deal.dealId}/four-eyes`, { paymentDecisions: false, bulkMovesFrom: null })).body.bulkMovesFrom, null);
    const ids = [await deal.addInvestor(), await deal.addInvestor(), await deal.addInvestor()];
    assert.equal((await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, toInterest(ids))).status, 200);
  });

  test("by amount: the commitments the batch leaves (captured before, or captured by the move) from the deal's amount on are held", async () => {
    const set = await admin.put(`/deals/deal/${deal.dealId}/four-eyes`, { paymentDecisions: false, bulkMovesFromAmount: '100000.00' });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual([set.body.bulkMovesFrom, set.body.bulkMovesFromAmount], [null, '100000']);
    const [first, second] = [await as('operator', 'operator one'), await as('operator', 'operator two')];
    const [big, small] = [await deal.addInvestor(), await deal.addInvestor()];
    await deal.move(big, 'interest');
    await deal.move(big, 'commitment', { committed_amount: '80000.00', currency: 'EUR' });
    await deal.move(small, 'interest');
    const toSigned = (moves: [string, Record<string, string>][]) => ({
      moves: moves.map(([investorUserId, data]) => ({ investorUserId, targetStepId: deal.step('commitment'), data })),
    });
    const under = await first.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, toSigned([[big, {}]]));
    assert.equal(under.status, 200, '80,000 committed: applied at once');
    const over = toSigned([
      [big, {}],
      [small, { committed_amount: '20000.00', currency: 'EUR' }],
    ]);
    const held = await first.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, over);
    assert.equal(held.status, 202, `80,000 captured before and 20,000 the move captures reach 100,000: ${held.text}`);
    assert.equal(held.body.action, 'bulk-move');
    const approved = await second.post(`/approvals/${held.body.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.equal((await admin.get(`/deals/deal/${deal.dealId}/investor-data/${small}`)).body.journey.at(-1).data.committed_amount, '20000.00');
  });

  test('by amount, the field the payment settings name counts, not the default one', async () => {
    const paying = await createDeal(admin, { workflow: 'paying' });
    const settings = { paymentStepId: paying.step('payment'), amountFieldKey: 'amount_received', dateFieldKey: 'received_on', commitmentFieldKey: 'pledge' };
    assert.equal((await admin.put(`/deals/deal/${paying.dealId}/payment-settings`, settings)).status, 201);
    assert.equal((await admin.put(`/deals/deal/${paying.dealId}/four-eyes`, { paymentDecisions: false, bulkMovesFromAmount: '1000' })).status, 200);
    const who = await paying.addInvestor();
    const move = (data: Record<string, string>) => ({ moves: [{ investorUserId: who, targetStepId: paying.step('interest'), data }] });
    assert.equal((await admin.post(`/deals/deal/${paying.dealId}/jump-to-step/bulk`, move({ committed_amount: '5000' }))).status, 200, 'not the field named');
    assert.equal((await admin.post(`/deals/deal/${paying.dealId}/jump-to-step/bulk`, move({ pledge: '5000' }))).status, 202);
  });

  test('an amount of 0 or not a decimal is refused, and the rules stay as they were', async () => {
    const before = (await admin.get(`/deals/deal/${deal.dealId}/four-eyes`)).body;
    for (const bulkMovesFromAmount of ['0', '0.00', '-5', '1e6', 12]) {
      expectProblem(await admin.put(`/deals/deal/${deal.dealId}/four-eyes`, { paymentDecisions: false, bulkMovesFromAmount }), 400);
    }
    assert.deepEqual((await admin.get(`/deals/deal/${deal.dealId}/four-eyes`)).body, before);
  });
});
