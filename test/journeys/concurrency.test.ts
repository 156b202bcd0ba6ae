// Moves of one investor in one deal are serialized in the database (the journey row lock): under
// 50 concurrent jumps every event starts where the previous one ended, and every request either
// succeeded or got a 409. Needs real PostgreSQL: PGlite runs one query at a time.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { skipUnlessPostgres, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';

describe('concurrent moves of one investor', { skip: skipUnlessPostgres }, () => {
  const t = startApp({ env: { DATABASE_TIMEOUT_MS: '30000' } });
  const admin = t.admin;
  before(async () => {
    // The pool (10 connections) runs the moves side by side on real connections. The 50 requests
    // queue for them; a loaded CI machine must not turn that wait into 503s, hence the timeout.
  });

  // Each target with the data that satisfies its required fields, so a move is either allowed or a
  // conflict (same step, other branch), never a 422.
  const targets: [string, Record<string, string>][] = [
    ['interest', {}],
    ['commitment', { committed_amount: '100.00', currency: 'EUR' }],
    ['kyc', { kyc_ref: 'K' }],
    ['documents', { signed: 'yes' }],
    ['payment', {}],
    ['complete', {}],
    ['withdrawn', {}],
  ];

  test('50 concurrent jumps leave a chained journey; each request got 201 or 409', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const [name, data] = targets[i % targets.length]!;
        return admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step(name), data });
      }),
    );
    const statuses = responses.map((r) => r.status);
    assert.ok(
      statuses.every((s) => s === 201 || s === 409),
      `statuses: ${statuses.join(', ')}`,
    );
    const created = responses.filter((r) => r.status === 201).map((r) => r.body);
    assert.ok(created.length >= 2, `only ${created.length} moves succeeded`);

    const journey = (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey;
    assert.equal(journey.length, created.length, 'every 201 is one event, and nothing else was written');
    assert.equal(journey[0].fromStepId, null);
    for (let i = 1; i < journey.length; i++) assert.equal(journey[i].fromStepId, journey[i - 1].toStepId, `event ${i + 1} starts where ${i} ended`);
    const row = await t.database.db
      .selectFrom('journeys')
      .selectAll()
      .where('deal_id', '=', deal.dealId)
      .where('investor_user_id', '=', investor)
      .executeTakeFirstOrThrow();
    assert.equal(row.event_count, journey.length);
    assert.equal(row.current_step_id, journey.at(-1).toStepId);
  });

  test('50 concurrent first moves with expectedCurrentStepId null: exactly one wins', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
          investorUserId: investor,
          targetStepId: deal.step('interest'),
          data: {},
          expectedCurrentStepId: null,
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 1, `statuses: ${statuses.join(', ')}`);
    assert.equal(statuses.filter((s) => s === 409).length, 49);
    const journeys = await t.database.db.selectFrom('journeys').selectAll().where('deal_id', '=', deal.dealId).execute();
    assert.equal(journeys.length, 1);
  });
});
