// getInvestorFormImplementation: GET /deals/workflow/step/{stepId}/investor-form-implementation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

const path = (stepId: string, query: Record<string, string> = {}) => {
  const qs = new URLSearchParams(query).toString();
  return `/deals/workflow/step/${stepId}/investor-form-implementation${qs ? `?${qs}` : ''}`;
};

describe('form implementations (getInvestorFormImplementation)', () => {
  const t = startApp();
  const admin = t.admin;

  test('the first call creates it, every later call returns the same id; shape field by field', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const investor = await createInvestor(admin);
    const first = await admin.get(path(deal.steps.commit, { investorUserId: investor.id, dealId: deal.dealId }));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(Object.keys(first.body).sort(), ['createdAt', 'formId', 'id', 'investorUserId', 'stepId']);
    assert.match(first.body.id, /^[0-9a-f-]{36}$/);
    assert.equal(first.body.stepId, deal.steps.commit);
    assert.equal(first.body.investorUserId, investor.id);
    assert.equal(first.body.formId, 'form-commitment');
    assert.match(first.body.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const again = await admin.get(path(deal.steps.commit, { investorUserId: investor.id }));
    assert.deepEqual(again.body, first.body);
    // The investor's own token, without investorUserId, gets the same one (once in the deal).
    await jump(admin, deal.dealId, investor.id, deal.steps.interest);
    const own = client(t.app, await t.investorToken(investor.id));
    assert.deepEqual((await own.get(path(deal.steps.commit))).body, first.body);
  });

  test('concurrent first calls agree on one id (unique step + investor)', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const investor = await createInvestor(admin);
    const responses = await Promise.all(Array.from({ length: 8 }, () => admin.get(path(deal.steps.commit, { investorUserId: investor.id }))));
    assert.deepEqual(
      responses.map((r) => r.status),
      Array(8).fill(200),
    );
    assert.equal(new Set(responses.map((r) => r.body.id)).size, 1);
  });

  test('different investors and different steps get different implementations', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const a = await createInvestor(admin);
    const b = await createInvestor(admin);
    const ra = await admin.get(path(deal.steps.commit, { investorUserId: a.id }));
    const rb = await admin.get(path(deal.steps.commit, { investorUserId: b.id }));
    assert.notEqual(ra.body.id, rb.body.id);
  });

  test('404: unknown step, step without a form, unknown investor', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const investor = await createInvestor(admin);
    expectProblem(await admin.get(path(uniqueId('no-such-step'), { investorUserId: investor.id })), 404);
    const noForm = expectProblem(await admin.get(path(deal.steps.interest, { investorUserId: investor.id })), 404);
    assert.match(noForm.detail, /no form/);
    expectProblem(await admin.get(path(deal.steps.commit, { investorUserId: uniqueId('nobody') })), 404);
  });

  test("400: dealId that is not the step's deal; admin without investorUserId", async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const other = await createDeal(admin, { workflow: 'subscription' });
    const investor = await createInvestor(admin);
    const wrongDeal = expectProblem(await admin.get(path(deal.steps.commit, { investorUserId: investor.id, dealId: other.dealId })), 400);
    assert.deepEqual(
      wrongDeal.errors?.map((e) => [e.in, e.field]),
      [['query', 'dealId']],
    );
    const noInvestor = expectProblem(await admin.get(path(deal.steps.commit)), 400);
    assert.deepEqual(
      noInvestor.errors?.map((e) => [e.in, e.field]),
      [['query', 'investorUserId']],
    );
  });

  test("404: an investor asking for another investor's form implementation, as for an unknown investor, and for a step of a deal they are not in", async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const mine = await createInvestor(admin);
    const theirs = await createInvestor(admin);
    const investor = client(t.app, await t.investorToken(mine.id));
    expectProblem(await investor.get(path(deal.steps.commit, { investorUserId: theirs.id })), 404);
    // Not in the deal yet: its steps are unknown to them, exactly as a step that does not exist.
    const outsider = expectProblem(await investor.get(path(deal.steps.commit)), 404);
    const unknown = expectProblem(await investor.get(path('no-such-step')), 404);
    assert.deepEqual(
      [outsider.type, outsider.title, outsider.detail.replace(deal.steps.commit, 'ID')],
      [unknown.type, unknown.title, unknown.detail.replace('no-such-step', 'ID')],
    );
    await jump(admin, deal.dealId, mine.id, deal.steps.interest);
    assert.equal((await investor.get(path(deal.steps.commit, { investorUserId: mine.id }))).status, 200);
  });
});
