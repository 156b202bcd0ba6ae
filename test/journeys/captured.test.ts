// What the journey row keeps of its events for the jump rules (migration 0021): the data captured
// (every event's data merged in sequence order, a later value of a key winning) and the steps
// visited (in order of first entry). A move's load reads only the row, so the row must agree with
// the events after any mix of moves, refused moves, edits (of the last event or an earlier one) and
// workflow migrations; and the rules must see an edit of an earlier event at once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { expectProblem, startApp } from '../support/app.ts';
import { createDeal, type TestDeal } from '../support/deals.ts';

describe('the journey row keeps what its events captured', () => {
  const t = startApp();
  const admin = t.admin;

  /** The kept row against a merge of the events the API returns. */
  async function assertKept(deal: TestDeal, investor: string) {
    const journey = (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey as {
      toStepId: string;
      data: Record<string, string>;
    }[];
    const row = (
      await sql<{ captured: Record<string, string>; visited: string[] }>`select captured, visited from journeys
      where deal_id = ${deal.dealId} and investor_user_id = ${investor}`.execute(t.database.db)
    ).rows[0];
    if (journey.length === 0) return assert.equal(row, undefined, 'a refused first move leaves no journey');
    assert.deepEqual(row!.captured, Object.assign({}, ...journey.map((e) => e.data)));
    assert.deepEqual(row!.visited, [...new Set(journey.map((e) => e.toStepId))]);
  }

  test("an edit of an earlier event is kept at once, and a later event's value of a key wins over an edited earlier one", async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor({ kycCheckLevel: 3 });
    const interest = await deal.move(investor, 'interest', { note: 'first' });
    await deal.move(investor, 'commitment', { committed_amount: '100.00', currency: 'EUR' });
    await deal.move(investor, 'kyc', { kyc_ref: 'K-1' });
    // The interest step's note, captured by the first event, is edited away; the commitment's
    // amount stays captured, so going back to commitment without data is allowed.
    assert.equal((await admin.post(`/deals/event/${interest.id}/edit`, {})).status, 200);
    await assertKept(deal, investor);
    await deal.move(investor, 'commitment');
    await assertKept(deal, investor);
    const journey = (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey;
    const commitment = journey[1];
    // A later event that sets the key again wins over the edited earlier one.
    const edited = await admin.post(`/deals/event/${commitment.id}/edit`, { committed_amount: '250.00', currency: 'USD' });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    await assertKept(deal, investor);
    // The last event (back at commitment, no data) sets nothing; the edited amount is what is captured.
    const row = (
      await sql<{ captured: Record<string, string> }>`select captured from journeys where deal_id = ${deal.dealId} and investor_user_id = ${investor}`.execute(
        t.database.db,
      )
    ).rows[0]!;
    assert.equal(row.captured.committed_amount, '250.00');
    assert.equal(row.captured.note, undefined);
  });

  test('property: after random moves (some refused) and edits, the row equals a merge of the events', async () => {
    const deal = await createDeal(admin);
    const steps = ['interest', 'commitment', 'kyc', 'documents', 'payment', 'complete', 'withdrawn'] as const;
    // Data a step's fields accept (documents' `signed` is a choice; payment's `paid_on` a date).
    const dataFor = (step: string, variant: number): Record<string, string> => {
      switch (step) {
        case 'interest':
          return variant % 3 === 0 ? {} : { note: `n${variant}` };
        case 'commitment':
          return variant % 4 === 0 ? {} : { committed_amount: `${variant}.00`, currency: variant % 2 ? 'EUR' : 'USD' };
        case 'kyc':
          return variant % 2 ? { kyc_ref: `K${variant}` } : {};
        case 'documents':
          return { signed: variant % 2 ? 'yes' : 'no' };
        case 'payment':
          return variant % 2 ? { paid_on: `2026-0${1 + (variant % 9)}-1${variant % 10}` } : {};
        case 'withdrawn':
          return variant % 2 ? { reason: `r${variant}` } : {};
        default:
          return {};
      }
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            { weight: 3, arbitrary: fc.record({ move: fc.constantFrom(...steps), variant: fc.nat(20) }) },
            { weight: 1, arbitrary: fc.record({ edit: fc.nat(30), variant: fc.nat(20) }) },
          ),
          { minLength: 1, maxLength: 12 },
        ),
        async (operations) => {
          const investor = await deal.addInvestor({ kycCheckLevel: 3 });
          for (const op of operations) {
            if ('move' in op) {
              const response = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
                investorUserId: investor,
                targetStepId: deal.step(op.move),
                data: dataFor(op.move, op.variant),
              });
              if (response.status !== 201) expectProblem(response, response.status);
            } else {
              const journey = (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey;
              if (journey.length === 0) continue;
              const event = journey[op.edit % journey.length];
              const response = await admin.post(`/deals/event/${event.id}/edit`, dataFor(event.toStepId.slice(deal.dealId.length + 1), op.variant));
              // An edit may be refused (a required field emptied); it then changes nothing.
              if (response.status !== 200) expectProblem(response, 422);
            }
            await assertKept(deal, investor);
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
