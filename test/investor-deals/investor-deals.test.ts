// What an investor sees of their deals (GET /investors/{investorUserId}/deals and …/deals/{dealId}):
// after their own move, an approved change of amount and a reconciled part payment; the payment
// instructions with the EPC QR payload; and who may read what.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createToken } from '../../src/operations/tokens.ts';
import { client, type Client, expectProblem, startApp } from '../support/app.ts';
import { createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { createOpenDeal, investorAtInterest, type OpenDeal } from '../support/open-deals.ts';
import { postStatement } from '../support/payments.ts';

const PAYEE = { beneficiaryName: 'Harbour Fund I GmbH & Co. KG', iban: 'DE89 3704 0044 0532 0130 00', bic: 'cobadeffxxx' };
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("an investor's deals", () => {
  const t = startApp();
  const admin = t.admin;
  let deal: OpenDeal;
  let investor: { id: string; own: Client };
  let reference: string;
  let commitEventId: string;
  let requestId: string;

  before(async () => {
    deal = await createOpenDeal(admin, { name: 'Harbour Fund I' });
    const settings = await admin.put(`/deals/deal/${deal.dealId}/payment-settings`, { paymentStepId: deal.step('pay'), dateFieldKey: 'paid_on', ...PAYEE });
    assert.equal(settings.status, 201, settings.text);
    investor = await investorAtInterest(t, admin, deal);
    // The investor commits themselves along the open link.
    const moved = await investor.own.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: investor.id,
      targetStepId: deal.step('commit'),
      data: { committed_amount: '25000.00', currency: 'EUR' },
    });
    assert.equal(moved.status, 201, moved.text);
    commitEventId = moved.body.id;
    // They ask for more; staff approve.
    const asked = await investor.own.post('/deals/request-to-edit', {
      workflowEventId: commitEventId,
      type: 'Investment Amount',
      reason: 'More',
      newData: { committed_amount: '30000.00' },
    });
    assert.equal(asked.status, 201, asked.text);
    requestId = asked.body.id;
    const approved = await admin.post(`/deals/request-to-edit/${requestId}/approve`, { reason: 'Confirmed by phone' });
    assert.equal(approved.status, 200, approved.text);
    reference = (await admin.get(`/deals/deal/${deal.dealId}/all-payment-refernces`)).body.find((r: any) => r.investorUserId === investor.id).paymentReference;
    // Part of the money arrives.
    const statement = await postStatement(t, `date,amount,currency,reference\n2026-11-24,5000.00,EUR,${reference}\n`, 'text/csv');
    assert.equal(statement.status, 201, JSON.stringify(statement.body));
  });

  test('one deal: where they stand, where they were, where they may go, what they committed and how to pay', async () => {
    const response = await investor.own.get(`/investors/${investor.id}/deals/${deal.dealId}`);
    assert.equal(response.status, 200, response.text);
    const view = response.body;
    assert.equal(view.dealId, deal.dealId);
    assert.equal(view.dealName, 'Harbour Fund I');
    assert.equal(view.workflowLabel, 'Subscription');
    assert.equal(view.investorEngagementEnabled, true);
    assert.deepEqual({ ...view.currentStep, enteredAt: 'at' }, { id: deal.step('commit'), label: 'Commitment', type: 'default', enteredAt: 'at' });
    assert.match(view.currentStep.enteredAt, TIMESTAMP);
    assert.deepEqual(
      view.pastSteps.map((s: any) => [s.stepId, s.label]),
      [[deal.step('interest'), 'Interest']],
    );
    assert.match(view.pastSteps[0].enteredAt, TIMESTAMP);
    assert.deepEqual(view.nextSteps.map((s: any) => [s.id, s.investorMay]).sort(), [
      [deal.step('out'), true],
      [deal.step('pay'), false],
    ]);
    const pay = view.nextSteps.find((s: any) => s.id === deal.step('pay'));
    assert.deepEqual(pay, {
      id: deal.step('pay'),
      label: 'Payment',
      type: 'default',
      investorMay: false,
      waitingFor: [],
      stepFields: [{ fieldKey: 'paid_on', label: null, kind: 'date', required: false, options: null }],
    });
    assert.deepEqual(view.commitment, { eventId: commitEventId, fieldKey: 'committed_amount', amount: '30000.00', currency: 'EUR' });
    assert.deepEqual(
      view.commitmentHistory.map((h: any) => [h.amount, h.currency, h.changedBy, h.revision, h.eventId]),
      [
        ['25000.00', 'EUR', 'investor', 1, commitEventId],
        ['30000.00', 'EUR', 'staff', 2, commitEventId],
      ],
    );
    assert.ok(view.commitmentHistory.every((h: any) => TIMESTAMP.test(h.at)));
    assert.deepEqual(view.payment, {
      reference,
      currency: 'EUR',
      amountDue: '30000.00',
      received: '5000.00',
      remaining: '25000.00',
      beneficiaryName: 'Harbour Fund I GmbH & Co. KG',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
      payeeChangedAt: null,
      epcQr: `BCD\n002\n1\nSCT\nCOBADEFFXXX\nHarbour Fund I GmbH & Co. KG\nDE89370400440532013000\nEUR25000.00\n\n${reference}`,
    });
    assert.equal(view.editRequests.length, 1);
    assert.deepEqual(
      { ...view.editRequests[0], createdAt: 'c', decidedAt: 'd' },
      {
        requestId,
        eventId: commitEventId,
        type: 'Investment Amount',
        status: 'approved',
        newAmount: '30000.00',
        reason: 'More',
        createdAt: 'c',
        decidedAt: 'd',
        decisionNote: 'Confirmed by phone',
      },
    );
  });

  test('the list holds the same deal; staff read it too', async () => {
    const own = await investor.own.get(`/investors/${investor.id}/deals`);
    assert.equal(own.status, 200, own.text);
    const one = (await investor.own.get(`/investors/${investor.id}/deals/${deal.dealId}`)).body;
    assert.deepEqual(own.body.deals, [one]);
    assert.deepEqual((await admin.get(`/investors/${investor.id}/deals`)).body, own.body);
    assert.deepEqual((await admin.get(`/investors/${investor.id}/deals/${deal.dealId}`)).body, one);
  });

  test('the list: by deal name, every deal they are in; none is an empty list', async () => {
    const other = await createOpenDeal(admin, { name: 'Aardvark Ventures', currency: 'USD' });
    await jump(admin, other.dealId, investor.id, other.step('interest'));
    const deals = (await investor.own.get(`/investors/${investor.id}/deals`)).body.deals;
    assert.deepEqual(
      deals.map((d: any) => d.dealName),
      ['Aardvark Ventures', 'Harbour Fund I'],
    );
    assert.equal(deals[0].commitment, null);
    assert.equal(deals[0].payment, null, 'nothing committed, nothing due');
    const { id } = await createInvestor(admin);
    assert.deepEqual((await client(t.app, await t.investorToken(id)).get(`/investors/${id}/deals`)).body, { deals: [] });
  });

  test('a deal in another currency than EUR: payment instructions without an EPC QR code', async () => {
    const usd = await createOpenDeal(admin, { currency: 'USD' });
    await admin.put(`/deals/deal/${usd.dealId}/payment-settings`, { paymentStepId: null, ...PAYEE });
    const { id, own } = await investorAtInterest(t, admin, usd);
    await jump(admin, usd.dealId, id, usd.step('commit'), { committed_amount: '1000.00', currency: 'USD' });
    const payment = (await own.get(`/investors/${id}/deals/${usd.dealId}`)).body.payment;
    assert.deepEqual(
      [payment.currency, payment.amountDue, payment.received, payment.remaining, payment.iban, payment.epcQr],
      ['USD', '1000.00', '0.00', '1000.00', 'DE89370400440532013000', null],
    );
  });

  test('bank details changed after being set: the investor sees when, once a second admin approved the new IBAN', async () => {
    const changing = await createOpenDeal(admin);
    const url = `/deals/deal/${changing.dealId}/payment-settings`;
    assert.equal((await admin.put(url, { paymentStepId: null, ...PAYEE })).status, 201);
    const { id, own } = await investorAtInterest(t, admin, changing);
    await jump(admin, changing.dealId, id, changing.step('commit'), { committed_amount: '1000.00', currency: 'EUR' });
    const read = async () => (await own.get(`/investors/${id}/deals/${changing.dealId}`)).body.payment;
    assert.equal((await read()).payeeChangedAt, null, 'the first bank details are no change');
    const proposed = await admin.put(url, { paymentStepId: null, ...PAYEE, iban: 'BE71096123456769' });
    assert.equal(proposed.status, 202, proposed.text);
    assert.equal((await read()).payeeChangedAt, null, 'a proposal changes nothing');
    const second = client(t.app, (await createToken(t.database.db, { name: 'second admin', role: 'admin' })).token);
    assert.equal((await second.post(`/approvals/${proposed.body.id}/approve`)).status, 200);
    const payment = await read();
    assert.equal(payment.iban, 'BE71096123456769');
    assert.match(payment.payeeChangedAt, TIMESTAMP);
    // A change of something else keeps the moment the bank details changed.
    assert.equal((await admin.put(url, { paymentStepId: changing.step('pay'), ...PAYEE, iban: 'BE71096123456769' })).status, 200);
    assert.equal((await read()).payeeChangedAt, payment.payeeChangedAt);
  });

  test('a deal without a payee: no EPC QR code', async () => {
    const bare = await createOpenDeal(admin);
    const { id, own } = await investorAtInterest(t, admin, bare);
    await jump(admin, bare.dealId, id, bare.step('commit'), { committed_amount: '1000.00', currency: 'EUR' });
    const payment = (await own.get(`/investors/${id}/deals/${bare.dealId}`)).body.payment;
    assert.deepEqual([payment.beneficiaryName, payment.iban, payment.bic, payment.epcQr], [null, null, null, null]);
  });

  test('ETag: If-None-Match answers 304; a move makes a new tag', async () => {
    const path = `/investors/${investor.id}/deals/${deal.dealId}`;
    const first = await investor.own.get(path);
    const etag = String(first.headers.etag);
    assert.match(etag, /^"id/);
    assert.equal((await investor.own.get(path, { 'if-none-match': etag })).status, 304);
    const { id, own } = await investorAtInterest(t, admin, deal);
    const theirs = await own.get(`/investors/${id}/deals/${deal.dealId}`);
    await jump(admin, deal.dealId, id, deal.step('commit'), { committed_amount: '1.00', currency: 'EUR' });
    assert.equal((await own.get(`/investors/${id}/deals/${deal.dealId}`, { 'if-none-match': String(theirs.headers.etag) })).status, 200);
  });

  test("another investor's id: 404 as an unknown investor; a deal without their journey: 404 as an unknown deal", async () => {
    const stranger = await investorAtInterest(t, admin, await createOpenDeal(admin));
    const unknownInvestor = uniqueId('inv');
    const same = (a: any, aId: string, b: any, bId: string) => {
      assert.equal(a.status, 404, JSON.stringify(a.body));
      assert.deepEqual([a.body.type, a.body.title, a.body.detail.replace(aId, '<id>')], [b.body.type, b.body.title, b.body.detail.replace(bId, '<id>')]);
    };
    same(
      await stranger.own.get(`/investors/${investor.id}/deals`),
      investor.id,
      await stranger.own.get(`/investors/${unknownInvestor}/deals`),
      unknownInvestor,
    );
    same(
      await stranger.own.get(`/investors/${investor.id}/deals/${deal.dealId}`),
      investor.id,
      await stranger.own.get(`/investors/${unknownInvestor}/deals/${deal.dealId}`),
      unknownInvestor,
    );
    const unknownDeal = uniqueId('deal');
    same(
      await stranger.own.get(`/investors/${stranger.id}/deals/${deal.dealId}`),
      deal.dealId,
      await stranger.own.get(`/investors/${stranger.id}/deals/${unknownDeal}`),
      unknownDeal,
    );
    // Staff: an unknown investor and an unknown deal are told apart.
    expectProblem(await admin.get(`/investors/${unknownInvestor}/deals`), 404);
    expectProblem(await admin.get(`/investors/${stranger.id}/deals/${unknownDeal}`), 404);
    expectProblem(await admin.get(`/investors/${stranger.id}/deals/${deal.dealId}`), 404);
  });
});
