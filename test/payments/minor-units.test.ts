// Amounts carry at most their currency's ISO 4217 minor units (EUR 2, JPY 0, BHD 3) wherever an
// amount meets a currency: a move's amount fields (single and imported), statement lines (camt and
// CSV), and a subscription's total and fee. Refusals name the field; nothing is stored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor, importMoves } from '../support/deals.ts';
import { subscriptionBody, uniqueAssetId, uniqueId } from '../support/fixtures.ts';
import { payingDeal, postStatement } from '../support/payments.ts';

const camt = (amount: string, currency: string, ref: string) =>
  '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>' +
  `<GrpHdr><MsgId>M-UNITS-${ref}</MsgId></GrpHdr><Stmt><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>` +
  `<Ntry><Amt Ccy="${currency}">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-23</Dt></BookgDt><AcctSvcrRef>U-${ref}-${amount}</AcctSvcrRef>` +
  `<NtryDtls><TxDtls><RmtInf><Ustrd>${ref}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>`;

describe('minor units of a currency', () => {
  const t = startApp();
  const api = t.admin;

  it('a move: committed_amount "0.001" in EUR or "100.5" in JPY is a 400 naming the field; "1.234" in BHD is taken', async () => {
    const deal = await createDeal(api);
    const investor = await deal.addInvestor();
    const move = (data: Record<string, string>) =>
      api.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step('commitment'), data });
    for (const [amount, currency] of [
      ['0.001', 'EUR'],
      ['25000.005', 'USD'],
      ['100.5', 'JPY'],
      ['1.2345', 'KWD'],
    ]) {
      const problem = expectProblem(await move({ committed_amount: amount!, currency: currency! }), 400);
      assert.deepEqual(
        problem.errors?.map((e) => e.field),
        ['data.committed_amount'],
        `${amount} ${currency}`,
      );
    }
    assert.deepEqual((await api.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey, []);
    assert.equal((await move({ committed_amount: '1.234', currency: 'BHD' })).status, 201);
    // The currency captured earlier holds for a later move's amount.
    const back = await api.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step('interest'), data: {} });
    assert.equal(back.status, 201, JSON.stringify(back.body));
    const later = expectProblem(await move({ committed_amount: '1.2345' }), 400);
    assert.equal(later.errors?.[0]?.field, 'data.committed_amount');
    // An edit of the event is held to its currency too.
    const [commitment] = (await api.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey;
    const edit = expectProblem(await api.post(`/deals/event/${commitment.id}/edit`, { committed_amount: '1.2345', currency: 'BHD' }), 400);
    assert.deepEqual(
      edit.errors?.map((e) => e.field),
      ['committed_amount'],
    );
    expectProblem(await api.post(`/deals/event/${commitment.id}/edit`, { committed_amount: '1.50', currency: 'JPY' }), 400);
    assert.equal((await api.post(`/deals/event/${commitment.id}/edit`, { committed_amount: '2.500', currency: 'BHD' })).status, 200);
  });

  it('a moves import: the row with too many decimals is refused, the others made', async () => {
    const deal = await createDeal(api);
    const [a, b] = [await deal.addInvestor(), await deal.addInvestor()];
    const file = `investorUserId,targetStepId,committed_amount,currency\n${a},${deal.step('commitment')},0.001,EUR\n${b},${deal.step('commitment')},100.00,EUR\n`;
    const response = await importMoves(t, deal.dealId, file);
    assert.equal(response.statusCode, 200, response.body);
    const rows = JSON.parse(response.body).rows;
    assert.deepEqual(
      rows.map((r: any) => [r.outcome, r.problem?.errors?.[0]?.field]),
      [
        ['refused', 'data.committed_amount'],
        ['created', undefined],
      ],
    );
  });

  it("a move whose steps capture no currency: the deal's currency applies, to the move and to an edit", async () => {
    for (const [currency, tooFine, fits] of [
      ['EUR', '0.001', '0.01'],
      ['JPY', '100.5', '100'],
    ] as const) {
      const dealId = uniqueId('deal');
      assert.equal((await api.put(`/deals/deal/${dealId}`, { name: `Units ${dealId}`, currency })).status, 201);
      const s = (name: string) => `${dealId}.${name}`;
      const workflow = {
        label: 'No currency field',
        description: "amounts in the deal's currency",
        investorEngagementEnabled: false,
        steps: [
          { id: s('interest'), label: 'Interest', type: 'default', stepFields: [] },
          { id: s('commitment'), label: 'Commitment', type: 'default', stepFields: [{ fieldKey: 'committed_amount', required: true, kind: 'amount' }] },
        ],
        links: [{ fromStepId: s('interest'), toStepId: s('commitment') }],
      };
      assert.equal((await api.put(`/deals/deal/${dealId}/workflow`, workflow)).status, 201);
      const { id: investor } = await createInvestor(api);
      const move = (amount: string) =>
        api.post(`/deals/deal/${dealId}/jump-to-step`, { investorUserId: investor, targetStepId: s('commitment'), data: { committed_amount: amount } });
      const problem = expectProblem(await move(tooFine), 400);
      assert.deepEqual(
        problem.errors?.map((e) => e.field),
        ['data.committed_amount'],
        `${tooFine} in a ${currency} deal`,
      );
      assert.match(problem.errors![0]!.detail, new RegExp(currency));
      assert.deepEqual((await api.get(`/deals/deal/${dealId}/investor-data/${investor}`)).body.journey, []);
      const moved = await move(fits);
      assert.equal(moved.status, 201, JSON.stringify(moved.body));
      expectProblem(await api.post(`/deals/event/${moved.body.id}/edit`, { committed_amount: tooFine }), 400);
    }
  });

  it('a statement line: 0.001 EUR (camt or CSV) or 5.5 JPY is a 400 naming the line and the amount; nothing stored', async () => {
    const deal = await payingDeal(api, { letters: ['A'] });
    const ref = deal.refs['A']!;
    for (const [amount, currency] of [
      ['0.001', 'EUR'],
      ['5.5', 'JPY'],
    ] as const) {
      const problem = expectProblem(await postStatement(t, camt(amount, currency, ref)), 400);
      assert.equal(problem.errors?.[0]?.field, 'Stmt[1]/Ntry[1]/Amt');
    }
    const csv = `date,amount,currency,reference\n2026-11-20,1.00,EUR,${ref}\n2026-11-20,"0,001",EUR,${ref}\n`;
    const problem = expectProblem(await postStatement(t, csv, 'text/csv', '?delimiter=comma&decimalSeparator=comma'), 400);
    assert.equal(problem.errors?.[0]?.field, 'row 3.amount');
    assert.deepEqual((await api.get(`/payments/lines?dealId=${deal.dealId}&limit=100`)).body.output, []);
    // Three decimals of BHD are a line (queued: the commitment is in EUR).
    const bhd = await postStatement(t, camt('1.250', 'BHD', ref));
    assert.equal(bhd.status, 201, JSON.stringify(bhd.body));
  });

  it("a subscription: total or fee finer than the asset's currency is a 422 naming the field; nothing booked", async () => {
    const investor = uniqueId('inv');
    await createInvestor(api, {}, investor);
    const asset = async (currency: string) => {
      const id = uniqueAssetId();
      assert.equal((await api.put(`/portfolio/assets/${id}`, { name: `In ${currency}`, currency })).status < 300, true);
      return id;
    };
    const [eur, jpy, bhd] = [await asset('EUR'), await asset('JPY'), await asset('BHD')];
    const cases: [number, Record<string, unknown>, string[]][] = [
      [eur, { units: 1, price_per_unit: 100.001, total: 100.001, fee: 0 }, ['total']],
      [eur, { fee: 0.125 }, ['fee']],
      [jpy, { units: 10, price_per_unit: 100.5, total: 1005, fee: 0.5 }, ['fee']],
      [jpy, { units: 1, price_per_unit: 100.5, total: 100.5, fee: 1.5 }, ['total', 'fee']],
    ];
    for (const [assetId, over, fields] of cases) {
      const body = subscriptionBody(assetId, investor, over);
      const plain = expectProblem(await api.post('/portfolio/transactions/subscriptions', body), 422);
      assert.deepEqual(
        (plain.errors as any[]).map((e) => e.field),
        fields,
        JSON.stringify(over),
      );
      const keyed = await t.app.inject({
        method: 'POST',
        url: '/portfolio/transactions/subscriptions',
        payload: body,
        headers: { authorization: `Bearer ${t.adminToken}`, 'idempotency-key': uniqueId('key') },
      });
      assert.equal(keyed.statusCode, 422, keyed.body);
    }
    const booked = (await api.get(`/portfolio/transactions/subscriptions?investor_id=${investor}`)).body;
    assert.equal((booked.output ?? booked).length, 0, 'nothing booked');
    assert.equal(
      (await api.post('/portfolio/transactions/subscriptions', subscriptionBody(jpy, investor, { units: 10, price_per_unit: 100, total: 1000, fee: 12 })))
        .status,
      201,
    );
    assert.equal(
      (await api.post('/portfolio/transactions/subscriptions', subscriptionBody(bhd, investor, { units: 1, price_per_unit: 1.234, total: 1.234, fee: 0.005 })))
        .status,
      201,
    );
  });
});
