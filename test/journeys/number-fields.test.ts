// Step fields of kind `number`: a decimal string, stored and answered exactly as sent; any other value
// is refused as a bad amount is (400, the field named in `errors`) wherever a move or an edit meets
// it, and nothing is written.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { rowCounts } from '../support/row-counts.ts';

const THIRTY_DIGITS = '123456789012345678901234567890';
const NOT_NUMBERS = ['1e3', '1,000', '+1', '.5', '12.', '01', '-0', ' 12', 'twelve', `${THIRTY_DIGITS}1`];

describe('number fields', () => {
  const t = startApp();
  const admin = t.admin;

  // interest → allocation (shares: number, required; adjustment: number; committed_amount, currency) → done
  async function numberDeal() {
    const dealId = uniqueId('deal');
    const s = (name: string) => `${dealId}.${name}`;
    assert.equal((await admin.put(`/deals/deal/${dealId}`, { name: `Numbers ${dealId}`, currency: 'EUR' })).status, 201);
    const set = await admin.put(`/deals/deal/${dealId}/workflow`, {
      label: 'Allocation',
      description: 'shares allotted per investor',
      investorEngagementEnabled: true,
      steps: [
        { id: s('interest'), label: 'Interest', type: 'default', stepFields: [{ fieldKey: 'note', required: false }] },
        {
          id: s('allocation'),
          label: 'Allocation',
          type: 'default',
          stepFields: [
            { fieldKey: 'shares', required: true, kind: 'number', label: 'Shares' },
            { fieldKey: 'adjustment', required: false, kind: 'number' },
            { fieldKey: 'committed_amount', required: false, kind: 'amount' },
            { fieldKey: 'currency', required: false, kind: 'currency' },
          ],
        },
        { id: s('done'), label: 'Done', type: 'complete', stepFields: [] },
      ],
      links: [
        { fromStepId: s('interest'), toStepId: s('allocation'), investorMay: true },
        { fromStepId: s('allocation'), toStepId: s('done') },
      ],
    });
    assert.equal(set.status, 201, JSON.stringify(set.body));
    return { dealId, step: s, workflow: set.body };
  }

  const journeyOf = async (dealId: string, investorUserId: string) =>
    (await admin.get(`/deals/deal/${dealId}/investor-data/${investorUserId}`)).body.journey as { id: string; toStepId: string; data: Record<string, string> }[];

  test('a workflow names the kind; a number is stored and answered exactly as sent', async () => {
    const deal = await numberDeal();
    const allocation = deal.workflow.steps.find((step: { id: string }) => step.id === deal.step('allocation'));
    assert.deepEqual(
      allocation.stepFields.map((f: { fieldKey: string; kind: string }) => [f.fieldKey, f.kind]),
      [
        ['shares', 'number'],
        ['adjustment', 'number'],
        ['committed_amount', 'amount'],
        ['currency', 'currency'],
      ],
    );
    const status = (await admin.get(`/deals/deal/${deal.dealId}/workflow-status`)).body;
    assert.equal(status.steps.find((step: { id: string }) => step.id === deal.step('allocation')).stepFields[0].kind, 'number');

    const cases: Record<string, string>[] = [
      { shares: '12' },
      { shares: '1200.50', adjustment: '-3.5' },
      { shares: '0.25', adjustment: '0' },
      { shares: THIRTY_DIGITS, adjustment: `-0.${'0'.repeat(27)}10` },
    ];
    for (const data of cases) {
      const { id } = await createInvestor(admin);
      const event = await jump(admin, deal.dealId, id, deal.step('allocation'), data);
      assert.deepEqual(event.data, data);
      assert.deepEqual(
        (await journeyOf(deal.dealId, id)).map((e) => e.data),
        [data],
        'read back as sent: no float, no trailing zero lost',
      );
    }
  });

  test('a value that is not a decimal number: 400 as a bad amount is, naming the field; nothing written', async () => {
    const deal = await numberDeal();
    const { id } = await createInvestor(admin);
    await jump(admin, deal.dealId, id, deal.step('interest'), { note: 'keen' });
    const move = (data: Record<string, string>) =>
      admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: id, targetStepId: deal.step('allocation'), data });
    const badAmount = expectProblem(await move({ shares: '12', committed_amount: '1e3', currency: 'EUR' }), 400);
    const before = await rowCounts(t);
    for (const value of NOT_NUMBERS) {
      const problem = expectProblem(await move({ shares: value }), 400);
      assert.equal(problem.type, badAmount.type, value);
      assert.equal(problem.title, badAmount.title, value);
      assert.deepEqual(
        problem.errors?.map((e) => e.field),
        ['data.shares'],
        `${JSON.stringify(value)}: ${JSON.stringify(problem.errors)}`,
      );
      assert.match(problem.errors![0]!.detail, /decimal number .* at most 30 digits/);
    }
    // Each bad field is named, beside the good ones.
    const both = expectProblem(await move({ shares: '7', adjustment: '1e-2', committed_amount: '-1', currency: 'EUR' }), 400);
    assert.deepEqual(both.errors?.map((e) => e.field).sort(), ['data.adjustment', 'data.committed_amount']);
    assert.deepEqual(await rowCounts(t), before);
    assert.deepEqual(
      (await journeyOf(deal.dealId, id)).map((e) => e.toStepId),
      [deal.step('interest')],
    );
  });

  test("the same refusal in an edit, a bulk move, an import row and an investor's own move; nothing written", async () => {
    const deal = await numberDeal();
    const { id: placed } = await createInvestor(admin);
    const event = await jump(admin, deal.dealId, placed, deal.step('allocation'), { shares: '10' });
    const [{ id: waiting }, { id: other }] = [await createInvestor(admin), await createInvestor(admin)];
    for (const id of [waiting, other]) await jump(admin, deal.dealId, id, deal.step('interest'), { note: 'keen' });
    const own = client(t.app, await t.investorToken(waiting));
    const before = await rowCounts(t);

    const edit = expectProblem(await admin.post(`/deals/event/${event.id}/edit`, { shares: '10.000.000' }), 400);
    const editAmount = expectProblem(await admin.post(`/deals/event/${event.id}/edit`, { shares: '10', committed_amount: 'lots' }), 400);
    assert.equal(edit.type, editAmount.type);
    assert.deepEqual(
      edit.errors?.map((e) => e.field),
      ['shares'],
    );

    const bulk = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, {
      moves: [
        { investorUserId: waiting, targetStepId: deal.step('allocation'), data: { shares: '1 000' } },
        { investorUserId: other, targetStepId: deal.step('allocation'), data: { shares: '5', committed_amount: '5e2', currency: 'EUR' } },
      ],
    });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    const [number, amount] = bulk.body.results;
    assert.deepEqual([number.status, number.problem.status, number.problem.type], [400, 400, amount.problem.type]);
    assert.deepEqual(
      number.problem.errors.map((e: { field: string }) => e.field),
      ['data.shares'],
    );

    const imported = await t.app.inject({
      method: 'POST',
      url: `/deals/deal/${deal.dealId}/jump-to-step/import`,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/csv' },
      payload: `investorUserId,targetStepId,shares\n${waiting},${deal.step('allocation')},"1,5"\n`,
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const [row] = JSON.parse(imported.body).rows;
    assert.deepEqual([row.outcome, row.problem.status, row.problem.type], ['refused', 400, amount.problem.type]);
    assert.deepEqual(
      row.problem.errors.map((e: { field: string }) => e.field),
      ['data.shares'],
    );

    const mine = expectProblem(
      await own.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: waiting, targetStepId: deal.step('allocation'), data: { shares: 'NaN' } }),
      400,
    );
    assert.equal(mine.type, amount.problem.type);
    assert.deepEqual(
      mine.errors?.map((e) => e.field),
      ['data.shares'],
    );

    assert.deepEqual(await rowCounts(t), before);
    assert.deepEqual(
      (await journeyOf(deal.dealId, placed)).map((e) => e.data),
      [{ shares: '10' }],
    );
    assert.equal((await admin.get(`/deals/event/${event.id}/revisions`)).body.length, 1);
    // The investor still may, with a number.
    const moved = await own.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: waiting,
      targetStepId: deal.step('allocation'),
      data: { shares: '-2.75' },
    });
    assert.equal(moved.status, 201, JSON.stringify(moved.body));
    assert.deepEqual(moved.body.data, { shares: '-2.75' });
  });
});
