// `dealflow seed`: the demo deal and the benchmark data set are valid data, as the API would write it;
// the demo deal's moves are in its feed as moves put them there.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { DEMO_DEAL_ID, seedDemo, seedScale } from '../../src/operations/seed.ts';
import { startApp } from '../support/app.ts';
import { jump } from '../support/deals.ts';
import { feedCaughtUp } from '../support/webhooks.ts';

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
    // Read as the revisions route reads them: an event never edited is its own revision 1 (migration 0042).
    const revisions = await db
      .selectFrom('all_event_revisions')
      .innerJoin('workflow_events', 'workflow_events.id', 'all_event_revisions.event_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workflow_events.deal_id', '=', dealId)
      .where('all_event_revisions.revision', '=', 1)
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

describe("the demo deal's history in its feed", () => {
  const t = startApp();
  const admin = t.admin;

  type Event = { id: string; toStepId: string; data: Record<string, string>; createdAt: string };
  type Entry = {
    id: string;
    type: string;
    timestamp: string;
    sequence: number;
    data: { investorUserId: string; fromStepId: string | null; toStepId: string; event: Event & { createdByUserId: string } };
  };

  /** The whole pull feed from `after`, a page at a time, as a consumer reads it; and where it stopped. */
  async function readFeed(after: number): Promise<{ entries: Entry[]; last: number }> {
    await feedCaughtUp(t.database.db);
    const entries: Entry[] = [];
    for (;;) {
      const page = await admin.get(`/deals/deal/${DEMO_DEAL_ID}/events?after=${after}&limit=100`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      entries.push(...page.body.output);
      after = page.body.lastSequence;
      if (!page.body.hasMore) return { entries, last: after };
    }
  }

  test('every seeded move is in the feed and the activity, in the order the moves happened, and a consumer goes on from there with no gap', async () => {
    await seedDemo({ db: t.database.db, clock: systemClock, newId: newUuid });
    // The journeys as the API shows them: each investor's events, in the order of their moves.
    const journeys = new Map<string, Event[]>();
    for (let page = 1; ; page++) {
      const body = (await admin.get(`/deals/deal/${DEMO_DEAL_ID}/all-investor-workflows?limit=100&page=${page}`)).body;
      for (const row of body.output) journeys.set(row.investor.id, row.journey);
      if (page >= body.totalPages) break;
    }
    assert.equal(journeys.size, 200);
    const moves = [...journeys.values()].reduce((n, j) => n + j.length, 0);

    const { entries: feed, last } = await readFeed(0);
    assert.equal(feed.length, moves, 'one entry per seeded move');
    assert.ok(feed.every((e) => e.type === 'journey.step-entered'));
    // Each journey's entries are its events, all of them, in the order of its moves.
    const seen = new Map<string, string[]>();
    for (const entry of feed) seen.set(entry.data.investorUserId, [...(seen.get(entry.data.investorUserId) ?? []), entry.data.event.id]);
    for (const [investorUserId, events] of journeys)
      assert.deepEqual(
        seen.get(investorUserId),
        events.map((e) => e.id),
        investorUserId,
      );
    // The entries carry the events as a move writes them, and the feed is in the order they happened.
    const byId = new Map([...journeys.values()].flat().map((e) => [e.id, e]));
    for (const entry of feed) {
      const event = byId.get(entry.data.event.id)!;
      assert.equal(entry.timestamp, event.createdAt);
      assert.equal(entry.data.toStepId, event.toStepId);
      assert.deepEqual(entry.data.event.data, event.data);
      assert.equal(entry.data.event.createdByUserId, 'seed');
    }
    const times = feed.map((e) => Date.parse(e.timestamp));
    assert.deepEqual(
      times,
      times.toSorted((a, b) => a - b),
      'oldest first',
    );
    assert.ok(times[0]! < Date.now() - 14 * 86_400_000, 'a history of weeks');

    // The console's activity page: the same entries newest first, with names and the move each was.
    const activity: { id: string; investorName: string | null; batch: { kind: string; size: number } | null }[] = [];
    let before = '';
    for (;;) {
      const page = (await admin.get(`/console/deals/${DEMO_DEAL_ID}/activity?limit=100${before}`)).body;
      activity.push(...page.output);
      if (!page.hasMore) break;
      before = `&before=${page.output.at(-1).sequence}`;
    }
    assert.deepEqual(
      activity.map((e) => e.id),
      feed.map((e) => e.id).reverse(),
    );
    assert.ok(activity.every((e) => e.investorName !== null && e.batch?.kind === 'move' && e.batch.size === 1));

    // Each journey carries the feed key a move sets: a later entry of it sorts after these.
    const { rows } = await sql<{ unkeyed: number }>`select count(*)::int as unkeyed from journeys j
      where j.deal_id = ${DEMO_DEAL_ID} and j.feed_xid < (select max(o.xid) from outbox o where o.deal_id = ${DEMO_DEAL_ID})`.execute(t.database.db);
    assert.equal(rows[0]!.unkeyed, 0);

    // A consumer that has read it all goes on with the next move, and only that.
    const [mover] = [...journeys].find(([, events]) => events.at(-1)!.toStepId === `${DEMO_DEAL_ID}.interest`)!;
    const moved = await jump(admin, DEMO_DEAL_ID, mover, `${DEMO_DEAL_ID}.commitment`, { committed_amount: '1000.00', currency: 'GBP' });
    const next = await readFeed(last);
    assert.deepEqual(
      next.entries.map((e) => e.data.event.id),
      [moved.id],
    );
  });
});
