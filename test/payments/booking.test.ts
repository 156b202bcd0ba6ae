// Booking on completion: exact units, refusal to round, at most once per journey.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skipUnlessPostgres, startApp } from '../support/app.ts';
import { payingDeal, postStatement } from '../support/payments.ts';

describe('booking on completion', () => {
  const t = startApp();
  const api = t.admin;

  const pay = async (deal: Awaited<ReturnType<typeof payingDeal>>, letter: string, amount: string, bankRef: string) => {
    const csv = `date,amount,currency,reference,bank_reference\n2026-11-20,${amount},EUR,${deal.refs[letter]},${bankRef}\n`;
    const response = await postStatement(t, csv, 'text/csv', '?bankReferenceColumn=bank_reference');
    assert.equal(response.status, 201, JSON.stringify(response.body));
  };
  const complete = (deal: Awaited<ReturnType<typeof payingDeal>>, letter: string, target = deal.step('complete')) =>
    api.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: deal.investors[letter], targetStepId: target, data: {} });

  it('books units = committed / price exactly, in the move, once per journey', async () => {
    const deal = await payingDeal(api, { letters: ['A'], pricePerUnit: '12.5' });
    await pay(deal, 'A', '25000.00', `BOOK-${deal.dealId}`);
    const done = await complete(deal, 'A');
    assert.equal(done.status, 201, JSON.stringify(done.body));
    const found = (await api.get(`/portfolio/transactions/subscriptions?source=dealflow&source_id=${deal.dealId}/${deal.investors['A']}`)).body.output;
    assert.equal(found.length, 1);
    const [s] = found;
    assert.deepEqual(
      [s.asset_id, s.investor_id, s.units, s.price_per_unit, s.total, s.fee, s.funding_source, s.source],
      [deal.assetId, deal.investors['A'], 2000, 12.5, 25000, 0, 'bank_transfer', 'dealflow'],
    );
    assert.equal(s.invoice_date, done.body.createdAt.slice(0, 10));
    assert.match(s.description, /payment value date 2026-11-20/);
    // Back and forward again: nothing new.
    const back = await api.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: deal.investors['A'],
      targetStepId: deal.step('payment'),
      data: { amount_received: '25000.00', received_on: '2026-11-20' },
    });
    assert.equal(back.status, 201, JSON.stringify(back.body));
    assert.equal((await complete(deal, 'A')).status, 201);
    assert.equal(
      (await api.get(`/portfolio/transactions/subscriptions?source=dealflow&source_id=${deal.dealId}/${deal.investors['A']}`)).body.output.length,
      1,
    );
    const bookings = (await api.get(`/payments/bookings?dealId=${deal.dealId}`)).body.output;
    assert.deepEqual(
      bookings.map((b: any) => [b.status, b.subscriptionId]),
      [['booked', s.id]],
    );
  });

  it('refuses to round: the booking is queued for staff, the move still happens', async () => {
    const deal = await payingDeal(api, { letters: ['A'], pricePerUnit: '3' });
    await pay(deal, 'A', '25000.00', `ROUND-${deal.dealId}`);
    assert.equal((await complete(deal, 'A')).status, 201);
    const bookings = (await api.get(`/payments/bookings?dealId=${deal.dealId}&status=queued`)).body.output;
    assert.equal(bookings.length, 1);
    assert.match(bookings[0].reason, /refused rather than rounded/);
    assert.equal(
      (await api.get(`/portfolio/transactions/subscriptions?source=dealflow&source_id=${deal.dealId}/${deal.investors['A']}`)).body.output.length,
      0,
    );
  });

  it('books to the decimals the deal allows', async () => {
    const deal = await payingDeal(api, { letters: ['A'], pricePerUnit: '3', unitDecimals: 0 });
    const decimals = await payingDeal(api, { letters: ['A'], pricePerUnit: '8', unitDecimals: 3 });
    await pay(decimals, 'A', '25000.00', `DEC-${decimals.dealId}`);
    assert.equal((await complete(decimals, 'A')).status, 201);
    const [s] = (await api.get(`/portfolio/transactions/subscriptions?source=dealflow&source_id=${decimals.dealId}/${decimals.investors['A']}`)).body.output;
    assert.equal(s.units, 3125);
    assert.ok(deal);
  });

  it('concurrent imports of one statement book each line once', { skip: skipUnlessPostgres }, async () => {
    const deal = await payingDeal(api, { letters: ['A', 'B', 'C'] });
    const csv =
      'date,amount,currency,reference,bank_reference\n' +
      ['A', 'B', 'C'].map((l, i) => `2026-11-20,${['25000.00', '10000.00', '20000.00'][i]},EUR,${deal.refs[l]},CONC-${deal.dealId}-${l}`).join('\n') +
      '\n';
    const variants = Array.from({ length: 6 }, (_, i) => csv + (i % 2 ? '' : '\n'.repeat(i + 1)));
    const results = await Promise.all(variants.map((v) => postStatement(t, v, 'text/csv', '?bankReferenceColumn=bank_reference')));
    assert.ok(
      results.every((r) => r.status === 201 || r.status === 200),
      JSON.stringify(results.map((r) => r.body)),
    );
    const lines = (await api.get(`/payments/lines?dealId=${deal.dealId}&limit=100`)).body.output;
    assert.equal(lines.length, 3);
    assert.ok(lines.every((l: any) => l.status === 'matched'));
    for (const l of ['A', 'B', 'C']) {
      const journey = (await api.get(`/deals/deal/${deal.dealId}/investor-data/${deal.investors[l]}`)).body.journey;
      assert.equal(journey.filter((e: any) => e.toStepId === deal.step('payment')).length, 1);
    }
  });
});
