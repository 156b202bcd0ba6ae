// moveToStep: POST /deals/deal/{dealId}/jump-to-step through HTTP, against a real database.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('jump-to-step', () => {
  const t = startApp();
  const admin = t.admin;
  let adminUserId: string;
  before(async () => {
    adminUserId = (await admin.get('/whoami')).body.userId;
  });

  const journeyRow = (dealId: string, investorUserId: string) =>
    t.database.db.selectFrom('journeys').selectAll().where('deal_id', '=', dealId).where('investor_user_id', '=', investorUserId).executeTakeFirst();

  test('201 with the Workflow Event, field by field; the first move assigns a payment reference; the next starts where it ended', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const first = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: investor,
      targetStepId: deal.step('commitment'),
      data: { committed_amount: '25000.00', currency: 'EUR', note: 'via the CRM' },
    });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const event = first.body;
    assert.deepEqual(Object.keys(event).sort(), ['createdAt', 'createdByUserId', 'data', 'fromStepId', 'id', 'toStepId']);
    assert.match(event.id, /^[0-9a-f-]{36}$/);
    assert.equal(event.fromStepId, null);
    assert.equal(event.toStepId, deal.step('commitment'));
    assert.deepEqual(event.data, { committed_amount: '25000.00', currency: 'EUR', note: 'via the CRM' });
    assert.equal(event.createdByUserId, adminUserId);
    assert.match(event.createdAt, TIMESTAMP);
    const row = await journeyRow(deal.dealId, investor);
    assert.match(row!.payment_reference, /^RF\d{2}\d{15}$/);
    assert.equal(row!.event_count, 1);

    const second = await deal.move(investor, 'kyc', { kyc_ref: 'K-77' });
    assert.equal(second.fromStepId, deal.step('commitment'));
    // Backward, and then forward again over an intermediary without its data.
    const back = await deal.move(investor, 'commitment');
    assert.equal(back.fromStepId, deal.step('kyc'));
    const over = await deal.move(investor, 'documents', { signed: 'yes' });
    assert.equal(over.fromStepId, deal.step('commitment'));
    const after = await journeyRow(deal.dealId, investor);
    assert.equal(after!.payment_reference, row!.payment_reference, 'the reference is stable');
    assert.equal(after!.current_step_id, deal.step('documents'));
    assert.equal(after!.event_count, 4);
  });

  test('404s: unknown deal, investor without a directory entry, unknown step', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const jump = (dealId: string, body: object) =>
      admin.post(`/deals/deal/${dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step('interest'), data: {}, ...body });
    expectProblem(await jump(uniqueId('deal'), {}), 404);
    expectProblem(await jump(deal.dealId, { investorUserId: uniqueId('ghost') }), 404);
    expectProblem(await jump(deal.dealId, { targetStepId: 'constructor' }), 404);
    expectProblem(await jump(deal.dealId, { targetStepId: `${deal.dealId}.nowhere` }), 404);
  });

  test('409: the current step, another branch, a stale expectedCurrentStepId', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    await deal.move(investor, 'commitment', { committed_amount: '10', currency: 'EUR' });
    await deal.move(investor, 'kyc', { kyc_ref: 'K' });
    const jump = (body: object) => admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, data: {}, ...body });
    const same = expectProblem(await jump({ targetStepId: deal.step('kyc') }), 409);
    assert.equal(same.currentStepId, deal.step('kyc'));
    expectProblem(await jump({ targetStepId: deal.step('withdrawn') }), 409);
    expectProblem(await jump({ targetStepId: deal.step('documents'), data: { signed: 'yes' }, expectedCurrentStepId: deal.step('commitment') }), 409);
    expectProblem(await jump({ targetStepId: deal.step('documents'), data: { signed: 'yes' }, expectedCurrentStepId: null }), 409);
    const conditional = await jump({ targetStepId: deal.step('documents'), data: { signed: 'yes' }, expectedCurrentStepId: deal.step('kyc') });
    assert.equal(conditional.status, 201);
  });

  test('400: keys outside the move, values of the wrong kind, bad bodies; never a 500 for odd keys', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const jump = (body: object) =>
      admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step('commitment'), ...body });
    const cases: [object, string[]][] = [
      [{ data: { committed_amount: '1', currency: 'EUR', kyc_ref: 'K' } }, ['data.kyc_ref']],
      [{ data: { committed_amount: 'abc', currency: 'XYZ' } }, ['data.committed_amount', 'data.currency']],
      [{ data: { committed_amount: '1e3', currency: 'eur' } }, ['data.committed_amount', 'data.currency']],
      [{ data: { committed_amount: 100, currency: 'EUR' } }, ['data.committed_amount']],
      [{ data: { committed_amount: '1', currency: 'EUR' }, extra: true }, ['extra']],
    ];
    for (const [body, fields] of cases) {
      const problem = expectProblem(await jump(body), 400);
      for (const field of fields)
        assert.ok(
          problem.errors?.some((e) => e.field === field),
          `${field}: ${JSON.stringify(problem.errors)}`,
        );
    }
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const raw = `{"investorUserId":"${investor}","targetStepId":"${deal.step('commitment')}","data":{"committed_amount":"1","currency":"EUR","${key}":"x"}}`;
      const problem = expectProblem(await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, raw), 400);
      // The body parser refuses "__proto__" outright; the other keys reach the jump rules.
      if (key !== '__proto__')
        assert.ok(
          problem.errors?.some((e) => e.field === `data.${key}`),
          JSON.stringify(problem),
        );
    }
    expectProblem(await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step('interest') }), 400);
    assert.equal(await journeyRow(deal.dealId, investor), undefined, 'refused first moves leave no journey');
  });

  test('422: missing required fields and unmet requirements are listed; nothing is recorded', async () => {
    const deal = await createDeal(admin);
    const lowKyc = await deal.addInvestor({ kycCheckLevel: 1 });
    const missing = expectProblem(
      await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: lowKyc, targetStepId: deal.step('commitment'), data: { currency: 'EUR' } }),
      422,
    );
    assert.deepEqual(missing.missingFields, ['committed_amount']);
    assert.equal(await journeyRow(deal.dealId, lowKyc), undefined);
    await deal.move(lowKyc, 'commitment', { committed_amount: '10.00', currency: 'EUR' });
    const unmet = expectProblem(
      await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: lowKyc, targetStepId: deal.step('kyc'), data: {} }),
      422,
    );
    assert.deepEqual(unmet.missingFields, ['kyc_ref']);
    assert.deepEqual(
      (unmet.failedRequirements as { kind: string }[]).map((f) => f.kind),
      ['kyc-level'],
    );
    // An earlier event's data satisfies a required field: back to commitment without data.
    await deal.move(lowKyc, 'withdrawn');
    const journey = await admin.get(`/deals/deal/${deal.dealId}/investor-data/${lowKyc}`);
    assert.equal(journey.body.journey.length, 2);
  });

  test('an investor cannot put themselves into a workflow: the deal is unknown to them (404), nothing is written', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const own = client(t.app, await t.investorToken(investor));
    const problem = expectProblem(
      await own.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step('interest'), data: {} }),
      404,
    );
    assert.match(problem.detail, /deal/);
    assert.deepEqual((await admin.get(`/deals/deal/${deal.dealId}/all-payment-refernces`)).body, []);
  });
});
