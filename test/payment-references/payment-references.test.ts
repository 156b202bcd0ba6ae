// listPaymentReferences (GET /deals/deal/{dealId}/all-payment-refernces) and the lenient lookup
// GET /payments/references/{reference}.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkReference, formatReference, referenceFromBody } from '../../src/domain/payment-reference.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

describe('payment references', () => {
  const t = startApp();
  const admin = t.admin;

  /** A deal with two investors moved into it; returns it and their ids. */
  async function dealWithInvestors() {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const a = await createInvestor(admin);
    const b = await createInvestor(admin);
    await jump(admin, deal.dealId, a.id, deal.steps.interest);
    await jump(admin, deal.dealId, b.id, deal.steps.interest);
    await jump(admin, deal.dealId, b.id, deal.steps.commit, { committed_amount: '100.00', currency: 'EUR' });
    return { deal, ids: [a.id, b.id].sort() };
  }

  test('all-payment-refernces (spelled so): one compact, valid reference per investor, by investor id, stable', async () => {
    const { deal, ids } = await dealWithInvestors();
    const response = await admin.get(`/deals/deal/${deal.dealId}/all-payment-refernces`);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.ok(Array.isArray(response.body));
    assert.deepEqual(
      response.body.map((e: any) => e.investorUserId),
      ids,
    );
    for (const entry of response.body) {
      assert.deepEqual(Object.keys(entry).sort(), ['investorUserId', 'paymentReference']);
      assert.match(entry.paymentReference, /^RF\d{17}$/);
      assert.equal(checkReference(entry.paymentReference), 'valid');
    }
    assert.notEqual(response.body[0].paymentReference, response.body[1].paymentReference);
    // Moving again changes nothing: assigned with the first event, never changed.
    await jump(admin, deal.dealId, ids[0]!, deal.steps.pay);
    assert.deepEqual((await admin.get(`/deals/deal/${deal.dealId}/all-payment-refernces`)).body, response.body);
    // The correct spelling is not a route.
    expectProblem(await admin.get(`/deals/deal/${deal.dealId}/all-payment-references`), 404);
  });

  test('a deal without investors has none; an unknown deal is 404', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    assert.deepEqual((await admin.get(`/deals/deal/${deal.dealId}/all-payment-refernces`)).body, []);
    expectProblem(await admin.get(`/deals/deal/${uniqueId('no-deal')}/all-payment-refernces`), 404);
  });

  test('lookup resolves a reference to its deal and investor, ignoring spaces and case', async () => {
    const { deal } = await dealWithInvestors();
    const [entry] = (await admin.get(`/deals/deal/${deal.dealId}/all-payment-refernces`)).body;
    const expected = { dealId: deal.dealId, investorUserId: entry.investorUserId, paymentReference: entry.paymentReference };
    const exact = await admin.get(`/payments/references/${entry.paymentReference}`);
    assert.equal(exact.status, 200, JSON.stringify(exact.body));
    assert.deepEqual(exact.body, expected);
    assert.deepEqual(Object.keys(exact.body).sort(), ['dealId', 'investorUserId', 'paymentReference']);
    for (const typed of [
      formatReference(entry.paymentReference),
      formatReference(entry.paymentReference).toLowerCase(),
      ` ${entry.paymentReference.toLowerCase()} `,
      entry.paymentReference.split('').join(' '),
    ]) {
      const response = await admin.get(`/payments/references/${encodeURIComponent(typed)}`);
      assert.deepEqual(response.body, expected, typed);
    }
  });

  test('lookup: wrong check digits and malformed references are 400, well-formed unknown ones 404', async () => {
    const { deal } = await dealWithInvestors();
    const [entry] = (await admin.get(`/deals/deal/${deal.dealId}/all-payment-refernces`)).body;
    const reference: string = entry.paymentReference;
    // One digit of the body changed: a typing mistake, told apart from an unknown reference.
    const last = reference.at(-1)!;
    const mistyped = reference.slice(0, -1) + (last === '9' ? '0' : String(Number(last) + 1));
    const problem = expectProblem(await admin.get(`/payments/references/${mistyped}`), 400);
    assert.match(problem.detail, /check digits/);
    assert.deepEqual(
      problem.errors?.map((e) => [e.in, e.field]),
      [['path', 'reference']],
    );
    const swapped = reference.slice(0, 4) + reference[5] + reference[4] + reference.slice(6);
    if (swapped !== reference) expectProblem(await admin.get(`/payments/references/${swapped}`), 400);
    for (const malformed of [
      'hello',
      'RF',
      'RF1',
      'XX18539007547034',
      'RF18 5390 O754 7034',
      `RF18${'1'.repeat(22)}`,
      '%E2%82%AC',
      'constructor',
      '__proto__',
    ]) {
      expectProblem(await admin.get(`/payments/references/${malformed.includes('%') ? malformed : encodeURIComponent(malformed)}`), 400);
    }
    expectProblem(await admin.get(`/payments/references/${referenceFromBody('4242')}`), 404);
  });

  test('admin only: investor tokens get 403 for the list and for a lookup, even of their own reference', async () => {
    const { deal, ids } = await dealWithInvestors();
    const list = (await admin.get(`/deals/deal/${deal.dealId}/all-payment-refernces`)).body;
    const investor = client(t.app, await t.investorToken(ids[0]!));
    expectProblem(await investor.get(`/deals/deal/${deal.dealId}/all-payment-refernces`), 403);
    for (const entry of list) expectProblem(await investor.get(`/payments/references/${entry.paymentReference}`), 403);
  });
});
