// Four-eyes on bulk moves: from the deal's number of investors on (bulkMovesFrom), a bulk move
// answers 202 with a proposal and moves no one; another operator approves it (the moves made by
// the same operation, one batch) or it is refused when one of its investors moved meanwhile.
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
});
