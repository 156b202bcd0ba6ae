// The console's activity read: a deal's event feed newest first, a page at a time (before=), each
// entry with the investor's name; the same entries as the pull feed, in the opposite order.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { feedCaughtUp } from '../support/webhooks.ts';
import { createDeal, createInvestor, importMoves, jump } from '../support/deals.ts';

describe('deal activity, newest first', () => {
  const t = startApp();
  const admin = t.admin;

  /** The deal's feed once it has passed every transaction begun before (the horizon is the server's, shared with other test files). */
  async function feedOf(dealId: string): Promise<{ id: string; sequence: number }[]> {
    await feedCaughtUp(t.database.db);
    return (await admin.get(`/deals/deal/${dealId}/events?after=0&limit=100`)).body.output;
  }

  test('pages backwards through the feed: the pull feed reversed, with investor names', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const other = await createDeal(admin, { workflow: 'subscription' });
    const ada = await createInvestor(admin, { forename: 'Ada', surname: 'Activity' });
    const bea = await createInvestor(admin, { forename: 'Bea', surname: 'Activity' });
    for (const investor of [ada, bea]) {
      await jump(admin, deal.dealId, investor.id, deal.steps.interest);
      await jump(admin, deal.dealId, investor.id, deal.steps.commit, { committed_amount: '100.00', currency: 'EUR' });
    }
    await jump(admin, other.dealId, ada.id, other.steps.interest);
    await jump(admin, deal.dealId, ada.id, deal.steps.pay);

    const feed = await feedOf(deal.dealId);
    assert.equal(feed.length, 5);
    const pages: { id: string; sequence: number; investorName: string | null; data: { investorUserId: string } }[][] = [];
    let cursor = '';
    for (;;) {
      const response = await admin.get(`/console/deals/${deal.dealId}/activity?limit=2${cursor}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      pages.push(response.body.output);
      if (!response.body.hasMore) break;
      cursor = `&before=${response.body.output.at(-1).sequence}`;
    }
    assert.deepEqual(
      pages.map((p) => p.length),
      [2, 2, 1],
    );
    const entries = pages.flat();
    assert.deepEqual(
      entries.map((e) => e.id),
      feed.map((e) => e.id).reverse(),
      'the feed, newest first, the other deal left out',
    );
    assert.equal(entries[0]!.data.investorUserId, ada.id, 'the latest move first');
    for (const entry of entries) assert.equal(entry.investorName, entry.data.investorUserId === ada.id ? 'Ada Activity' : 'Bea Activity');

    const latest = (await admin.get(`/console/deals/${deal.dealId}/activity`)).body;
    assert.deepEqual([latest.output.length, latest.hasMore], [5, false]);
  });

  test("a batch's count and whether it can be undone are exact on every page it spans", async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const ids: string[] = [];
    for (let i = 0; i < 45; i++) ids.push((await createInvestor(admin, { forename: `P${String(i).padStart(2, '0')}`, surname: 'Paged' })).id);
    const placed = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, {
      moves: ids.map((id) => ({ investorUserId: id, targetStepId: deal.steps.interest, data: {} })),
    });
    assert.equal(placed.status, 200);
    const csv = ['investorUserId,targetStepId,committed_amount,currency', ...ids.map((id) => `${id},${deal.steps.commit},100.00,EUR`)].join('\n');
    const imported = await importMoves(t, deal.dealId, csv);
    assert.equal(imported.statusCode, 200, imported.body);
    await feedOf(deal.dealId);

    type Batch = { id: string; kind: string; size: number; undoable: boolean };
    const importEntries = async () => {
      const found: Batch[][] = [];
      let cursor = '';
      for (;;) {
        const page = (await admin.get(`/console/deals/${deal.dealId}/activity?limit=20${cursor}`)).body;
        found.push(page.output.flatMap((e: { batch: Batch | null }) => (e.batch?.kind === 'import' ? [e.batch] : [])));
        if (!page.hasMore) return found;
        cursor = `&before=${page.output.at(-1).sequence}`;
      }
    };
    const pages = await importEntries();
    assert.deepEqual(pages.map((p) => p.length).slice(0, 3), [20, 20, 5], 'the import spans three pages');
    for (const batch of pages.flat()) assert.deepEqual([batch.size, batch.undoable], [45, true]);

    // One investor moves on: no page offers the undo any more, and the service refuses it.
    await jump(admin, deal.dealId, ids[44]!, deal.steps.pay);
    await feedOf(deal.dealId);
    const after = (await importEntries()).flat();
    assert.equal(after.length, 45);
    for (const batch of after) assert.deepEqual([batch.size, batch.undoable], [45, false]);
    expectProblem(await admin.post(`/console/batches/${after[0]!.id}/undo`, {}), 409);
    // The placement entered the investors in the workflow: never undoable.
    const entered = (await admin.get(`/console/deals/${deal.dealId}/activity?limit=100`)).body.output.find(
      (e: { batch: Batch | null }) => e.batch?.kind === 'bulk-move',
    );
    assert.deepEqual([entered.batch.size, entered.batch.undoable], [45, false]);
  });

  test('an empty feed, a cursor of another feed (400), an unknown deal (404), an investor token (403)', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    assert.deepEqual((await admin.get(`/console/deals/${deal.dealId}/activity`)).body, { output: [], hasMore: false });
    const other = await createDeal(admin, { workflow: 'subscription' });
    const investor = await createInvestor(admin);
    await jump(admin, other.dealId, investor.id, other.steps.interest);
    const foreign = (await feedOf(other.dealId))[0]!.sequence;
    const refused = await admin.get(`/console/deals/${deal.dealId}/activity?before=${foreign}`);
    expectProblem(refused, 400);
    assert.equal(refused.body.errors[0].field, 'before');
    expectProblem(await admin.get(`/console/deals/${deal.dealId}/activity?before=0`), 400);
    expectProblem(await admin.get(`/console/deals/${deal.dealId}/activity?limit=101`), 400);
    expectProblem(await admin.get('/console/deals/no-such-deal/activity'), 404);
    const own = client(t.app, await t.investorToken(investor.id));
    expectProblem(await own.get(`/console/deals/${other.dealId}/activity`), 403);
  });
});
