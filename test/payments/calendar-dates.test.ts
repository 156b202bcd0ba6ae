// Dates that match YYYY-MM-DD but are not on the calendar (2026-02-30, 2026-13-01) are refused
// with a 400 naming the line and the field, wherever they come in: camt.053 booking and value
// dates (Dt and DtTm), CSV statement columns, a move's date field (single and imported), and
// query parameters. Nothing of a refused statement is stored, and never a 500.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor } from '../support/deals.ts';
import { investorBody, subscriptionBody, uniqueAssetId, uniqueId } from '../support/fixtures.ts';
import { payingDeal, type PayingDeal, postStatement } from '../support/payments.ts';

const camt = (ref: string, booking: string, value = '<Dt>2026-11-23</Dt>') =>
  '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>' +
  '<GrpHdr><MsgId>M-DATES</MsgId></GrpHdr><Stmt><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>' +
  `<Ntry><Amt Ccy="EUR">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-23</Dt></BookgDt><ValDt><Dt>2026-11-23</Dt></ValDt><AcctSvcrRef>D-OK-${ref}</AcctSvcrRef>` +
  `<NtryDtls><TxDtls><RmtInf><Ustrd>${ref}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>` +
  `<Ntry><Amt Ccy="EUR">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt>${booking}</BookgDt><ValDt>${value}</ValDt><AcctSvcrRef>D-BAD-${ref}</AcctSvcrRef>` +
  `<NtryDtls><TxDtls><RmtInf><Ustrd>${ref}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>` +
  '</Stmt></BkToCstmrStmt></Document>';

describe('impossible dates', () => {
  const t = startApp();
  const api = t.admin;
  let deal: PayingDeal;
  before(async () => {
    deal = await payingDeal(api, { letters: ['A'] });
  });

  const dealLines = async () => (await api.get(`/payments/lines?dealId=${deal.dealId}&limit=100`)).body.output as unknown[];

  it('camt.053: an impossible BookgDt or ValDt (Dt or DtTm) is a 400 naming the entry and the element; nothing stored', async () => {
    const ref = deal.refs['A']!;
    const cases: [string, string | undefined, string][] = [
      ['<Dt>2026-02-30</Dt>', undefined, 'Stmt[1]/Ntry[2]/BookgDt'],
      ['<Dt>2026-13-01</Dt>', undefined, 'Stmt[1]/Ntry[2]/BookgDt'],
      ['<DtTm>2026-02-29T10:00:00</DtTm>', undefined, 'Stmt[1]/Ntry[2]/BookgDt'],
      ['<Dt>2026-11-23</Dt>', '<Dt>2026-04-31</Dt>', 'Stmt[1]/Ntry[2]/ValDt'],
      ['<Dt>2026-11-2</Dt>', undefined, 'Stmt[1]/Ntry[2]/BookgDt'],
    ];
    for (const [booking, value, field] of cases) {
      const problem = expectProblem(await postStatement(t, camt(ref, booking, value)), 400);
      assert.equal(problem.errors?.[0]?.field, field, booking);
      assert.match(problem.detail, /Ntry\[2\]/);
    }
    assert.deepEqual(await dealLines(), [], 'nothing of a refused statement is stored');
    // The same statement with real dates is taken.
    const taken = await postStatement(t, camt(ref, '<Dt>2024-02-29</Dt>'));
    assert.equal(taken.status, 201, JSON.stringify(taken.body));
  });

  it('CSV statement: an impossible date or value date is a 400 naming the row and the column; nothing stored', async () => {
    const fresh = await payingDeal(api, { letters: ['B'] });
    const ref = fresh.refs['B']!;
    const cases: [string, string, string][] = [
      ['2026-02-30', '', 'row 3.date'],
      ['2026-13-01', '', 'row 3.date'],
      ['2026-11-20', '2026-06-31', 'row 3.value_date'],
    ];
    for (const [date, valueDate, field] of cases) {
      const csv = `date,value_date,amount,currency,reference,bank_reference\n2026-11-20,,1.00,EUR,${ref},C-OK\n${date},${valueDate},1.00,EUR,${ref},C-BAD\n`;
      const problem = expectProblem(await postStatement(t, csv, 'text/csv', '?valueDateColumn=value_date'), 400);
      assert.equal(problem.errors?.[0]?.field, field, date);
      assert.match(problem.detail, /row 3/);
    }
    assert.deepEqual((await api.get(`/payments/lines?dealId=${fresh.dealId}&limit=100`)).body.output, []);
  });

  it("a move's date field, single and imported: an impossible date is refused, never a 500", async () => {
    const d = await createDeal(api);
    const investor = await d.addInvestor();
    const single = await api.post(`/deals/deal/${d.dealId}/jump-to-step`, {
      investorUserId: investor,
      targetStepId: d.step('payment'),
      data: { paid_on: '2026-02-30' },
    });
    const problem = expectProblem(single, 400);
    assert.equal(problem.errors?.[0]?.field, 'data.paid_on');
    const file = `investorUserId,targetStepId,paid_on\n${investor},${d.step('payment')},2026-13-01\n`;
    const imported = await t.app.inject({
      method: 'POST',
      url: `/deals/deal/${d.dealId}/jump-to-step/import`,
      payload: file,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/csv' },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const row = JSON.parse(imported.body).rows[0];
    assert.equal(row.outcome, 'refused');
    assert.equal(row.problem.status, 400);
    assert.equal(row.problem.errors[0].field, 'data.paid_on');
    assert.deepEqual((await api.get(`/deals/deal/${d.dealId}/investor-data/${investor}`)).body.journey, []);
  });

  it("an investor's date of birth and a subscription's dates: an impossible date is a 400 naming the field", async () => {
    const id = uniqueId('dob');
    const body = investorBody();
    body.contact.contact.dateOfBirth = '2026-02-30';
    const problem = expectProblem(await api.put(`/investors/${id}`, body), 400);
    assert.match(JSON.stringify(problem.errors), /dateOfBirth/);
    const line = JSON.stringify({ id, ...body });
    const imported = await t.app.inject({
      method: 'POST',
      url: '/investors/import',
      payload: line,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/x-ndjson' },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const [row] = JSON.parse(imported.body).rows;
    assert.equal(row.outcome, 'refused');
    assert.match(JSON.stringify(row.errors), /dateOfBirth/);
    const assetId = uniqueAssetId();
    await api.put(`/portfolio/assets/${assetId}`, { name: 'Dates', currency: 'EUR' });
    const investor = uniqueId('inv');
    await createInvestor(api, {}, investor);
    for (const field of ['invoice_date', 'settlement_date']) {
      const refused = expectProblem(
        await api.post('/portfolio/transactions/subscriptions', subscriptionBody(assetId, investor, { [field]: '2026-02-30' })),
        400,
      );
      assert.match(JSON.stringify(refused.errors ?? refused.detail), new RegExp(field));
    }
  });

  it('query parameters: an impossible day is a 400 naming the parameter', async () => {
    const d = await createDeal(api);
    for (const [param, value] of [
      ['enteredFrom', '2026-02-30'],
      ['enteredTo', '2026-13-01'],
    ] as const) {
      const problem = expectProblem(await api.get(`/deals/deal/${d.dealId}/funnel?${param}=${value}`), 400);
      assert.equal(problem.errors?.[0]?.field, param);
    }
    expectProblem(await api.get(`/deals/deal/${d.dealId}/funnel/daily?from=2026-02-29&to=2026-03-01`), 400);
  });
});
