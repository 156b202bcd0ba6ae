// The funnel filtered by entry into the deal (enteredFrom / enteredTo), read from the sums kept per
// cohort (migration 0020): the cohort keys of a range, and a property: after random moves over
// weeks, edits of captured amounts and pending requests to edit them, changes of investors' classes and upkeeps of any size, the
// kept figures of random entry ranges (with and without a class) equal a recount from the stays,
// and a rebuild from the events changes none of them: it writes the rows the upkeep writes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { catchUpFunnel } from '../../src/operations/funnel.ts';
import { cohortKeys, type FunnelFilter, type FunnelRows, readFunnel, recountFunnel } from '../../src/store/funnel.ts';
import { applyPendingFunnel, rebuildFunnel } from '../../src/store/funnel-upkeep.ts';
import { startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { investorBody } from '../support/fixtures.ts';
import { applyDealByUpkeep, keptFunnel } from '../support/funnel.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T08:00:00.000Z');
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY;

/** The rows in one order, so that two reads compare whatever order the database gave them in. */
function sorted(rows: FunnelRows): FunnelRows {
  const by =
    <T>(key: (x: T) => string) =>
    (a: T, b: T) =>
      key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  return {
    steps: [...rows.steps].sort(by((s) => s.stepId)),
    transitions: [...rows.transitions].sort(by((t) => `${t.fromStepId} ${t.toStepId}`)),
    money: [...rows.money].sort(by((m) => `${m.stepId} ${m.currency}`)),
    pending: [...rows.pending].sort(by((p) => p.stepId)),
  };
}

