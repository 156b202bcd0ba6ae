// The queue decided by name: GET /payments/lines proposes the likely investors of each queued
// credit with the reasons, names the investor and deal a line points at, and says in plain words
// why a matched line still waits; GET /payments/lines/{lineId}/candidates finds investors by name,
// e-mail or organisation.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { jump } from '../support/deals.ts';
import { investorBody, uniqueId } from '../support/fixtures.ts';
import { postStatement } from '../support/payments.ts';
import { commitmentStep } from '../support/workflows.ts';

describe('payment proposals', () => {
  const t = startApp();
  const api = t.admin;
  const dealId = uniqueId('deal');
  const s = (name: string) => `${dealId}.${name}`;
  const people: Record<string, { id: string; ref: string }> = {};
  const linesOf = async (statementId: string) => (await api.get(`/payments/lines?statementId=${statementId}&limit=100`)).body.output as any[];

  before(async () => {
    assert.equal((await api.put(`/deals/deal/${dealId}`, { name: 'Harbour Fund II', currency: 'EUR' })).status, 201);
    const workflow = await api.put(`/deals/deal/${dealId}/workflow`, {
      label: 'Harbour',
      description: 'pays by transfer',
      investorEngagementEnabled: false,
      steps: [
        commitmentStep(s('commitment')),
        {
          id: s('kyc'),
          label: 'KYC',
          type: 'default',
          stepFields: [
            { fieldKey: 'kyc_reference', required: true, label: 'KYC reference' },
            { fieldKey: 'agreement_signed_on', required: true, kind: 'date', label: 'Agreement signed on' },
          ],
        },
        {
          id: s('payment'),
          label: 'Funds received',
          type: 'default',
          requirements: [{ kind: 'previous-fields-complete' }],
          stepFields: [
            { fieldKey: 'amount_received', required: true, kind: 'amount' },
            { fieldKey: 'received_on', required: true, kind: 'date' },
          ],
        },
        { id: s('complete'), label: 'Complete', type: 'complete', stepFields: [] },
      ],
      links: [
        { fromStepId: s('commitment'), toStepId: s('kyc') },
        { fromStepId: s('kyc'), toStepId: s('payment') },
        { fromStepId: s('payment'), toStepId: s('complete') },
      ],
    });
    assert.equal(workflow.status, 201, JSON.stringify(workflow.body));
    const settings = await api.put(`/deals/deal/${dealId}/payment-settings`, {
      paymentStepId: s('payment'),
      amountFieldKey: 'amount_received',
      dateFieldKey: 'received_on',
    });
    assert.equal(settings.status, 201, JSON.stringify(settings.body));
    const add = async (key: string, forename: string, surname: string, amount: string, organisation: string | null = null, kyc = true) => {
      const id = uniqueId(`inv${key}`);
      const body = investorBody({ forename, surname });
      (body.contact.classifications as { organisation: string | null }[]) = [{ ...body.contact.classifications[0]!, organisation }];
      assert.equal((await api.put(`/investors/${id}`, body)).status, 201);
      await jump(api, dealId, id, s('commitment'), { committed_amount: amount, currency: 'EUR' });
      if (kyc) await jump(api, dealId, id, s('kyc'), { kyc_reference: `K-${key}`, agreement_signed_on: '2026-03-01' });
      people[key] = { id, ref: '' };
    };
    await add('ada', 'Ada', 'Lovelace', '25000.00');
    await add('grace', 'Grace', 'Hopper', '10000.00');
    await add('byron', 'Anne', 'Byron', '10000.00');
    await add('charles', 'Charles', 'Babbage', '9999.99', 'Difference Engines Ltd');
    await add('mary', 'Mary', 'Somerville', '5000.00', null, false);
    for (const r of (await api.get(`/deals/deal/${dealId}/all-payment-refernces`)).body) {
      const key = Object.keys(people).find((k) => people[k]!.id === r.investorUserId)!;
      people[key]!.ref = r.paymentReference;
    }
  });

  const swapped = (ref: string) => {
    // Two neighbouring different digits of the body swapped: the check digits fail, so it is no reference.
    const i = [...ref].findIndex((c, k) => k >= 6 && k + 1 < ref.length && c !== ref[k + 1]);
    return `${ref.slice(0, i)}${ref[i + 1]}${ref[i]}${ref.slice(i + 2)}`;
  };

  let lines: any[] = [];
  it('a statement: one line matched by reference, four queued', async () => {
    const csv = [
      'date,amount,currency,reference,counterparty,bank_reference',
      `2026-03-20,25000.00,EUR,${people['ada']!.ref},Ada Lovelace,B-1`,
      '2026-03-20,10000.00,EUR,thank you,GRACE M HOPPER,B-2',
      '2026-03-20,9999.99,EUR,subscription,Some Payer,B-3',
      '2026-03-20,120.00,EUR,fees,DIFFERENCE ENGINES LTD,B-4',
      `2026-03-20,3.00,EUR,${swapped(people['byron']!.ref)},,B-5`,
      `2026-03-20,5000.00,EUR,${people['mary']!.ref},Mary Somerville,B-6`,
    ].join('\n');
    const imported = await postStatement(t, csv, 'text/csv', '?counterpartyColumn=counterparty');
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    lines = await linesOf(imported.body.statement.id);
    assert.deepEqual(
      lines.map((l) => l.status),
      ['matched', 'queued', 'queued', 'queued', 'queued', 'queued'],
    );
  });

  const line = (amount: string) => lines.find((l) => l.amount === amount)!;
  const first = (amount: string) => line(amount).proposals?.[0];

  it('the payer whose name and amount match is proposed first, with the reasons', () => {
    const p = first('10000.00');
    assert.equal(p.investorUserId, people['grace']!.id);
    assert.equal(p.fullName, 'Grace Hopper');
    assert.equal(p.dealName, 'Harbour Fund II');
    assert.equal(p.stillOwed, '10000');
    assert.deepEqual(
      p.reasons.map((r: any) => r.kind),
      ['amount-owed', 'name'],
    );
    // Anne Byron owes the same amount: proposed after Grace, for the amount alone.
    assert.deepEqual(
      line('10000.00').proposals.map((x: any) => x.fullName),
      ['Grace Hopper', 'Anne Byron'],
    );
  });

  it('the amount alone, the company, and a mistyped reference each find their investor', () => {
    assert.equal(first('9999.99').investorUserId, people['charles']!.id);
    assert.deepEqual(
      first('9999.99').reasons.map((r: any) => r.kind),
      ['amount-owed'],
    );
    assert.equal(first('120.00').investorUserId, people['charles']!.id);
    assert.deepEqual(
      first('120.00').reasons.map((r: any) => r.kind),
      ['company'],
    );
    assert.equal(first('3.00').investorUserId, people['byron']!.id);
    assert.match(first('3.00').reasons[0].detail, /one character from theirs/);
  });

  it('a matched line names its investor and deal; one refused says why in plain words', () => {
    assert.equal(line('25000.00').investorName, 'Ada Lovelace');
    assert.equal(line('25000.00').dealName, 'Harbour Fund II');
    assert.equal(line('25000.00').advice, null);
    const mary = line('5000.00');
    assert.equal(mary.investorName, 'Mary Somerville');
    assert.equal(mary.proposals.length <= 3, true);
    assert.equal(mary.advice.summary, 'The investor was not moved: KYC reference and Agreement signed on are not filled in.');
    assert.equal(mary.advice.action, 'Fill KYC reference and Agreement signed on, then decide again.');
    assert.deepEqual(
      mary.advice.fields.map((f: any) => f.key),
      ['kyc_reference', 'agreement_signed_on'],
    );
  });

  it('candidates by name, e-mail or organisation, ranked by the same reasons', async () => {
    const id = line('10000.00').id;
    const mine = (output: any[]) => output.filter((c) => c.dealId === dealId).map((c) => c.fullName);
    assert.deepEqual(mine((await api.get(`/payments/lines/${id}/candidates?query=hopp`)).body.output), ['Grace Hopper']);
    assert.deepEqual(mine((await api.get(`/payments/lines/${id}/candidates?query=${encodeURIComponent('anne.byron@')}`)).body.output), ['Anne Byron']);
    assert.deepEqual(mine((await api.get(`/payments/lines/${id}/candidates?query=difference%20eng`)).body.output), ['Charles Babbage']);
    const proposals = (await api.get(`/payments/lines/${id}/candidates`)).body.output;
    assert.equal(proposals[0].investorUserId, people['grace']!.id);
    await expectProblem(await api.get(`/payments/lines/${id}/candidates?query=`), 400);
    await expectProblem(await api.get(`/payments/lines/00000000-0000-4000-8000-000000000000/candidates`), 404);
  });

  it('one click: the first proposal assigned, the line leaves the queue and the investor moves', async () => {
    const p = first('10000.00');
    const decided = await api.post(`/payments/lines/${line('10000.00').id}/assign`, { dealId: p.dealId, investorUserId: p.investorUserId });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    assert.equal(decided.body.status, 'matched');
    const journey = (await api.get(`/deals/deal/${dealId}/investor-data/${p.investorUserId}`)).body.journey;
    assert.equal(journey.at(-1).toStepId, s('payment'));
    // Decided lines propose nothing.
    const again = (await api.get(`/payments/lines/${line('10000.00').id}`)).body;
    assert.equal(again.proposals, undefined);
    assert.equal(again.investorName, 'Grace Hopper');
  });
});
