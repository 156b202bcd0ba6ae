// All-investor-workflows reads a copy of the investor's name on the journey and a kept count of the
// deal's journeys (migration 0008). These tests hold the copies to the directory: a rename
// reorders the list, totals follow first moves (and not refused ones), search still finds by e-mail.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { investorBody } from '../support/fixtures.ts';

describe('all-investor-workflows order and totals', () => {
  const t = startApp();

  const ids = (body: any) => body.output.map((o: { investor: { id: string } }) => o.investor.id);

  test('a renamed investor moves to their new place in the list', async () => {
    const admin = client(t.app, t.adminToken);
    const deal = await createDeal(admin);
    const anna = await deal.addInvestor({ forename: 'Anna', surname: 'Adams' });
    const bert = await deal.addInvestor({ forename: 'Bert', surname: 'Brown' });
    const cleo = await deal.addInvestor({ forename: 'Cleo', surname: 'Clark' });
    for (const id of [cleo, anna, bert]) await deal.move(id, 'interest');
    const list = () => admin.get(`/deals/deal/${deal.dealId}/all-investor-workflows?limit=10`);
    assert.deepEqual(ids((await list()).body), [anna, bert, cleo]);

    const renamed = investorBody({ forename: 'Zoe', surname: 'Zimmer' });
    assert.equal((await admin.put(`/investors/${anna}`, renamed)).status, 200);
    assert.deepEqual(ids((await list()).body), [bert, cleo, anna]);
    const search = await admin.get(`/deals/deal/${deal.dealId}/all-investor-workflows?query=zIMM`);
    assert.deepEqual(ids(search.body), [anna]);
  });

  test('totals count first moves, not later moves nor refused first moves', async () => {
    const admin = client(t.app, t.adminToken);
    const deal = await createDeal(admin);
    const total = async () => (await admin.get(`/deals/deal/${deal.dealId}/all-investor-workflows?limit=1`)).body.totalPages;
    assert.equal(await total(), 0);
    const first = await deal.addInvestor();
    const second = await deal.addInvestor({ email: 'second.investor@example.org' });
    await deal.move(first, 'interest');
    assert.equal(await total(), 1);
    await deal.move(first, 'commitment', { committed_amount: '1000.00', currency: 'EUR' });
    assert.equal(await total(), 1, 'a second move of the same investor adds nothing');
    // Refused first move (required fields missing): no journey, no count.
    const refused = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: second, targetStepId: deal.step('commitment'), data: {} });
    assert.equal(refused.status, 422);
    assert.equal(await total(), 1);
    await deal.move(second, 'interest');
    assert.equal(await total(), 2);
    const byEmail = await admin.get(`/deals/deal/${deal.dealId}/all-investor-workflows?query=SECOND.INVESTOR@`);
    assert.deepEqual(ids(byEmail.body), [second]);
    assert.equal(byEmail.body.totalPages, 1);
  });
});
