// POST /deals/deal/{dealId}/jump-to-step/bulk: per-move outcomes, atomic batches, idempotent
// replay, one feed entry per applied move, and overlapping batches on PostgreSQL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, skipUnlessPostgres, startApp } from '../support/app.ts';
import { feedCaughtUp } from '../support/webhooks.ts';
import { createDeal } from '../support/deals.ts';
import { withoutRequestId } from '../support/row-counts.ts';

const commitment = { committed_amount: '25000.00', currency: 'EUR' };

describe('bulk moves', () => {
  const t = startApp({ env: { DATABASE_TIMEOUT_MS: '30000' } });
  const admin = t.admin;

  test('mixed outcomes are reported per move, in request order, with the problem a single move gets', async () => {
    const deal = await createDeal(admin);
    const [ok, atInterest, lacking, lowKyc] = [
      await deal.addInvestor(),
      await deal.addInvestor(),
      await deal.addInvestor(),
      await deal.addInvestor({ kycCheckLevel: 1 }),
    ];
    await deal.move(atInterest, 'interest');
    await deal.move(lowKyc, 'commitment', commitment);
    const moves = [
      { investorUserId: ok, targetStepId: deal.step('commitment'), data: commitment },
      { investorUserId: 'inv-nobody', targetStepId: deal.step('commitment'), data: commitment },
      { investorUserId: atInterest, targetStepId: deal.step('interest'), data: {} },
      { investorUserId: lacking, targetStepId: deal.step('commitment'), data: { currency: 'EUR' } },
      { investorUserId: lowKyc, targetStepId: deal.step('kyc'), data: { kyc_ref: 'K-1' } },
    ];
    const response = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const results = response.body.results;
    assert.deepEqual(
      results.map((r: any) => r.status),
      [201, 404, 409, 422, 422],
    );
    assert.equal(results[0].event.toStepId, deal.step('commitment'));
    assert.equal(results[0].event.fromStepId, null);
    assert.deepEqual(results[3].problem.missingFields, ['committed_amount']);
    // The refused moves, sent one by one, get the same problem documents.
    for (const index of [1, 2, 3, 4]) {
      const single = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, moves[index]);
      assert.deepEqual(results[index].problem, withoutRequestId(expectProblem(single, results[index].status)));
    }
    // The applied move is in the journey and in the feed; the refused first moves left nothing.
    const journey = await admin.get(`/deals/deal/${deal.dealId}/investor-data/${ok}`);
    assert.deepEqual(journey.body.journey, [results[0].event]);
    assert.deepEqual((await admin.get(`/deals/deal/${deal.dealId}/investor-data/${lacking}`)).body.journey, []);
    const refs = (await admin.get(`/deals/deal/${deal.dealId}/all-payment-refernces`)).body.map((r: any) => r.investorUserId).sort();
    assert.deepEqual(refs, [ok, atInterest, lowKyc].sort());
  });

  test('each applied move puts one step-entered entry in the feed', async () => {
    const deal = await createDeal(admin);
    const investors = await Promise.all(Array.from({ length: 5 }, () => deal.addInvestor()));
    const moves = investors.map((investorUserId) => ({ investorUserId, targetStepId: deal.step('commitment'), data: commitment }));
    moves.push({ investorUserId: 'inv-nobody', targetStepId: deal.step('commitment'), data: commitment });
    const response = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves });
    assert.equal(response.status, 200);
    await feedCaughtUp(t.database.db);
    const feed = await admin.get(`/deals/deal/${deal.dealId}/events?limit=100`);
    const entered = feed.body.output.filter((e: any) => e.type === 'journey.step-entered');
    assert.deepEqual(entered.map((e: any) => e.data.investorUserId).sort(), [...investors].sort());
  });

  test('an atomic batch applies nothing when one move is refused, and reports the first refusal', async () => {
    const deal = await createDeal(admin);
    const [a, b, c] = [await deal.addInvestor(), await deal.addInvestor(), await deal.addInvestor()];
    const moves = [
      { investorUserId: a, targetStepId: deal.step('commitment'), data: commitment },
      { investorUserId: b, targetStepId: deal.step('commitment'), data: {} },
      { investorUserId: c, targetStepId: deal.step('nowhere'), data: {} },
    ];
    const refused = expectProblem(await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves, atomic: true }), 422);
    assert.equal(refused.moveIndex, 1);
    assert.equal(refused.investorUserId, b);
    assert.equal((refused.refusal as any).status, 422);
    assert.deepEqual((refused.refusal as any).missingFields, ['committed_amount', 'currency']);
    for (const investor of [a, b, c]) assert.deepEqual((await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey, []);
    assert.deepEqual((await admin.get(`/deals/deal/${deal.dealId}/events`)).body.output, []);

    const applied = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves: moves.slice(0, 1), atomic: true });
    assert.equal(applied.status, 200);
    assert.equal(applied.body.results[0].status, 201);
  });

  test('one Idempotency-Key covers the batch: a replay returns the first answer and moves nobody again', async () => {
    const deal = await createDeal(admin);
    const investors = await Promise.all(Array.from({ length: 3 }, () => deal.addInvestor()));
    const body = { moves: investors.map((investorUserId) => ({ investorUserId, targetStepId: deal.step('commitment'), data: commitment })) };
    const headers = { 'idempotency-key': `bulk-${deal.dealId}` };
    const first = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, body, headers);
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.results.map((r: any) => r.status),
      [201, 201, 201],
    );
    const replay = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, body, headers);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.text, first.text);
    for (const investor of investors) assert.equal((await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey.length, 1);
    expectProblem(await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves: body.moves.slice(1) }, headers), 422);
    // Atomic batches replay too.
    const atomicHeaders = { 'idempotency-key': `bulk-atomic-${deal.dealId}` };
    const back = { moves: investors.map((investorUserId) => ({ investorUserId, targetStepId: deal.step('interest'), data: {} })), atomic: true };
    const once = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, back, atomicHeaders);
    assert.equal(once.status, 200);
    assert.equal((await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, back, atomicHeaders)).text, once.text);
  });

  test('duplicates, empty and oversized batches are 400s that change nothing', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const move = { investorUserId: investor, targetStepId: deal.step('interest'), data: {} };
    const duplicate = expectProblem(await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves: [move, move] }), 400);
    assert.match(duplicate.detail, new RegExp(investor));
    assert.deepEqual(
      duplicate.errors!.map((e) => e.field),
      ['moves.0.investorUserId', 'moves.1.investorUserId'],
    );
    expectProblem(await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves: [] }), 400);
    const many = Array.from({ length: 1001 }, (_, i) => ({ ...move, investorUserId: `inv-${i}` }));
    expectProblem(await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves: many }), 400);
    expectProblem(await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves: [{ ...move, extra: 1 }] }), 400);
    assert.deepEqual((await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey, []);
  });

  test('an investor token may not move anyone in bulk', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const own = client(t.app, await t.investorToken(investor));
    expectProblem(
      await own.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves: [{ investorUserId: investor, targetStepId: deal.step('interest'), data: {} }] }),
      403,
    );
  });
});

