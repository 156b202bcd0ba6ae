// A European CRM export (Salesforce-style: `;` between columns, amounts as 25.000,00, dates as
// 01.03.2026) imported and placed in a step in one request: the separator found from the header,
// numbers and dates read in the forms the query names, each row created and placed together or not
// at all, the dry run refusing exactly what the import refuses, and rows with the same e-mail
// resolved by the policy asked for.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { workflowBody } from '../support/workflows.ts';

const HEADER = 'Full Name;Email;Account Name;Amount;Amount Currency;Stage;Close Date';
const MAP = {
  'Full Name': 'fullName',
  Email: 'contact.email',
  'Account Name': null,
  Amount: 'data.committed_amount',
  'Amount Currency': 'data.currency',
  Stage: null,
  'Close Date': 'data.close_date',
};

describe('a European file, imported and placed', () => {
  const t = startApp();
  const admin = t.admin;
  const send = (query: Record<string, string>, body: string) =>
    t.app
      .inject({
        method: 'POST',
        url: `/investors/import?${new URLSearchParams(query)}`,
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/csv' },
        payload: body,
      })
      .then((r) => ({ status: r.statusCode, headers: r.headers, body: JSON.parse(r.body), text: r.body }));

  /** A series-a deal whose commitment step also captures the close date. */
  async function deal() {
    const created = await createDeal(admin);
    const body = workflowBody(created.dealId);
    (body.steps.find((s) => s.id === created.step('commitment'))!.stepFields as unknown[]).push({ fieldKey: 'close_date', required: false, kind: 'date' });
    const set = await admin.put(`/deals/deal/${created.dealId}/workflow`, body);
    assert.equal(set.status, 200, JSON.stringify(set.body).slice(0, 300));
    return created;
  }
  const european = (dealId: string, stepId: string, extra: Record<string, string> = {}) => ({
    columns: JSON.stringify(MAP),
    numbers: '1.234,56',
    dates: 'dd.mm.yyyy',
    dealId,
    stepId,
    ...extra,
  });
  const journeyOf = async (dealId: string, id: string) => (await admin.get(`/deals/deal/${dealId}/investor-data/${id}`)).body.journey.map((e: any) => e.data);

  test('the preview counts what the import does, and every kept row is placed with its exact amount and date', async () => {
    const tag = uniqueId('eu');
    const d = await deal();
    const file = [
      HEADER,
      `Marie Curie;marie.${tag}@example.eu;Curie SARL;25.000,00;EUR;Closed Won;01.03.2026`,
      `Emmy Noether;emmy.${tag}@example.eu;Noether GmbH;"1.234.567,89";EUR;Closed Won;"15.03.2026"`,
      `Lise Meitner;lise.${tag}@example.eu;Meitner AG;12.500,5;EUR;Negotiation;`,
      // Placement refused (not a currency): the row is neither created nor placed.
      `Otto Hahn;otto.${tag}@example.eu;Hahn KG;5.000,00;EURO;Closed Won;02.03.2026`,
      // Not an amount as 1.234,56: refused before anything is checked, naming the value.
      `Max Born;max.${tag}@example.eu;Born KG;5,000.00;EUR;Closed Won;02.03.2026`,
    ].join('\r\n');
    const query = european(d.dealId, d.step('commitment'));

    const preview = await send({ ...query, dryRun: 'true' }, file);
    assert.equal(preview.status, 200, preview.text);
    const imported = await send(query, file);
    assert.equal(imported.status, 200, imported.text);
    const outcomes = (r: any) => r.body.rows.map((row: any) => [row.row, row.outcome, row.placement ?? null]);
    assert.deepEqual(outcomes(preview), outcomes(imported), 'the preview says row by row what the import did');
    assert.deepEqual(preview.body.summary, imported.body.summary);
    assert.deepEqual(imported.body.summary, { rows: 5, created: 3, updated: 0, unchanged: 0, refused: 2, placed: 3 });

    const [marie, emmy, lise, otto, max] = imported.body.rows;
    assert.deepEqual(await journeyOf(d.dealId, marie.id), [{ committed_amount: '25000.00', currency: 'EUR', close_date: '2026-03-01' }]);
    assert.deepEqual(await journeyOf(d.dealId, emmy.id), [{ committed_amount: '1234567.89', currency: 'EUR', close_date: '2026-03-15' }]);
    assert.deepEqual(await journeyOf(d.dealId, lise.id), [{ committed_amount: '12500.5', currency: 'EUR' }]);
    assert.equal(marie.placement, 'placed');
    assert.ok(marie.eventId);

    assert.equal(otto.outcome, 'refused');
    assert.equal(otto.problem.errors[0].field, 'data.currency');
    assert.match(otto.problem.errors[0].detail, /the row gives "EURO"/, 'the refusal names the value');
    assert.equal((await admin.get(`/investors/${otto.id}`)).status, 404, 'a row whose placement is refused is not created either');
    assert.equal(max.outcome, 'refused');
    assert.deepEqual(max.errors, [{ in: 'body', field: 'Amount', detail: '"5,000.00" is not a number written as 1.234,56' }]);

    // The same file again changes nothing.
    const again = await send(query, file);
    assert.deepEqual(again.body.summary, { rows: 5, created: 0, updated: 0, unchanged: 3, refused: 2, placed: 3 });
    assert.deepEqual(
      again.body.rows.slice(0, 3).map((r: any) => r.placement),
      ['unchanged', 'unchanged', 'unchanged'],
    );
  });

  test('read as 1234.56, the European amounts are refused by the preview and by the import alike, and nothing is half-applied', async () => {
    const tag = uniqueId('eu');
    const d = await deal();
    const file = [HEADER, `Marie Curie;marie.${tag}@example.eu;Curie SARL;"25.000,00";EUR;Closed Won;01.03.2026`].join('\n');
    const query = european(d.dealId, d.step('commitment'), { numbers: '1234.56' });
    const preview = await send({ ...query, dryRun: 'true' }, file);
    const imported = await send(query, file);
    assert.deepEqual(preview.body.summary, { rows: 1, created: 0, updated: 0, unchanged: 0, refused: 1 });
    assert.deepEqual(imported.body.summary, preview.body.summary);
    assert.deepEqual(imported.body.rows[0].errors, [{ in: 'body', field: 'Amount', detail: '"25.000,00" is not a number written as 1234.56' }]);
    assert.equal((await admin.get(`/investors/${imported.body.rows[0].id}`)).status, 404);
  });

  test('an amount the step refuses (more decimals than the currency has) refuses the row in the preview and in the import', async () => {
    const tag = uniqueId('eu');
    const d = await deal();
    const file = [HEADER, `Marie Curie;marie.${tag}@example.eu;Curie SARL;25.000,005;EUR;Closed Won;01.03.2026`].join('\n');
    const query = european(d.dealId, d.step('commitment'));
    const preview = await send({ ...query, dryRun: 'true' }, file);
    const imported = await send(query, file);
    assert.equal(preview.body.rows[0].outcome, 'refused', preview.text);
    assert.deepEqual(imported.body.summary, preview.body.summary);
    assert.match(JSON.stringify(imported.body.rows[0].problem), /25000\.005/);
    assert.equal((await admin.get(`/investors/${imported.body.rows[0].id}`)).status, 404);
  });

  test('rows with the same e-mail are flagged and resolved as asked: first, last, sum or skip', async () => {
    const expected = { first: '40000.00', last: '10000.00', sum: '50000.00', skip: undefined } as const;
    for (const [policy, amount] of Object.entries(expected)) {
      const tag = uniqueId('dup');
      const d = await deal();
      const file = [
        HEADER,
        `Ada Lovelace;ada.${tag}@example.eu;;40.000,00;EUR;Closed Won;01.03.2026`,
        `Alan Turing;alan.${tag}@example.eu;;1.000,00;EUR;Closed Won;01.03.2026`,
        `Ada King;ADA.${tag}@example.eu;;10.000,00;EUR;Closed Won;05.03.2026`,
      ].join('\n');
      const query = european(d.dealId, d.step('commitment'), { duplicates: policy });
      const preview = await send({ ...query, dryRun: 'true' }, file);
      assert.equal(preview.status, 200, preview.text);
      assert.deepEqual(
        preview.body.rows.map((r: any) => r.duplicateRows ?? null),
        [[1, 3], null, [1, 3]],
        policy,
      );
      const imported = await send(query, file);
      assert.deepEqual(outcomesOf(imported), outcomesOf(preview), policy);
      const ada = imported.body.rows[0].id;
      const journey = await admin.get(`/deals/deal/${d.dealId}/investor-data/${ada}`);
      if (amount === undefined) {
        assert.deepEqual(
          imported.body.rows.map((r: any) => r.outcome),
          ['refused', 'created', 'refused'],
        );
        assert.match(imported.body.rows[0].errors[0].detail, /also on data row 3/);
        assert.equal((await admin.get(`/investors/${ada}`)).status, 404);
      } else {
        assert.deepEqual(
          journey.body.journey.map((e: any) => e.data.committed_amount),
          [amount],
          policy,
        );
        assert.equal(imported.body.summary.placed, 2, policy);
      }
    }
  });

  test('options that do not fit are refused before any row is read', async () => {
    const d = await deal();
    const file = [HEADER, `Marie Curie;marie@example.eu;;1,00;EUR;;`].join('\n');
    expectProblem(await send({ columns: JSON.stringify(MAP), separator: 'pipe' }, file), 400);
    expectProblem(await send({ columns: JSON.stringify(MAP), numbers: '1 234,56' }, file), 400);
    const noDeal = await send({ columns: JSON.stringify(MAP) }, file);
    expectProblem(noDeal, 400);
    assert.match(noDeal.body.detail, /dealId/);
    expectProblem(await send(european(uniqueId('nodeal'), 'x'), file), 404);
    expectProblem(await send(european(d.dealId, `${d.dealId}.nostep`), file), 404);
    const notAField = await send(european(d.dealId, d.step('interest')), file);
    expectProblem(notAField, 400);
    assert.match(notAField.body.detail, /committed_amount/);
  });
});

const outcomesOf = (r: { body: { rows: any[] } }) => r.body.rows.map((row) => [row.row, row.outcome, row.placement ?? null, row.errors?.[0]?.detail ?? null]);
