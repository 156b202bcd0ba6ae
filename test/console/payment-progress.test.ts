// Received and still to pay beside the commitment on the console's cards, rows and investor
// summary, and the table's `paid` filter (none, partly, full), after payments of part of a
// commitment.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { paidStateOf, remainingOf } from '../../src/domain/commitment.ts';
import { paidStates } from '../../src/domain/console.ts';
import { expectProblem, startApp } from '../support/app.ts';
import { payingDeal, postStatement } from '../support/payments.ts';

describe('payment progress in the console', () => {
  const t = startApp();
  const admin = t.admin;

  test('an assigned underpayment shows received and remaining; the paid filter finds it', async () => {
    const deal = await payingDeal(admin, { letters: ['A', 'B', 'D'] });
    const [a, b, d] = [deal.investors['A']!, deal.investors['B']!, deal.investors['D']!];
    const statement = await postStatement(
      t,
      `date,amount,currency,reference,bank_reference\n` +
        `2026-11-24,5000.00,EUR,no reference given,PART-${deal.dealId}\n2026-11-24,5000.00,EUR,no reference given,FULL-${deal.dealId}\n`,
      'text/csv',
      '?bankReferenceColumn=bank_reference',
    );
    assert.equal(statement.status, 201, JSON.stringify(statement.body));
    const lines = (await admin.get(`/payments/lines?statementId=${statement.body.statement.id}`)).body.output;
    assert.equal((await admin.post(`/payments/lines/${lines[0].id}/assign`, { dealId: deal.dealId, investorUserId: a })).status, 200);
    assert.equal((await admin.post(`/payments/lines/${lines[1].id}/assign`, { dealId: deal.dealId, investorUserId: d })).status, 200);

    const summary = (await admin.get(`/console/deals/${deal.dealId}/investors/${a}`)).body;
    assert.deepEqual([summary.committedAmount, summary.receivedAmount, summary.remainingAmount], ['25000.00', '5000.00', '20000.00']);
    const cards = (await admin.get(`/console/deals/${deal.dealId}/board/cards?limit=100`)).body.output;
    const card = (id: string) => cards.find((c: { investorUserId: string }) => c.investorUserId === id);
    assert.deepEqual([card(a).receivedAmount, card(a).remainingAmount], ['5000.00', '20000.00']);
    assert.deepEqual([card(b).receivedAmount, card(b).remainingAmount], [null, null], 'nothing received');
    assert.deepEqual([card(d).receivedAmount, card(d).remainingAmount], ['5000.00', '0.00'], 'paid in full');

    const rows = async (paid: string) => (await admin.get(`/console/deals/${deal.dealId}/rows?paid=${paid}`)).body;
    const partly = await rows('partly');
    assert.deepEqual(
      partly.output.map((r: { investorUserId: string }) => r.investorUserId),
      [a],
    );
    assert.deepEqual([partly.output[0].receivedAmount, partly.output[0].remainingAmount, partly.total], ['5000.00', '20000.00', 1]);
    assert.deepEqual(
      (await rows('none')).output.map((r: { investorUserId: string }) => r.investorUserId),
      [b],
    );
    assert.deepEqual(
      (await rows('full')).output.map((r: { investorUserId: string }) => r.investorUserId),
      [d],
    );
    expectProblem(await admin.get(`/console/deals/${deal.dealId}/rows?paid=half`), 400);

    // The filter is the SQL form of domain/commitment.ts's rule: each row is under the state the rule gives it.
    type Row = { investorUserId: string; committedAmount: string | null; receivedAmount: string | null; remainingAmount: string | null };
    const all = (await admin.get(`/console/deals/${deal.dealId}/rows`)).body.output as Row[];
    assert.equal(all.length, 3);
    for (const state of paidStates) {
      const filtered = ((await rows(state)).output as Row[]).map((r) => r.investorUserId).sort();
      const ruled = all
        .filter((r) => paidStateOf(r.committedAmount, r.receivedAmount) === state)
        .map((r) => r.investorUserId)
        .sort();
      assert.deepEqual(filtered, ruled, `paid=${state}`);
    }
    for (const r of all)
      assert.equal(
        r.remainingAmount === null ? null : Number(r.remainingAmount),
        r.receivedAmount === null ? null : Number(remainingOf(r.committedAmount, r.receivedAmount)),
      );
  });
});