describe('overlapping bulk moves', { skip: skipUnlessPostgres }, () => {
  const t = startApp({ env: { DATABASE_TIMEOUT_MS: '30000' } });
  const admin = t.admin;

  test('two batches over the same investors never fork a journey', async () => {
    const deal = await createDeal(admin);
    const investors = await Promise.all(Array.from({ length: 40 }, () => deal.addInvestor()));
    const batch = (step: string, data: Record<string, string>, atomic: boolean, reversed: boolean) => {
      const moves = investors.map((investorUserId) => ({ investorUserId, targetStepId: deal.step(step), data }));
      return admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves: reversed ? moves.reverse() : moves, atomic });
    };
    const responses = await Promise.all([
      batch('commitment', commitment, false, false),
      batch('interest', {}, false, true),
      batch('withdrawn', {}, false, false),
      batch('commitment', commitment, true, true),
    ]);
    for (const r of responses) assert.ok(r.status === 200 || r.status === 409 || r.status === 422, `${r.status} ${r.text}`);
    for (const investor of investors) {
      const journey = (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey;
      assert.ok(journey.length >= 1);
      assert.equal(journey[0].fromStepId, null);
      for (let i = 1; i < journey.length; i++) assert.equal(journey[i].fromStepId, journey[i - 1].toStepId, 'each move starts where the previous ended');
    }
  });
});
