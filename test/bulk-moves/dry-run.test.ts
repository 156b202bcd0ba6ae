// ?dryRun=true on jump-to-step and on the bulk route: nothing is written (every table's row count
// is unchanged), and the dry run predicts exactly what the real move then does, property-tested
// over random workflows, investors and moves.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { rowCounts, withoutRequestId } from '../support/row-counts.ts';

const commitment = { committed_amount: '25000.00', currency: 'EUR' };

describe('dry runs', () => {
  const t = startApp();
  const admin = t.admin;

  test('a dry run answers the would-be event and its intermediary steps, and writes nothing anywhere', async () => {
    const deal = await createDeal(admin);
    const [fresh, moved] = [await deal.addInvestor(), await deal.addInvestor()];
    await deal.move(moved, 'commitment', commitment);
    const before = await rowCounts(t);
    const url = `/deals/deal/${deal.dealId}/jump-to-step?dryRun=true`;
    const first = await admin.post(url, { investorUserId: fresh, targetStepId: deal.step('commitment'), data: commitment }, { 'idempotency-key': 'dry-1' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.event.fromStepId, null);
    assert.deepEqual(first.body.event.data, commitment);
    assert.deepEqual(first.body.intermediaryStepIds, [deal.step('interest')]);
    const forward = await admin.post(url, { investorUserId: moved, targetStepId: deal.step('documents'), data: { signed: 'yes', kyc_ref: 'K' } });
    assert.equal(forward.status, 200);
    assert.deepEqual(forward.body.intermediaryStepIds, [deal.step('kyc')]);
    const refused = expectProblem(await admin.post(url, { investorUserId: moved, targetStepId: deal.step('documents'), data: { kyc_ref: 'K' } }), 422);
    assert.deepEqual(refused.missingFields, ['signed']);
    expectProblem(await admin.post(url, { investorUserId: 'inv-nobody', targetStepId: deal.step('interest'), data: {} }), 404);
    const bulk = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk?dryRun=true`, {
      moves: [
        { investorUserId: fresh, targetStepId: deal.step('payment'), data: { ...commitment, kyc_ref: 'K', signed: 'yes' } },
        { investorUserId: moved, targetStepId: deal.step('commitment'), data: {} },
      ],
    });
    assert.equal(bulk.status, 200);
    assert.deepEqual(
      bulk.body.results.map((r: any) => r.status),
      [201, 409],
    );
    assert.deepEqual(bulk.body.results[0].intermediaryStepIds, [deal.step('interest'), deal.step('commitment'), deal.step('kyc'), deal.step('documents')]);
    const atomic = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk?dryRun=true`, {
      atomic: true,
      moves: [{ investorUserId: fresh, targetStepId: deal.step('commitment'), data: commitment }],
    });
    assert.equal(atomic.status, 200);
    expectProblem(
      await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk?dryRun=true`, {
        atomic: true,
        moves: [
          { investorUserId: fresh, targetStepId: deal.step('commitment'), data: commitment },
          { investorUserId: moved, targetStepId: deal.step('commitment'), data: {} },
        ],
      }),
      422,
    );
    assert.deepEqual(await rowCounts(t), before);
    // The key of the dry run was not recorded: a real move may use it.
    assert.equal(
      (
        await admin.post(
          `/deals/deal/${deal.dealId}/jump-to-step`,
          { investorUserId: fresh, targetStepId: deal.step('interest'), data: {} },
          { 'idempotency-key': 'dry-1' },
        )
      ).status,
      201,
    );
  });

  test('property: the dry run predicts exactly what the real move then does', async () => {
    const stepsArb = fc.integer({ min: 2, max: 5 }).chain((n) =>
      fc.record({
        links: fc.array(fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: n - 1 })), { maxLength: 8 }),
        steps: fc.array(
          fc.record({
            fields: fc.array(fc.record({ required: fc.boolean(), amount: fc.boolean() }), { maxLength: 2 }),
            kyc: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
            previousComplete: fc.boolean(),
          }),
          { minLength: n, maxLength: n },
        ),
      }),
    );
    const moveArb = fc.record({
      target: fc.integer({ min: 0, max: 5 }), // 5 and beyond the workflow: an unknown step
      fields: fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 1 }), fc.constantFrom('100.00', 'abc', '')), { maxLength: 3 }),
      expect: fc.option(fc.integer({ min: -1, max: 4 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(stepsArb, fc.integer({ min: 0, max: 3 }), fc.array(moveArb, { minLength: 1, maxLength: 5 }), async (shape, kyc, moves) => {
        const dealId = uniqueId('prop');
        const id = (i: number) => `${dealId}.s${i}`;
        const key = (i: number, k: number) => `f${i}_${k}`;
        assert.equal((await admin.put(`/deals/deal/${dealId}`, { name: 'Property', currency: 'EUR' })).status, 201);
        const workflow = {
          label: 'Random',
          description: 'random workflow',
          investorEngagementEnabled: false,
          steps: shape.steps.map((s, i) => ({
            id: id(i),
            label: `S${i}`,
            type: 'default',
            stepFields: s.fields.map((f, k) => ({ fieldKey: key(i, k), required: f.required, ...(f.amount ? { kind: 'amount' } : {}) })),
            requirements: [
              ...(s.kyc ? [{ kind: 'kyc-level', minimumLevel: s.kyc }] : []),
              ...(s.previousComplete ? [{ kind: 'previous-fields-complete' }] : []),
            ],
          })),
          // Only forward links (lower to higher index): always a DAG.
          links: [...new Set(shape.links.filter(([a, b]) => a < b).map(([a, b]) => `${a}>${b}`))].map((l) => {
            const [a, b] = l.split('>').map(Number);
            return { fromStepId: id(a!), toStepId: id(b!) };
          }),
        };
        const set = await admin.put(`/deals/deal/${dealId}/workflow`, workflow);
        assert.equal(set.status, 201, JSON.stringify(set.body));
        const investor = uniqueId('inv');
        await createInvestor(admin, { kycCheckLevel: kyc }, investor);
        for (const move of moves) {
          const body = {
            investorUserId: investor,
            targetStepId: id(move.target),
            data: Object.fromEntries(move.fields.map(([i, k, v]) => [key(i, k), v])),
            ...(move.expect === undefined ? {} : { expectedCurrentStepId: move.expect < 0 ? null : id(move.expect) }),
          };
          const dry = await admin.post(`/deals/deal/${dealId}/jump-to-step?dryRun=true`, body);
          const real = await admin.post(`/deals/deal/${dealId}/jump-to-step`, body);
          if (dry.status === 200) {
            assert.equal(real.status, 201, `dry run allowed, real move got ${real.status} ${real.text}`);
            const { id: _a, createdAt: _b, ...predicted } = dry.body.event;
            const { id: _c, createdAt: _d, ...actual } = real.body;
            assert.deepEqual(actual, predicted);
          } else {
            assert.equal(real.status, dry.status, `dry run said ${dry.status}, real move got ${real.status}`);
            assert.deepEqual(withoutRequestId(real.body), withoutRequestId(dry.body));
          }
        }
      }),
      { numRuns: 30 },
    );
  });
});
