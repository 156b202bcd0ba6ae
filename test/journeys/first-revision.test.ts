// An event's revision 1 is the event itself until its first edit (migration 0042): a move stores no
// event_revisions row, every reader (the revisions route, the investor's deals, verify) derives
// revision 1 from the event, the first edit stores it before revision 2, and a database that holds
// revision 1 rows from before (written by every move then) reads the same.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { startApp } from '../support/app.ts';
import { behindTheBack, verify } from '../support/audit.ts';
import { createDeal } from '../support/deals.ts';

describe("an event's first revision read from the event", () => {
  const t = startApp();
  const admin = t.admin;
  const db = () => t.database.db;
  let adminUserId: string;
  before(async () => {
    adminUserId = (await admin.get('/whoami')).body.userId;
  });

  const storedRevisions = async (eventId: string) =>
    (
      await sql<{ revision: number; data: Record<string, string>; reason: string | null }>`select revision, data, reason from event_revisions
        where event_id = ${eventId}::uuid order by revision`.execute(db())
    ).rows;

  /** What a move stored before migration 0042: its revision 1 row, as the move's write made it. */
  const storeOldStyleRevision = (event: { id: string; data: Record<string, string>; createdByUserId: string; createdAt: string }) =>
    sql`insert into event_revisions (event_id, revision, data, set_by_user_id, set_at, reason)
      values (${event.id}::uuid, 1, ${JSON.stringify(event.data)}::jsonb, ${event.createdByUserId}, ${event.createdAt}::timestamptz, null)`.execute(db());

  const commitment = { committed_amount: '25000.00', currency: 'EUR' };
  const raised = { committed_amount: '30000.00', currency: 'EUR' };

  test('a move stores no revision row; GET …/revisions answers revision 1 from the event; verify passes', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const event = await deal.move(investor, 'commitment', commitment);
    assert.deepEqual(await storedRevisions(event.id), [], 'no event_revisions row for a move');
    const revisions = await admin.get(`/deals/event/${event.id}/revisions`);
    assert.equal(revisions.status, 200);
    assert.deepEqual(revisions.body, [{ revision: 1, data: commitment, setByUserId: adminUserId, setAt: event.createdAt, reason: null }]);
    const verified = await verify(db(), { dealId: deal.dealId });
    assert.equal(verified.code, 0, verified.output);
  });

  test('the first edit stores revision 1 (the original data) and revision 2; an old-style revision 1 row reads the same', async () => {
    const deal = await createDeal(admin);
    const [fresh, old] = [await deal.addInvestor(), await deal.addInvestor()];
    const freshEvent = await deal.move(fresh, 'commitment', commitment);
    const oldEvent = await deal.move(old, 'commitment', commitment);
    await storeOldStyleRevision(oldEvent);
    assert.equal((await storedRevisions(oldEvent.id)).length, 1);

    const view = async (investor: string) => (await admin.get(`/investors/${investor}/deals/${deal.dealId}`)).body.commitmentHistory;
    const shape = (history: { amount: string; changedBy: string; revision: number }[]) => history.map((h) => [h.amount, h.changedBy, h.revision]);
    // Before any edit: the same answer from the event as from the row.
    for (const event of [freshEvent, oldEvent]) {
      const revisions = (await admin.get(`/deals/event/${event.id}/revisions`)).body;
      assert.deepEqual(revisions, [{ revision: 1, data: commitment, setByUserId: adminUserId, setAt: event.createdAt, reason: null }]);
    }
    assert.deepEqual(shape(await view(fresh)), shape(await view(old)));

    for (const event of [freshEvent, oldEvent]) {
      const edited = await admin.post(`/deals/event/${event.id}/edit`, raised);
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const revisions = (await admin.get(`/deals/event/${event.id}/revisions`)).body;
      assert.equal(revisions.length, 2);
      assert.deepEqual(
        revisions.map((r: { revision: number; data: unknown; setByUserId: string; reason: string | null }) => [r.revision, r.data, r.setByUserId, r.reason]),
        [
          [1, commitment, adminUserId, null],
          [2, raised, adminUserId, null],
        ],
      );
      assert.equal(revisions[0].setAt, event.createdAt, 'revision 1 keeps when the move made it');
      assert.deepEqual(
        (await storedRevisions(event.id)).map((r) => [r.revision, r.data]),
        [
          [1, commitment],
          [2, raised],
        ],
        'both rows stored once the event is edited',
      );
    }
    // A second edit adds revision 3 only.
    const again = await admin.post(`/deals/event/${freshEvent.id}/edit`, commitment);
    assert.equal(again.status, 200);
    assert.deepEqual(
      (await storedRevisions(freshEvent.id)).map((r) => r.revision),
      [1, 2, 3],
    );
    assert.deepEqual(shape(await view(old)), [
      ['25000.00', 'staff', 1],
      ['30000.00', 'staff', 2],
    ]);
    const verified = await verify(db(), { dealId: deal.dealId });
    assert.equal(verified.code, 0, verified.output);
  });

  test("verify names a move whose event's data a superuser changed while it had no revision row", async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const event = await deal.move(investor, 'commitment', commitment);
    await behindTheBack(
      db(),
      'workflow_events',
      `update workflow_events set data = '{"committed_amount":"1.00","currency":"EUR"}' where id = '${event.id}'`,
      'workflow_events_cache_only',
    );
    const tampered = await verify(db(), { dealId: deal.dealId });
    assert.equal(tampered.code, 1, tampered.output);
    assert.match(tampered.output, /its event or the event's first revision no longer says what the move recorded/);
    await behindTheBack(
      db(),
      'workflow_events',
      `update workflow_events set data = '${JSON.stringify(commitment)}' where id = '${event.id}'`,
      'workflow_events_cache_only',
    );
    assert.equal((await verify(db(), { dealId: deal.dealId })).code, 0);
  });

  test('a move that records a reason (an undo) still stores its revision 1 row, with the reason', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    await deal.move(investor, 'interest');
    const moved = await deal.move(investor, 'commitment', commitment);
    const undone = await admin.post(`/console/batches/${moved.id}/undo`, { reason: 'wrong investor' });
    assert.equal(undone.status, 200, JSON.stringify(undone.body));
    const back = undone.body.events[0];
    const stored = await storedRevisions(back.id);
    assert.deepEqual(
      stored.map((r) => [r.revision, r.reason]),
      [[1, `undo of batch ${moved.id}: wrong investor`]],
    );
    const revisions = (await admin.get(`/deals/event/${back.id}/revisions`)).body;
    assert.deepEqual(
      revisions.map((r: { revision: number; reason: string | null }) => [r.revision, r.reason]),
      [[1, `undo of batch ${moved.id}: wrong investor`]],
    );
  });
});
