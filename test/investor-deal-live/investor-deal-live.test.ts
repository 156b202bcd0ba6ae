// The live stream of an investor's own journey (GET /investors/{id}/deals/{dealId}/live), as the
// portal opens it behind its session cookie: staff's move of this investor arrives at once, a move
// of anyone else in the same deal never does, and an event carries no payload; another investor's
// journey, or no cookie, is refused. Read over a real socket, as EventSource reads it.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, test } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { openStreamAt } from '../support/live-stream.ts';
import { invitationToken, portal, PORTAL_COOKIE } from '../support/portal.ts';

describe("an investor's live stream of their own journey", () => {
  const t = startApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '100000' } });
  let baseUrl = '';
  before(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  const p = () => portal(t.app, t.config.basePath, t.config.portal.origin);
  const signedIn = async (investorUserId: string) => {
    const [invitation] = await p().invite(t.admin, [investorUserId]);
    return (await p().register(invitationToken(invitation!.url))).session;
  };
  const liveUrl = (investorUserId: string, dealId: string) => `${baseUrl}${t.config.basePath}/portal/api/investors/${investorUserId}/deals/${dealId}/live`;

  test('staff moving the investor reaches their page at once; moving another investor of the deal never does; no payload', async () => {
    const deal = await createDeal(t.admin);
    const [mine, other] = [await deal.addInvestor(), await deal.addInvestor()];
    await deal.move(mine, 'interest');
    await deal.move(other, 'interest');
    const session = await signedIn(mine);
    const stream = await openStreamAt(liveUrl(mine, deal.dealId), { cookie: `${PORTAL_COOKIE}=${session.cookie}` });
    assert.match(stream.response.headers.get('content-type')!, /^text\/event-stream/);

    await deal.move(other, 'commitment', { committed_amount: '1000.00', currency: 'EUR' });
    const moved = await t.admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: mine,
      targetStepId: deal.step('commitment'),
      data: { committed_amount: '25000.00', currency: 'EUR' },
    });
    assert.equal(moved.status, 201, moved.text);
    // On a shared PostgreSQL an entry joins the feed once every older transaction of any client has ended: wait long enough for that.
    // The feed as staff pull it: which entries are whose.
    const feed = async () =>
      (await t.admin.get(`/deals/deal/${deal.dealId}/events?limit=100`)).body.output as {
        sequence: number;
        data: { investorUserId?: string; event?: { id: string } };
      }[];
    const deadline = Date.now() + 30_000;
    let commitment: number | undefined;
    while (commitment === undefined && Date.now() < deadline) {
      commitment = (await feed()).find((e) => e.data.event?.id === moved.body.id)?.sequence;
      await stream.waitFor(stream.events.length + 1, 1000).catch(() => undefined);
    }
    await stream.waitFor(1, 30_000);
    while (!stream.events.some((e) => e.data.sequence === commitment) && Date.now() < deadline)
      await stream.waitFor(stream.events.length + 1, 1000).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 700)); // a poll or two more
    await stream.close();
    for (const got of stream.events) {
      assert.deepEqual(Object.keys(got.data).sort(), ['sequence', 'timestamp', 'type']);
      assert.equal(got.id, String(got.data.sequence));
    }
    assert.ok(
      stream.events.some((e) => e.data.sequence === commitment && e.data.type === 'journey.step-entered'),
      JSON.stringify(stream.events),
    );
    // Every entry sent is about this investor: the other's move (in the same deal, just before) never is.
    const whose = new Map((await feed()).map((e) => [e.sequence, e.data.investorUserId]));
    for (const got of stream.events) assert.equal(whose.get(got.data.sequence), mine, JSON.stringify(got));
  });

  test("another investor's journey or a deal without theirs: 404; no session: 401", async () => {
    const deal = await createDeal(t.admin);
    const [mine, other] = [await deal.addInvestor(), await deal.addInvestor()];
    await deal.move(other, 'interest');
    const session = await signedIn(mine);
    const read = (url: string, cookie?: string) => fetch(url, { headers: cookie ? { cookie: `${PORTAL_COOKIE}=${cookie}` } : {} });
    assert.equal((await read(liveUrl(other, deal.dealId), session.cookie)).status, 404);
    assert.equal((await read(liveUrl(mine, deal.dealId), session.cookie)).status, 404); // no journey of theirs in it
    assert.equal((await read(liveUrl(other, deal.dealId))).status, 401);
    // Through inject too, so the answer is checked against openapi.json (bearer: staff read anyone's).
    expectProblem(await session.api.get(`/portal/api/investors/${other}/deals/${deal.dealId}/live`), 404);
  });
});
