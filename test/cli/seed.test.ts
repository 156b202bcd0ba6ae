// `dealflow seed`: the demo deal and the benchmark data set are valid data, as the API would write it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { DEMO_DEAL_ID, seedDemo, seedScale } from '../../src/operations/seed.ts';
import { startApp } from '../support/app.ts';

describe('seed', () => {
  const t = startApp();
  const admin = t.admin;
  const deps = () => ({ db: t.database.db, clock: systemClock, newId: newUuid });

  async function checkJourneys(dealId: string, investors: number) {
    const db = t.database.db;
    const journeys = await db.selectFrom('journeys').selectAll().where('deal_id', '=', dealId).execute();
    assert.equal(journeys.length, investors);
    assert.equal(new Set(journeys.map((j) => j.payment_reference)).size, investors, 'one reference each');
    for (const j of journeys) assert.match(j.payment_reference, /^RF\d{17}$/);
    const events = await db.selectFrom('workflow_events').selectAll().where('deal_id', '=', dealId).orderBy('investor_user_id').orderBy('seq').execute();
    const byInvestor = Map.groupBy(events, (e) => e.investor_user_id);
    for (const j of journeys) {
      const own = byInvestor.get(j.investor_user_id)!;
      assert.equal(own.length, j.event_count);
      own.forEach((e, i) => {
        assert.equal(e.seq, i + 1);
        assert.equal(e.from_step_id, i === 0 ? null : own[i - 1]!.to_step_id);
      });
      assert.equal(j.current_step_id, own.at(-1)!.to_step_id);
    }
    const revisions = await db
      .selectFrom('event_revisions')
      .innerJoin('workflow_events', 'workflow_events.id', 'event_revisions.event_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workflow_events.deal_id', '=', dealId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(revisions.n), events.length, 'revision 1 of every event');
    return events;
  }

  test('--demo: a deal with an eight-step workflow and 200 investors spread across it; a second run changes nothing', async () => {
    const result = await seedDemo(deps());
    assert.deepEqual(result, { dealId: DEMO_DEAL_ID, created: true, investors: 200 });
    const workflow = (await admin.get(`/deals/deal/${DEMO_DEAL_ID}/workflow-status`)).body;
    assert.equal(workflow.steps.length, 8);
    const page = (await admin.get(`/deals/deal/${DEMO_DEAL_ID}/all-investor-workflows?limit=100`)).body;
    assert.equal(page.totalPages, 2);
    const events = await checkJourneys(DEMO_DEAL_ID, 200);
    const reached = new Set(events.map((e) => e.to_step_id));
    for (const step of workflow.steps) assert.ok(reached.has(step.id), `someone reached ${step.id}`);
    const commitment = events.find((e) => e.to_step_id === 'demo.commitment')!;
    assert.match(commitment.data.committed_amount!, /^\d+\.00$/);
    assert.deepEqual(await seedDemo(deps()), { dealId: DEMO_DEAL_ID, created: false, investors: 0 });
  });

  test('--investors N --deals M: N investors with a journey in each of M deals, with progress', async () => {
    const progress: number[] = [];
    const result = await seedScale(deps(), { investors: 1500, deals: 2, onProgress: (done) => progress.push(done) });
    assert.equal(result.dealIds.length, 2);
    assert.deepEqual(progress, [2000, 3000]);
    for (const dealId of result.dealIds) await checkJourneys(dealId, 1500);
    const page = (await admin.get(`/deals/deal/${result.dealIds[0]}/all-investor-workflows`)).body;
    assert.equal(page.totalPages, 75);
    assert.equal(page.output.length, 20);
  });
});
