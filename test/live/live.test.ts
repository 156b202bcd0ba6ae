// The live stream (GET /console/live, server-sent events) and its tickets (POST /console/live/tickets):
// a move made by another client arrives on an open stream; a reconnect with Last-Event-ID goes on
// with no gap and no repeat; investors get no ticket; tickets expire, are bound to one deal and die
// with their token. The stream is read over a real socket, as a browser's EventSource reads it.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLiveFeed } from '../../src/operations/live-feed.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { revokeToken } from '../../src/operations/tokens.ts';
import { openDatabase } from '../../src/store/database.ts';
import { client, expectProblem, onPostgres, skipUnlessPostgres, startApp, testDatabaseUrl } from '../support/app.ts';
import { feedCaughtUp } from '../support/webhooks.ts';
import { createDeal } from '../support/deals.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { arrivalBoundMs, openStream } from '../support/live-stream.ts';

describe('the live stream', () => {
  const t = startApp();
  let baseUrl = '';
  before(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });

  const ticketFor = async (dealId: string, token = t.adminToken) => {
    const response = await client(t.app, token).post('/console/live/tickets', { dealId });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    return response.body.ticket as string;
  };

  test('a move made by another client arrives within a second, its sequence as the event id', async () => {
    const deal = await createDeal(t.admin);
    const investor = await deal.addInvestor();
    const stream = await openStream(baseUrl, await ticketFor(deal.dealId));
    assert.equal(stream.response.status, 200);
    assert.match(stream.response.headers.get('content-type')!, /^text\/event-stream/);
    // Another operator, with a token of their own.
    const colleague = await createToken(t.database.db, { name: 'colleague', role: 'admin' });
    const event = await client(t.app, colleague.token).post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: investor,
      targetStepId: deal.step('interest'),
      data: {},
    });
    assert.equal(event.status, 201);
    const moved = Date.now(); // the move has committed and answered
    const [got] = await stream.waitFor(1);
    assert.ok(got!.at - moved < arrivalBoundMs, `arrived after ${got!.at - moved} ms`);
    if (process.env.LIVE_TIMINGS) console.log(`stream: ${got!.at - moved} ms after the move answered`);
    assert.equal(got!.data.type, 'journey.step-entered');
    assert.equal(got!.data.data.event.id, event.body.id);
    assert.equal(got!.data.data.event.createdByUserId, colleague.id);
    assert.equal(got!.id, String(got!.data.sequence));
    await stream.close();
  });

  test('a reconnect with Last-Event-ID gets what it missed, with no gap and no repeat', async () => {
    const deal = await createDeal(t.admin);
    const investors = await Promise.all([1, 2, 3].map(() => deal.addInvestor()));
    const first = await openStream(baseUrl, await ticketFor(deal.dealId));
    await deal.move(investors[0]!, 'interest');
    await deal.move(investors[1]!, 'interest');
    await first.waitFor(2);
    await first.close();
    const lastId = first.events.at(-1)!.id;
    // Moves while the browser is away.
    await deal.move(investors[2]!, 'interest');
    await deal.move(investors[0]!, 'commitment', { committed_amount: '1000.00', currency: 'EUR' });
    await deal.move(investors[1]!, 'commitment', { committed_amount: '2000.00', currency: 'EUR' });
    const second = await openStream(baseUrl, await ticketFor(deal.dealId), { 'Last-Event-ID': lastId });
    await second.waitFor(3);
    await deal.move(investors[2]!, 'commitment', { committed_amount: '3000.00', currency: 'EUR' });
    await second.waitFor(4);
    await new Promise((resolve) => setTimeout(resolve, 700)); // a poll or two: nothing more may come
    await second.close();
    const pulled = await t.admin.get(`/deals/deal/${deal.dealId}/events?limit=100`);
    const seen = [...first.events, ...second.events].map((e) => e.data.id);
    assert.deepEqual(
      seen,
      pulled.body.output.map((e: any) => e.id),
    );
    assert.equal(new Set(seen).size, 6);
  });

  test('a stream opened without a cursor sends only what follows; after=0 sends everything', async () => {
    const deal = await createDeal(t.admin);
    const investor = await deal.addInvestor();
    await deal.move(investor, 'interest');
    await feedCaughtUp(t.database.db); // else the move, still behind the horizon, would follow the opening
    const fresh = await openStream(baseUrl, await ticketFor(deal.dealId));
    const all = await openStream(baseUrl, await ticketFor(deal.dealId), {}, '&after=0');
    await all.waitFor(1);
    await deal.move(investor, 'commitment', { committed_amount: '5.00', currency: 'EUR' });
    await fresh.waitFor(1);
    await all.waitFor(2);
    assert.equal(fresh.events[0]!.data.data.toStepId, deal.step('commitment'));
    await fresh.close();
    await all.close();
  });

  test('investors get no ticket; a forged, foreign-deal or revoked ticket is a 401', async () => {
    const deal = await createDeal(t.admin);
    const investor = await deal.addInvestor();
    await deal.move(investor, 'interest');
    expectProblem(await client(t.app, await t.investorToken(investor)).post('/console/live/tickets', { dealId: deal.dealId }), 403);
    expectProblem(await client(t.app).post('/console/live/tickets', { dealId: deal.dealId }), 401);
    expectProblem(await t.admin.post('/console/live/tickets', { dealId: 'no-such-deal' }), 404);
    expectProblem(await t.admin.post('/console/live/tickets', { dealId: deal.dealId, extra: 1 }), 400);

    const ticket = await ticketFor(deal.dealId);
    const [body, mac] = ticket.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString());
    const otherDeal = Buffer.from(JSON.stringify({ ...claims, deal: 'another-deal' })).toString('base64url');
    expectProblem(await t.admin.get(`/console/live?ticket=${otherDeal}.${mac}`), 401);
    expectProblem(await t.admin.get('/console/live?ticket=not-a-ticket'), 401);
    expectProblem(await t.admin.get('/console/live'), 400);
    expectProblem(await client(t.app).get(`/console/live?ticket=${ticket}`, { 'last-event-id': '999999999' }), 400);

    const staff = await createToken(t.database.db, { name: 'leaving', role: 'admin' });
    const theirs = await ticketFor(deal.dealId, staff.token);
    await revokeToken(t.database.db, staff.id);
    expectProblem(await t.admin.get(`/console/live?ticket=${theirs}`), 401);
  });
});

