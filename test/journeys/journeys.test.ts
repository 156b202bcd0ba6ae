// getInvestorJourney (investor-data) through HTTP; an event's edits and revisions are test/events/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('investor journeys', () => {
  const t = startApp();
  const admin = t.admin;
  test('investor-data: { investor: { id }, journey } with every event, oldest first', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const first = await deal.move(investor, 'commitment', { committed_amount: '25000.00', currency: 'EUR' });
    const second = await deal.move(investor, 'kyc', { kyc_ref: 'K-1' });
    const response = await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`);
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.body).sort(), ['investor', 'journey']);
    assert.deepEqual(response.body.investor, { id: investor });
    assert.deepEqual(response.body.journey, [first, second]);
    for (const event of response.body.journey) {
      assert.deepEqual(Object.keys(event).sort(), ['createdAt', 'createdByUserId', 'data', 'fromStepId', 'id', 'toStepId']);
      assert.match(event.createdAt, TIMESTAMP);
    }
  });

  test('investor-data: the body the database builds holds captured text exactly as the move stored it', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    // JSON's escapes (quotes, backslash, control characters), non-ASCII, astral and separator characters.
    const note = 'Zoë "the" \\back\\ slash\nline\ttab \u0001\u001f \u2028\u2029 😀 </script> {"not":"json"}';
    const first = await deal.move(investor, 'interest', { note });
    const second = await deal.move(investor, 'commitment', { committed_amount: '25000.10', currency: 'EUR' });
    const response = await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`);
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(response.body, { investor: { id: investor }, journey: [first, second] });
    assert.equal(response.body.journey[0].data.note, note);
    assert.equal(response.body.journey[0].fromStepId, null);
    assert.equal(response.body.journey[1].fromStepId, deal.step('interest'));
    // An edit shows at once: nothing is kept between reads.
    await admin.post(`/deals/event/${second.id}/edit`, { committed_amount: '30000.00', currency: 'EUR' });
    const edited = await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`);
    assert.deepEqual(edited.body.journey[1].data, { committed_amount: '30000.00', currency: 'EUR' });
  });

  test('investor-data: empty journey before the first move; 404 for unknown deal or investor; investors read only their own', async () => {
    const deal = await createDeal(admin);
    const fresh = await deal.addInvestor();
    const other = await deal.addInvestor();
    await deal.move(other, 'interest');
    assert.deepEqual((await admin.get(`/deals/deal/${deal.dealId}/investor-data/${fresh}`)).body, { investor: { id: fresh }, journey: [] });
    expectProblem(await admin.get(`/deals/deal/${uniqueId('deal')}/investor-data/${fresh}`), 404);
    expectProblem(await admin.get(`/deals/deal/${deal.dealId}/investor-data/${uniqueId('ghost')}`), 404);
    // An investor with no journey in the deal cannot tell it from an unknown deal; once moved, they read it.
    const own = client(t.app, await t.investorToken(fresh));
    const notYet = expectProblem(await own.get(`/deals/deal/${deal.dealId}/investor-data/${fresh}`), 404);
    const unknownDeal = uniqueId('deal');
    const unknown = expectProblem(await own.get(`/deals/deal/${unknownDeal}/investor-data/${fresh}`), 404);
    assert.equal(notYet.detail.replace(deal.dealId, 'ID'), unknown.detail.replace(unknownDeal, 'ID'));
    await deal.move(fresh, 'interest');
    assert.equal((await own.get(`/deals/deal/${deal.dealId}/investor-data/${fresh}`)).status, 200);
    expectProblem(await own.get(`/deals/deal/${deal.dealId}/investor-data/${other}`), 404);
  });
});