describe('funnel by entry day', () => {
  const t = startApp({ clock: () => new Date(now) });
  const admin = t.admin;
  let now = T0;

  test('the cohort keys of a range cover each of its days once, each block aligned, at most 7 days and 7 blocks of 8 at each end', () => {
    fc.assert(
      fc.property(fc.integer({ min: -800, max: 2000 }), fc.integer({ min: 0, max: 1500 }), (start, length) => {
        const from = dayOf(T0 + start * DAY);
        const to = dayOf(T0 + (start + length) * DAY);
        const keys = cohortKeys(from, to);
        let next = dayNumber(from);
        for (const { span, firstDay } of keys) {
          assert.ok([1, 8, 64].includes(span));
          assert.equal(dayNumber(firstDay), next, 'contiguous');
          assert.equal(((next % span) + span) % span, 0, `aligned on ${span}`);
          next += span;
        }
        assert.equal(next, dayNumber(to) + 1, 'ends on the last day');
        assert.ok(keys.filter((k) => k.span < 64).length <= 28);
      }),
      { numRuns: 300 },
    );
  });

  test('property: after random moves over weeks, edits, changes of classes and partial upkeeps, the kept figures of random entry ranges (with and without a class) equal a recount from the stays, and a rebuild changes none', async () => {
    const names = ['interest', 'commitment', 'kyc', 'documents', 'payment', 'complete', 'withdrawn'];
    const data: Record<string, Record<string, string>> = {
      commitment: { committed_amount: '100.25', currency: 'EUR' },
      kyc: { kyc_ref: 'K' },
      documents: { signed: 'yes' },
    };
    const classSets = [[], ['professional'], ['sophisticated'], ['professional', 'sophisticated']];
    let moved = 0;
    let edited = 0;
    let requested = 0;
    let reclassified = 0;
    let nonEmpty = 0;
    const range = fc.record({
      from: fc.option(fc.integer({ min: -3, max: 120 }), { nil: undefined }),
      length: fc.integer({ min: 0, max: 100 }),
      to: fc.boolean(),
      classification: fc.option(fc.constantFrom('professional', 'sophisticated', 'retail'), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            investor: fc.nat(7),
            // A move after some minutes or days (so that entries fall on days and blocks of 8 and 64
            // days apart, or a few minutes apart within one 1% bucket of duration), an edit of the investor's latest commitment (or a request to edit it, which
            // stays pending), or a change of their classes.
            change: fc.oneof(
              {
                weight: 4,
                arbitrary: fc.record({
                  step: fc.nat(names.length - 1),
                  minutes: fc.oneof(fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 1, max: 30 * 1440 }), fc.integer({ min: 600, max: 604 })),
                }),
              },
              { weight: 1, arbitrary: fc.record({ amount: fc.integer({ min: 1, max: 99_999 }), usd: fc.boolean(), request: fc.boolean() }) },
              { weight: 1, arbitrary: fc.record({ classes: fc.nat(classSets.length - 1) }) },
            ),
            upkeep: fc.constantFrom('none', 'one', 'all'),
          }),
          { minLength: 10, maxLength: 30 },
        ),
        fc.array(range, { minLength: 3, maxLength: 6 }),
        async (actions, ranges) => {
          const deal = await createDeal(admin);
          const investors: string[] = [];
          for (let i = 0; i < 8; i++) investors.push(await deal.addInvestor({ classes: [i % 2 ? 'professional' : 'sophisticated'] }));
          const commitments = new Map<string, string>();
          now = T0;
          for (const { investor, change, upkeep } of actions) {
            const id = investors[investor]!;
            if ('classes' in change) {
              const put = await admin.put(`/investors/${id}`, investorBody({ classes: classSets[change.classes] }));
              assert.equal(put.status, 200, JSON.stringify(put.body));
              reclassified += 1;
            } else if ('amount' in change) {
              const eventId = commitments.get(id);
              if (eventId !== undefined && change.request) {
                const newData = { committed_amount: `${change.amount}.50` };
                const response = await admin.post('/deals/request-to-edit', { workflowEventId: eventId, type: 'Investment Amount', reason: 'more', newData });
                if (response.status === 201) requested += 1;
              } else if (eventId !== undefined) {
                const body = { committed_amount: `${change.amount}.50`, currency: change.usd ? 'USD' : 'EUR' };
                const response = await admin.post(`/deals/event/${eventId}/edit`, body);
                assert.equal(response.status, 200, JSON.stringify(response.body));
                edited += 1;
              }
            } else {
              now += change.minutes * 60_000;
              const name = names[change.step]!;
              const response = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
                investorUserId: id,
                targetStepId: deal.step(name),
                data: data[name] ?? {},
              });
              if (response.status === 201) {
                moved += 1;
                if (name === 'commitment') commitments.set(id, response.body.id);
              }
            }
            if (upkeep === 'one') await applyPendingFunnel(t.database.db, 1);
            if (upkeep === 'all') await catchUpFunnel(t.database, 'now');
          }
          await catchUpFunnel(t.database, 'now');
          const filters: FunnelFilter[] = ranges.map((r) => ({
            enteredFrom: r.from === undefined ? undefined : dayOf(T0 + r.from * DAY),
            enteredTo: r.to ? dayOf(T0 + ((r.from ?? 0) + r.length) * DAY) : undefined,
            classification: r.classification,
          }));
          // Always one range that keeps everyone, and one that keeps nobody.
          filters.push({ enteredFrom: '2000-01-01' }, { enteredTo: '2025-12-31' });
          const kept = [];
          for (const filter of filters) {
            const cohorts = sorted(await readFunnel(t.database.db, deal.dealId, filter));
            assert.deepEqual(cohorts, sorted(await recountFunnel(t.database.db, deal.dealId, filter)), JSON.stringify(filter));
            if (cohorts.steps.length > 0) nonEmpty += 1;
            kept.push(cohorts);
          }
          // Through the route: the investors of a range are those standing somewhere.
          const filter = filters[0]!;
          const query = new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => e[1] !== undefined));
          const response = await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true&${query}`);
          assert.equal(response.status, 200, JSON.stringify(response.body));
          assert.equal(
            response.body.investors,
            kept[0]!.steps.reduce((n, s) => n + s.standing, 0),
          );
          // Row by row: the upkeep as it went, the deal computed again batch by batch, and recomputed.
          const followed = await keptFunnel(t.database.db, deal.dealId, { asRead: true });
          await applyDealByUpkeep(t.database.db, deal.dealId);
          const batch = await keptFunnel(t.database.db, deal.dealId);
          assert.deepEqual(await keptFunnel(t.database.db, deal.dealId, { asRead: true }), followed);
          await rebuildFunnel(t.database.db, deal.dealId);
          assert.deepEqual(await keptFunnel(t.database.db, deal.dealId), batch);
          for (const [i, filter] of filters.entries())
            assert.deepEqual(sorted(await readFunnel(t.database.db, deal.dealId, filter)), kept[i], `rebuilt ${JSON.stringify(filter)}`);
        },
      ),
      {
        numRuns: 12,
        // One run that surely edits a commitment, requests an edit of one and changes an investor's
        // classes, whatever the random runs draw (the counts below assert each was exercised).
        examples: [
          [
            [
              { investor: 0, change: { step: 1, minutes: 60 }, upkeep: 'none' as const },
              { investor: 0, change: { amount: 500, usd: true, request: false }, upkeep: 'one' as const },
              { investor: 0, change: { amount: 700, usd: false, request: true }, upkeep: 'none' as const },
              { investor: 1, change: { classes: 3 }, upkeep: 'none' as const },
              { investor: 1, change: { step: 1, minutes: 3 * 1440 }, upkeep: 'all' as const },
              { investor: 0, change: { step: 2, minutes: 9 * 1440 }, upkeep: 'none' as const },
            ],
            [
              { from: 0, length: 5, to: true, classification: undefined },
              { from: undefined, length: 0, to: false, classification: 'professional' as const },
              { from: 2, length: 70, to: true, classification: 'sophisticated' as const },
            ],
          ],
        ],
      },
    );
    assert.ok(moved > 30, `only ${moved} moves were applied`);
    assert.ok(edited > 0, 'no commitment was edited');
    assert.ok(requested > 0, 'no edit was requested');
    assert.ok(reclassified > 0, 'no investor changed classes');
    assert.ok(nonEmpty > 12, `only ${nonEmpty} ranges kept anyone`);
  });
});
