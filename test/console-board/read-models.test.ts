// The console read models through HTTP: deals with investors per state and committed totals,
// the board summary per step, pages of cards, one investor's summary, and who may call them.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { pipeline, seedBoard } from './board-fixture.ts';

const commit = (amount: string, currency = 'EUR') => ({ to: 'commitment', data: { committed_amount: amount, currency } });

describe('console read models', () => {
  const t = startApp();
  const admin = t.admin;
  let deal: Awaited<ReturnType<typeof seedBoard>>;
  before(async () => {
    deal = await seedBoard(t.database.db, admin, {
      name: 'Alpha Fund',
      currency: 'GBP',
      steps: pipeline,
      investors: [
        { forename: 'Ada', surname: 'Lovelace', moves: [{ to: 'interest' }] },
        { forename: 'Grace', surname: 'Hopper', moves: [{ to: 'interest' }, commit('0.10')] },
        { forename: 'Alan', surname: 'Turing', moves: [{ to: 'interest' }, commit('0.20')] },
        // A later event's value wins over an earlier one.
        {
          forename: 'Edsger',
          surname: 'Dijkstra',
          moves: [{ to: 'interest' }, commit('100.00', 'USD'), { to: 'complete', data: { committed_amount: '150.50' } }],
        },
        { forename: 'Barbara', surname: 'Liskov', moves: [{ to: 'interest' }, commit('1000'), { to: 'withdrawn' }] },
        // No currency captured: the deal's currency applies.
        {
          forename: 'Donald',
          surname: 'Knuth',
          email: 'don@taocp.example',
          moves: [{ to: 'interest' }, { to: 'commitment', data: { committed_amount: '7' } }],
        },
      ],
    });
  });

  test('the deals list counts investors per state and sums commitments per currency, exactly, leaving out the withdrawn', async () => {
    const response = await admin.get('/console/deals');
    assert.equal(response.status, 200);
    const summary = response.body.find((d: { id: string }) => d.id === deal.dealId);
    assert.deepEqual(summary, {
      id: deal.dealId,
      name: 'Alpha Fund',
      description: null,
      currency: 'GBP',
      investors: { total: 6, inProgress: 4, complete: 1, withdrawn: 1 },
      committed: [
        { currency: 'EUR', amount: '0.30' },
        { currency: 'GBP', amount: '7' },
        { currency: 'USD', amount: '150.50' },
      ],
    });
  });

  test('a deal without journeys or workflow is listed with zeros', async () => {
    await admin.put('/deals/deal/empty-deal-bo', { name: 'Empty' });
    const summary = (await admin.get('/console/deals')).body.find((d: { id: string }) => d.id === 'empty-deal-bo');
    assert.deepEqual(summary.investors, { total: 0, inProgress: 0, complete: 0, withdrawn: 0 });
    assert.deepEqual(summary.committed, []);
  });

  test('the board has one entry per occupied step with its count and committed totals', async () => {
    const board = await admin.get(`/console/deals/${deal.dealId}/board`);
    assert.equal(board.status, 200);
    assert.equal(board.body.dealId, deal.dealId);
    assert.equal(board.body.total, 6);
    const byStep = Object.fromEntries(board.body.columns.map((c: { stepId: string }) => [c.stepId, c]));
    assert.deepEqual(byStep[deal.stepId('interest')], { stepId: deal.stepId('interest'), count: 1, committed: [] });
    assert.deepEqual(byStep[deal.stepId('commitment')], {
      stepId: deal.stepId('commitment'),
      count: 3,
      committed: [
        { currency: 'EUR', amount: '0.30' },
        { currency: 'GBP', amount: '7' },
      ],
    });
    assert.deepEqual(byStep[deal.stepId('complete')].committed, [{ currency: 'USD', amount: '150.50' }]);
    assert.deepEqual(byStep[deal.stepId('withdrawn')].committed, [{ currency: 'EUR', amount: '1000' }]);
  });

  test('search narrows the board by name or e-mail, case-insensitively, with wildcards taken literally', async () => {
    const byName = await admin.get(`/console/deals/${deal.dealId}/board?query=${encodeURIComponent('HOPPER')}`);
    assert.equal(byName.body.total, 1);
    assert.deepEqual(
      byName.body.columns.map((c: { stepId: string }) => c.stepId),
      [deal.stepId('commitment')],
    );
    const byEmail = await admin.get(`/console/deals/${deal.dealId}/board?query=taocp`);
    assert.equal(byEmail.body.total, 1);
    const wildcard = await admin.get(`/console/deals/${deal.dealId}/board?query=${encodeURIComponent('%')}`);
    assert.equal(wildcard.body.total, 0);
  });

  test('cards come a page at a time, by name, with amount, currency and the time of the last move', async () => {
    const first = await admin.get(`/console/deals/${deal.dealId}/board/cards?limit=2&page=1`);
    assert.equal(first.status, 200);
    assert.equal(first.body.total, 6);
    assert.equal(first.body.totalPages, 3);
    assert.equal(first.body.page, 1);
    assert.deepEqual(
      first.body.output.map((c: { fullName: string }) => c.fullName),
      ['Ada Lovelace', 'Alan Turing'],
    );
    const third = await admin.get(`/console/deals/${deal.dealId}/board/cards?limit=2&page=3`);
    assert.deepEqual(
      third.body.output.map((c: { fullName: string }) => c.fullName),
      ['Edsger Dijkstra', 'Grace Hopper'],
    );
    const past = await admin.get(`/console/deals/${deal.dealId}/board/cards?limit=2&page=9`);
    assert.deepEqual(past.body, { output: [], page: 9, totalPages: 3, total: 6 });

    const step = await admin.get(`/console/deals/${deal.dealId}/board/cards?stepId=${deal.stepId('commitment')}&limit=100`);
    assert.deepEqual(
      step.body.output.map((c: { fullName: string }) => c.fullName),
      ['Alan Turing', 'Donald Knuth', 'Grace Hopper'],
    );
    const knuth = step.body.output[1];
    assert.deepEqual(Object.keys(knuth).sort(), [
      'committedAmount',
      'currency',
      'email',
      'enteredStepAt',
      'fullName',
      'investorUserId',
      'receivedAmount',
      'remainingAmount',
      'stepId',
    ]);
    assert.deepEqual([knuth.receivedAmount, knuth.remainingAmount], [null, null], 'nothing received');
    assert.equal(knuth.email, 'don@taocp.example');
    assert.equal(knuth.committedAmount, '7');
    assert.equal(knuth.currency, 'GBP');
    assert.equal(knuth.stepId, deal.stepId('commitment'));
    assert.match(knuth.enteredStepAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(Date.now() - Date.parse(knuth.enteredStepAt) < 2 * 86_400_000);
  });

  test('an investor summary carries the payment reference and the pending edit requests', async () => {
    const id = deal.investorIds[1]!;
    const response = await admin.get(`/console/deals/${deal.dealId}/investors/${id}`);
    assert.equal(response.status, 200);
    assert.equal(response.body.fullName, 'Grace Hopper');
    assert.equal(response.body.committedAmount, '0.10');
    assert.equal(response.body.currency, 'EUR');
    assert.match(response.body.paymentReference, /^RF\d{2}\d+$/);
    assert.equal(response.body.pendingEditRequests, 0);
  });

  test('unknown deals, steps and journeys are 404; bad paging is 400', async () => {
    expectProblem(await admin.get('/console/deals/no-such-deal/board'), 404);
    expectProblem(await admin.get('/console/deals/no-such-deal/board/cards'), 404);
    expectProblem(await admin.get(`/console/deals/${deal.dealId}/board/cards?stepId=no-such-step`), 404);
    expectProblem(await admin.get(`/console/deals/${deal.dealId}/investors/nobody`), 404);
    expectProblem(await admin.get('/console/deals/no-such-deal/investors/nobody'), 404);
    expectProblem(await admin.get(`/console/deals/${deal.dealId}/board/cards?limit=101`), 400);
    expectProblem(await admin.get(`/console/deals/${deal.dealId}/board/cards?page=0`), 400);
  });

  test('investor tokens and missing tokens are refused', async () => {
    const investor = client(t.app, await t.investorToken(deal.investorIds[0]!));
    const anonymous = client(t.app);
    for (const url of [
      '/console/deals',
      `/console/deals/${deal.dealId}/board`,
      `/console/deals/${deal.dealId}/board/cards`,
      `/console/deals/${deal.dealId}/investors/${deal.investorIds[0]}`,
    ]) {
      expectProblem(await investor.get(url), 403);
      expectProblem(await anonymous.get(url), 401);
    }
  });
});
