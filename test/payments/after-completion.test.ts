// A payment for an investor who already completed (or withdrew) never moves them: the credit is
// queued for staff as `after-completion`, its money recorded, the investor left where they stand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { startApp } from '../support/app.ts';
import { payingDeal, postStatement } from '../support/payments.ts';

describe('a payment after completion', () => {
  const t = startApp();
  const api = t.admin;

  const csvOf = (ref: string, amount: string, bankRef: string) => `date,amount,currency,reference,bank_reference\n2026-11-24,${amount},EUR,${ref},${bankRef}\n`;

  it('a late full transfer and a second one: queued as after-completion, money recorded, the investor still complete', async () => {
    const deal = await payingDeal(api, { letters: ['A', 'B'] });
    const investor = deal.investors['A']!;
    // Staff completed the investor before the bank statement came.
    for (const [step, data] of [
      ['payment', { amount_received: '25000.00', received_on: '2026-11-01' }],
      ['complete', {}],
    ] as const) {
      const moved = await api.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step(step), data });
      assert.equal(moved.status, 201, JSON.stringify(moved.body));
    }
    const journeyBefore = (await api.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey;

    for (const [amount, bankRef] of [
      ['25000.00', `LATE-${deal.dealId}`],
      ['100.00', `SECOND-${deal.dealId}`],
    ] as const) {
      const response = await postStatement(t, csvOf(deal.refs['A']!, amount, bankRef), 'text/csv', '?bankReferenceColumn=bank_reference');
      assert.equal(response.status, 201, JSON.stringify(response.body));
      assert.deepEqual(response.body.outcomes, { 'after-completion': 1 });
      const [line] = (await api.get(`/payments/lines?statementId=${response.body.statement.id}`)).body.output;
      assert.deepEqual([line.outcome, line.status, line.investorUserId], ['after-completion', 'queued', investor]);
      assert.match(line.detail, /complete/);
    }
    const journeyAfter = (await api.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey;
    assert.deepEqual(journeyAfter, journeyBefore, 'the investor was not moved');
    assert.equal(journeyAfter.at(-1).toStepId, deal.step('complete'));
    // The money is on file for the investor.
    const { rows } = await sql<{ total: string }>`select coalesce(sum(amount), 0)::text as total from payment_allocations
      where deal_id = ${deal.dealId} and investor_user_id = ${investor}`.execute(t.database.db);
    assert.equal(Number(rows[0]!.total), 25100);
    // Staff see the lines in the queue, announced with their outcome.
    const queue = (await api.get(`/payments/lines?dealId=${deal.dealId}&status=queued&limit=100`)).body.output;
    assert.deepEqual(
      queue.map((l: any) => l.outcome),
      ['after-completion', 'after-completion'],
    );
    const { rows: feed } = await sql<{
      data: any;
    }>`select payload as data from outbox where deal_id = ${deal.dealId} and type = 'payment.queued' order by sequence`.execute(t.database.db);
    assert.deepEqual(
      feed.map((e) => e.data.outcome),
      ['after-completion', 'after-completion'],
    );

    // An investor who has not completed is still moved as before.
    const other = await postStatement(t, csvOf(deal.refs['B']!, '10000.00', `ON-TIME-${deal.dealId}`), 'text/csv', '?bankReferenceColumn=bank_reference');
    assert.deepEqual(other.body.outcomes, { matched: 1 });
  });

  it('a staff assignment of the line does not move the completed investor back either', async () => {
    const deal = await payingDeal(api, { letters: ['C'] });
    const investor = deal.investors['C']!;
    await api.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: investor,
      targetStepId: deal.step('payment'),
      data: { amount_received: '20000.00', received_on: '2026-11-01' },
    });
    await api.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step('complete'), data: {} });
    const response = await postStatement(t, csvOf(deal.refs['C']!, '20000.00', `STAFF-${deal.dealId}`), 'text/csv', '?bankReferenceColumn=bank_reference');
    const [line] = (await api.get(`/payments/lines?statementId=${response.body.statement.id}`)).body.output;
    const assigned = await api.post(`/payments/lines/${line.id}/assign`, { dealId: deal.dealId, investorUserId: investor });
    assert.ok(assigned.status < 500, JSON.stringify(assigned.body));
    const journey = (await api.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey;
    assert.equal(journey.at(-1).toStepId, deal.step('complete'));
  });
});
