// A move that captures a currency withdrawn from ISO 4217 (HRK, now EUR) is refused with the code
// that replaced it, and nothing is stored; a current code is taken.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';

describe('withdrawn currencies', () => {
  const t = startApp();

  test('HRK in a move: 400 naming data.currency and EUR; EUR: 201', async () => {
    const deal = await createDeal(t.admin);
    const investor = await deal.addInvestor();
    await deal.move(investor, 'interest');
    const move = (currency: string) =>
      t.admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
        investorUserId: investor,
        targetStepId: deal.step('commitment'),
        data: { committed_amount: '25000.00', currency },
      });
    const refused = expectProblem(await move('HRK'), 400);
    assert.deepEqual(
      refused.errors!.map((e: { field: string; detail: string }) => [e.field, e.detail]),
      [['data.currency', '"HRK" was withdrawn from ISO 4217; use EUR']],
    );
    const journey = await t.admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`);
    assert.equal(journey.body.journey.at(-1).toStepId, deal.step('interest'), 'nothing moved');
    assert.equal((await move('EUR')).status, 201);
  });
});
