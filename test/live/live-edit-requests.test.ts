// The live stream of every deal's edit requests (POST /console/live/tickets with
// `feed: "edit-requests"`, then GET /console/live), which the console's Inbox and its badge follow:
// a request filed in another deal arrives within a second, and only edit-request entries come; a
// reconnect with Last-Event-ID or `after` goes on across deals with no gap and no repeat; investors
// get no ticket, a ticket asks for one stream, and a cursor must name an edit-request entry.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { commit, createDeal, createInvestor } from '../support/deals.ts';
import { arrivalBoundMs, openStream } from '../support/live-stream.ts';
import { eventually } from '../support/webhooks.ts';

const EDIT_REQUEST_TYPES = ['edit-request.created', 'edit-request.approved', 'edit-request.rejected'];

describe('the live stream of every deal’s edit requests', () => {
  const t = startApp();
  let baseUrl = '';
  before(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });

  const inboxTicket = async (token = t.adminToken) => {
    const response = await client(t.app, token).post('/console/live/tickets', { feed: 'edit-requests' });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    return response.body.ticket as string;
  };

  /** A deal of its own with an investor committed (a move, so a feed entry that is no edit request). */
  const committedDeal = async () => {
    const deal = await createDeal(t.admin, { workflow: 'subscription' });
    const investor = await createInvestor(t.admin);
    const event = await commit(t.admin, deal, investor.id);
    return { deal, investorUserId: investor.id, event };
  };

  /** Files an amount change for the committed investor, as the investor does; returns the request's id. */
  const fileRequest = async ({ investorUserId, event }: Awaited<ReturnType<typeof committedDeal>>, amount = '30000.00') => {
    const own = client(t.app, await t.investorToken(investorUserId));
    const response = await own.post('/deals/request-to-edit', {
      workflowEventId: event.id,
      type: 'Investment Amount',
      reason: 'More',
      newData: { committed_amount: amount },
    });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    return response.body.id as string;
  };

  /** The edit-request entries of the deals' own pull feeds, by id. */
  const pulled = async (dealIds: string[]) => {
    const ids = new Set<string>();
    for (const dealId of dealIds) {
      const feed = await t.admin.get(`/deals/deal/${dealId}/events?after=0&limit=100`);
      assert.equal(feed.status, 200);
      for (const entry of feed.body.output) if (EDIT_REQUEST_TYPES.includes(entry.type)) ids.add(entry.id);
    }
    return ids;
  };

  test('a request filed in a second deal arrives within a second, and nothing but edit requests comes', async () => {
    const first = await committedDeal();
    const earlier = await fileRequest(first); // before the stream: not replayed
    // On a shared PostgreSQL the feed shows an entry once every older transaction (of any test) has
    // ended; the stream starts after what the feed shows, so wait until the request is shown.
    await eventually(
      async () =>
        (await t.admin.get(`/deals/deal/${first.deal.dealId}/events?after=0&limit=100`)).body.output.find(
          (entry: any) => entry.data.editRequest?.id === earlier,
        ),
      10_000,
      'the first request in its deal’s feed',
    );
    const stream = await openStream(baseUrl, await inboxTicket());
    assert.match(stream.response.headers.get('content-type')!, /^text\/event-stream/);
    const second = await committedDeal(); // moves in another deal: not on this stream
    const requestId = await fileRequest(second);
    const filed = Date.now();
    const [got] = await stream.waitFor(1);
    assert.ok(got!.at - filed < arrivalBoundMs, `arrived after ${got!.at - filed} ms`);
    if (process.env.LIVE_TIMINGS) console.log(`edit requests: ${got!.at - filed} ms after the request answered`);
    assert.equal(got!.data.type, 'edit-request.created');
    assert.equal(got!.data.dealId, second.deal.dealId);
    assert.equal(got!.data.data.editRequest.id, requestId);
    assert.equal(got!.id, String(got!.data.sequence));

    // A decision in the first deal comes too.
    const pending = (await t.admin.get(`/console/edit-requests?dealId=${first.deal.dealId}`)).body.output[0];
    assert.equal((await t.admin.post(`/deals/request-to-edit/${pending.id}/reject`, { reason: 'No' })).status, 200);
    const [, decided] = await stream.waitFor(2);
    assert.deepEqual([decided!.data.type, decided!.data.dealId], ['edit-request.rejected', first.deal.dealId]);
    await first.deal.move(first.investorUserId, 'pay', { paid_on: '2026-11-21' }); // a move: not on this stream
    await new Promise((resolve) => setTimeout(resolve, 700)); // a poll or two: no move may come
    await stream.close();
    assert.ok(
      stream.events.every((e) => EDIT_REQUEST_TYPES.includes(e.data.type)),
      stream.events.map((e) => e.data.type).join(', '),
    );
    assert.equal(stream.events.length, 2);
  });

  test('a reconnect with Last-Event-ID, or a stream opened with after, skips nothing and repeats nothing', async () => {
    const deals = [await committedDeal(), await committedDeal(), await committedDeal()];
    const [a, b, c] = deals as [(typeof deals)[0], (typeof deals)[0], (typeof deals)[0]];
    const ours = (events: { data: any }[]) => events.filter((e) => deals.some((d) => d.deal.dealId === e.data.dealId));
    const first = await openStream(baseUrl, await inboxTicket());
    const r1 = await fileRequest(a);
    const r2 = await fileRequest(b);
    await first.waitFor(2);
    await first.close();
    const lastId = first.events.at(-1)!.id;
    // While the browser is away: decisions and a request in a third deal.
    assert.equal((await t.admin.post(`/deals/request-to-edit/${r1}/approve`, {})).status, 200);
    await fileRequest(c, '41000.00');
    assert.equal((await t.admin.post(`/deals/request-to-edit/${r2}/reject`, {})).status, 200);
    const second = await openStream(baseUrl, await inboxTicket(), { 'Last-Event-ID': lastId });
    await second.waitFor(3);
    await fileRequest(a, '31000.00');
    await second.waitFor(4);
    await new Promise((resolve) => setTimeout(resolve, 700)); // a poll or two: nothing more may come
    await second.close();

    const seen = ours([...first.events, ...second.events]).map((e) => e.data.id);
    assert.equal(seen.length, 6);
    assert.equal(new Set(seen).size, 6, 'none twice');
    assert.deepEqual(new Set(seen), await pulled(deals.map((d) => d.deal.dealId)), 'exactly the edit-request entries of the deals’ own feeds');
    assert.deepEqual(
      ours(second.events).map((e) => e.data.type),
      ['edit-request.approved', 'edit-request.created', 'edit-request.rejected', 'edit-request.created'],
    );
    const sequences = [...first.events, ...second.events].map((e) => Number(e.id));
    assert.deepEqual(sequences, [...new Set(sequences)]);

    // A new stream (a fresh ticket) with after=<the first id> sends the same entries after it.
    const resumed = await openStream(baseUrl, await inboxTicket(), {}, `&after=${first.events[0]!.id}`);
    await resumed.waitFor(5);
    await new Promise((resolve) => setTimeout(resolve, 700));
    await resumed.close();
    assert.deepEqual(
      resumed.events.map((e) => e.data.id),
      [...first.events.slice(1), ...second.events].map((e) => e.data.id),
    );
  });

  test('investors get no ticket; a ticket asks for one stream; a cursor must name an edit-request entry', async () => {
    const { deal, investorUserId, event } = await committedDeal();
    expectProblem(await client(t.app, await t.investorToken(investorUserId)).post('/console/live/tickets', { feed: 'edit-requests' }), 403);
    expectProblem(await client(t.app).post('/console/live/tickets', { feed: 'edit-requests' }), 401);
    const neither = expectProblem(await t.admin.post('/console/live/tickets', {}), 400);
    assert.match(neither.detail, /either dealId .* or feed/);
    expectProblem(await t.admin.post('/console/live/tickets', { dealId: deal.dealId, feed: 'edit-requests' }), 400);
    expectProblem(await t.admin.post('/console/live/tickets', { feed: 'moves' }), 400);

    // A deal's ticket cannot be turned into one for every deal's requests.
    const dealTicket = (await t.admin.post('/console/live/tickets', { dealId: deal.dealId })).body.ticket as string;
    const [body, mac] = dealTicket.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString());
    const widened = Buffer.from(JSON.stringify({ ...claims, deal: undefined, feed: 'edit-requests' })).toString('base64url');
    expectProblem(await client(t.app).get(`/console/live?ticket=${widened}.${mac}`), 401);

    // The sequence of a move (an entry of the deal's feed, not an edit request) is no cursor of this stream.
    // On a shared PostgreSQL the feed shows an entry once every older transaction (of any test) has ended.
    const move = await eventually(
      async () => (await t.admin.get(`/deals/deal/${deal.dealId}/events?after=0&limit=100`)).body.output.find((e: any) => e.data.event?.id === event.id),
      10_000,
      'the commitment move in the deal’s feed',
    );
    const ticket = await inboxTicket();
    const refused = expectProblem(await client(t.app).get(`/console/live?ticket=${ticket}`, { 'last-event-id': String(move.sequence) }), 400);
    assert.match(refused.detail, /not the sequence of an entry of this feed/);
    expectProblem(await client(t.app).get(`/console/live?ticket=${ticket}&after=${move.sequence}`), 400);
  });
});
