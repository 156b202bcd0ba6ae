// The committed amount has one rule: the field the deal's payment settings name
// (`commitmentFieldKey`, with `currencyFieldKey`), else `committed_amount`. The console's board,
// cards and investor summary, the investor's own deal (the portal), the funnel and the CSV export
// of journeys must all read it, for a deal whose commitment field is not the default and whose
// step captures another amount before it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startApp } from '../support/app.ts';
import { createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

describe('the committed amount, from a deal whose payment settings name another field', () => {
  const t = startApp();
  const admin = t.admin;

  test('board, cards, investor summary, portal, funnel and export agree', async () => {
    const dealId = uniqueId('deal');
    const s = (name: string) => `${dealId}.${name}`;
    assert.equal((await admin.put(`/deals/deal/${dealId}`, { name: 'Pledges', currency: 'EUR' })).status, 201);
    const workflow = await admin.put(`/deals/deal/${dealId}/workflow`, {
      label: 'Pledges',
      description: 'interest, pledge, complete',
      investorEngagementEnabled: false,
      steps: [
        { id: s('interest'), label: 'Interest', type: 'default', requirements: [], formId: null, stepFields: [] },
        {
          id: s('pledge'),
          label: 'Pledge',
          type: 'default',
          requirements: [],
          formId: null,
          stepFields: [
            // An amount field before the commitment: a rule that took the first amount would read it.
            { fieldKey: 'arrangement_fee', required: false, kind: 'amount', label: null, options: null },
            { fieldKey: 'pledged', required: true, kind: 'amount', label: null, options: null },
            { fieldKey: 'pledge_currency', required: true, kind: 'currency', label: null, options: null },
          ],
        },
        { id: s('complete'), label: 'Complete', type: 'complete', requirements: [], formId: null, stepFields: [] },
      ],
      links: [
        { fromStepId: s('interest'), toStepId: s('pledge'), investorMay: false },
        { fromStepId: s('pledge'), toStepId: s('complete'), investorMay: false },
      ],
    });
    assert.equal(workflow.status, 201, JSON.stringify(workflow.body));
    const settings = await admin.put(`/deals/deal/${dealId}/payment-settings`, {
      paymentStepId: null,
      commitmentFieldKey: 'pledged',
      currencyFieldKey: 'pledge_currency',
    });
    assert.equal(settings.status, 201, JSON.stringify(settings.body));
    const { id: investor } = await createInvestor(admin);
    await jump(admin, dealId, investor, s('interest'));
    await jump(admin, dealId, investor, s('pledge'), { arrangement_fee: '99.00', pledged: '12345.67', pledge_currency: 'CHF' });

    const deals = (await admin.get('/console/deals')).body as { id: string; committed: { currency: string; amount: string }[] }[];
    assert.deepEqual(deals.find((d) => d.id === dealId)?.committed, [{ currency: 'CHF', amount: '12345.67' }], 'the deals list');
    const board = (await admin.get(`/console/deals/${dealId}/board`)).body as {
      columns: { stepId: string; committed: { currency: string; amount: string }[] }[];
    };
    assert.deepEqual(board.columns.find((x) => x.stepId === s('pledge'))?.committed, [{ currency: 'CHF', amount: '12345.67' }], 'the board');
    const cards = (await admin.get(`/console/deals/${dealId}/board/cards?limit=10`)).body.output as {
      investorUserId: string;
      committedAmount: string;
      currency: string;
    }[];
    assert.deepEqual(
      cards.map((c) => [c.committedAmount, c.currency]),
      [['12345.67', 'CHF']],
      'the cards',
    );
    const summary = (await admin.get(`/console/deals/${dealId}/investors/${investor}`)).body;
    assert.deepEqual([summary.committedAmount, summary.currency], ['12345.67', 'CHF'], "the investor's summary");

    const own = (await admin.get(`/investors/${investor}/deals/${dealId}`)).body;
    assert.deepEqual(
      [own.commitment?.fieldKey, own.commitment?.amount, own.commitment?.currency],
      ['pledged', '12345.67', 'CHF'],
      "the investor's deal (the portal)",
    );

    const funnel = (await admin.get(`/deals/deal/${dealId}/funnel?fresh=true`)).body as {
      steps: { stepId: string; committed: { currency: string; total: string; investors: number }[] }[];
    };
    assert.deepEqual(funnel.steps.find((x) => x.stepId === s('pledge'))?.committed, [{ currency: 'CHF', total: '12345.67', investors: 1 }], 'the funnel');

    const csv = await admin.get(`/deals/deal/${dealId}/all-investor-workflows`, { accept: 'text/csv' });
    assert.equal(csv.status, 200);
    const [header, row] = csv.text
      .trim()
      .split(/\r?\n/)
      .map((line: string) => line.split(','));
    assert.equal(row![header!.indexOf('pledged')], '12345.67', 'the export');
  });
});