describe('live tickets expire', () => {
  let now = Date.now();
  const t = startApp({ clock: () => new Date(now) });

  test('a ticket opens a stream for 60 s only', async () => {
    const deal = await createDeal(t.admin);
    const response = await t.admin.post('/console/live/tickets', { dealId: deal.dealId });
    assert.equal(response.status, 201);
    assert.equal(Date.parse(response.body.expiresAt) - now, 60_000);
    now += 61_000;
    const refused = expectProblem(await client(t.app).get(`/console/live?ticket=${response.body.ticket}`), 401);
    assert.match(refused.detail, /expired/);
  });
});

describe('the live stream across instances', { skip: skipUnlessPostgres }, () => {
  const t = startApp();
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closers.reverse()) await close();
  });

  test('a move committed by another instance wakes this one at once, by NOTIFY (no poll)', async () => {
    assert.ok(onPostgres);
    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: testDatabaseUrl! });
    const other = await openDatabase(config, { schema: t.database.schema! });
    closers.push(() => other.close());
    const otherApp = await buildApp({ db: other.db, config, clock: systemClock, newId: newUuid, listen: other.listen });
    closers.push(() => otherApp.close());
    const deal = await createDeal(t.admin);
    const investor = await deal.addInvestor();
    // This instance's reader, with a poll too slow to matter: only the notification can wake it.
    const feed = await createLiveFeed({ db: t.database.db }, { listen: t.database.listen, pollMs: 60_000 });
    closers.push(() => feed.close());
    const received: { id: string; at: number }[] = [];
    const follow = { kind: 'deal', dealId: deal.dealId } as const;
    const stop = feed.subscribe(
      { follow, deliver: async (entries) => void received.push(...entries.map((e) => ({ id: e.id, at: Date.now() }))), end: () => {} },
      await feed.startCursor(follow, undefined),
    );
    closers.push(async () => stop());
    const response = await client(otherApp, t.adminToken).post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: investor,
      targetStepId: deal.step('interest'),
      data: {},
    });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    const moved = Date.now(); // committed and answered by the other instance
    // Within a second normally; the feed's horizon is the whole database's oldest transaction, and
    // other test files share this database, so allow for one of theirs still running.
    const deadline = Date.now() + 5000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(received.length, 1, 'the poll is a minute away: only the notification can have brought it');
    if (process.env.LIVE_TIMINGS) console.log(`another instance: ${received[0]!.at - moved} ms after the move answered`);
  });
});
