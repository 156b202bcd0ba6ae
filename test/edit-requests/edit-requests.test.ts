// Edit requests: create, read, list (listInvestorEditRequests), approve and reject, and the
// no-pending-edit-requests step requirement they give teeth to.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { commit, createDeal, createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

const CREATE = '/deals/request-to-edit';
const filtered = (dealId: string, investorUserId: string) => `/deals/request-to-edit/filtered?dealId=${dealId}&investorUserId=${investorUserId}`;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const FIELDS = ['dateRecieved', 'decidedAt', 'decidedByUserId', 'decisionReason', 'id', 'newData', 'reason', 'status', 'type', 'workflowEventId'];

describe('edit requests', () => {
  const t = startApp();
  const admin = t.admin;
  let adminUserId: string;
  before(async () => {
    adminUserId = (await admin.get('/whoami')).body.userId;
  });

  /** A deal, an investor at the commitment step (25000.00 EUR), and the investor's own client. */
  async function committed(options: { withdrawn?: boolean } = {}) {
    const deal = await createDeal(admin, { workflow: 'subscription', ...options });
    const investor = await createInvestor(admin);
    const event = await commit(admin, deal, investor.id);
    const own = client(t.app, await t.investorToken(investor.id));
    return { deal, investorUserId: investor.id, event, own };
  }

  const journeyOf = async (dealId: string, investorUserId: string) =>
    (await admin.get(`/deals/deal/${dealId}/investor-data/${investorUserId}`)).body.journey as {
      id: string;
      toStepId: string;
      data: Record<string, string>;
      createdByUserId: string;
    }[];

  test('an investor asks for a new amount: 201 with the request, field by field', async () => {
    const { event, own } = await committed();
    const response = await own.post(CREATE, {
      workflowEventId: event.id,
      type: 'Investment Amount',
      reason: 'Bonus came early',
      newData: { committed_amount: '30000.00' },
    });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    const request = response.body;
    assert.deepEqual(Object.keys(request).sort(), FIELDS);
    assert.match(request.id, /^[0-9a-f-]{36}$/);
    assert.equal(request.workflowEventId, event.id);
    assert.match(request.dateRecieved, TIMESTAMP);
    assert.equal(request.reason, 'Bonus came early');
    assert.equal(request.type, 'Investment Amount');
    assert.equal(request.status, 'pending');
    assert.equal(request.decidedAt, null);
    assert.equal(request.decidedByUserId, null);
    assert.equal(request.decisionReason, null);
    assert.deepEqual(request.newData, { committed_amount: '30000.00' });
    assert.deepEqual((await own.get(`${CREATE}/${request.id}`)).body, request);
    assert.deepEqual((await admin.get(`${CREATE}/${request.id}`)).body, request);
  });

  test('approving an amount change edits the event through editWorkflowEvent: the revision shows it and who approved it', async () => {
    const { deal, investorUserId, event, own } = await committed();
    const request = (
      await own.post(CREATE, { workflowEventId: event.id, type: 'Investment Amount', reason: 'More', newData: { committed_amount: '30000.00' } })
    ).body;
    const approved = await admin.post(`${CREATE}/${request.id}/approve`, { reason: 'Confirmed by phone' });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.status, 'approved');
    assert.equal(approved.body.decidedByUserId, adminUserId);
    assert.equal(approved.body.decisionReason, 'Confirmed by phone');
    assert.match(approved.body.decidedAt, TIMESTAMP);
    assert.deepEqual(Object.keys(approved.body).sort(), FIELDS);
    const edited = (await journeyOf(deal.dealId, investorUserId)).find((e) => e.id === event.id)!;
    assert.deepEqual(edited.data, { committed_amount: '30000.00', currency: 'EUR' }, 'other keys kept');
    const revisions = (await admin.get(`/deals/event/${event.id}/revisions`)).body;
    assert.equal(revisions.length, 2, JSON.stringify(revisions));
    assert.deepEqual(revisions[0].data, { committed_amount: '25000.00', currency: 'EUR' });
    assert.deepEqual(revisions[1].data, { committed_amount: '30000.00', currency: 'EUR' });
    assert.ok(Object.values(revisions[1]).includes(adminUserId), `the approver is recorded: ${JSON.stringify(revisions[1])}`);
    assert.ok(!Object.values(revisions[1]).includes(investorUserId));
  });

  test('rejecting changes nothing but the request; a decided request cannot be decided again (409)', async () => {
    const { deal, investorUserId, event, own } = await committed();
    const request = (await own.post(CREATE, { workflowEventId: event.id, type: 'Investment Amount', reason: 'More', newData: { committed_amount: '1.00' } }))
      .body;
    const rejected = await admin.post(`${CREATE}/${request.id}/reject`);
    assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
    assert.equal(rejected.body.status, 'rejected');
    assert.equal(rejected.body.decisionReason, null);
    assert.equal(rejected.body.decidedByUserId, adminUserId);
    expectProblem(await admin.post(`${CREATE}/${request.id}/approve`, {}), 409);
    expectProblem(await admin.post(`${CREATE}/${request.id}/reject`, { reason: 'again' }), 409);
    assert.equal((await admin.get(`${CREATE}/${request.id}`)).body.status, 'rejected');
    const journey = await journeyOf(deal.dealId, investorUserId);
    assert.deepEqual(journey.find((e) => e.id === event.id)!.data, { committed_amount: '25000.00', currency: 'EUR' });
    assert.equal((await admin.get(`/deals/event/${event.id}/revisions`)).body.length, 1);
  });

  test('two decisions at once: exactly one applies, the other is 409', async () => {
    const { event, own } = await committed();
    const request = (await own.post(CREATE, { workflowEventId: event.id, type: 'Investment Amount', reason: 'r', newData: { committed_amount: '2.00' } })).body;
    const results = await Promise.all([
      admin.post(`${CREATE}/${request.id}/approve`, {}),
      admin.post(`${CREATE}/${request.id}/reject`, {}),
      admin.post(`${CREATE}/${request.id}/approve`, {}),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409]);
    const revisions = (await admin.get(`/deals/event/${event.id}/revisions`)).body;
    const winner = results.find((r) => r.status === 200)!.body.status;
    assert.equal(revisions.length, winner === 'approved' ? 2 : 1);
  });

  test('one pending request per event (409); after a decision a new one may be made', async () => {
    const { event, own } = await committed();
    const first = await own.post(CREATE, { workflowEventId: event.id, type: 'Investment Amount', reason: 'a', newData: { committed_amount: '2.00' } });
    assert.equal(first.status, 201);
    expectProblem(await own.post(CREATE, { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'b' }), 409);
    expectProblem(await admin.post(CREATE, { workflowEventId: event.id, type: 'Investment Amount', reason: 'c', newData: { committed_amount: '3.00' } }), 409);
    await admin.post(`${CREATE}/${first.body.id}/reject`, {});
    assert.equal((await own.post(CREATE, { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'd' })).status, 201);
  });

  test('approving a withdrawal moves the investor to the withdrawn step through the jump', async () => {
    const { deal, investorUserId, event, own } = await committed();
    const request = (await own.post(CREATE, { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'Changed my mind' })).body;
    assert.equal(request.newData, null);
    const approved = await admin.post(`${CREATE}/${request.id}/approve`, { reason: 'Confirmed in writing' });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    const journey = await journeyOf(deal.dealId, investorUserId);
    assert.equal(journey.length, 3);
    const last = journey.at(-1)!;
    assert.equal(last.toStepId, deal.steps.out);
    assert.equal(last.createdByUserId, adminUserId);
    // The decision's reason is recorded on the withdrawal event itself (its first revision), as an
    // approved amount change records it on the edit's revision.
    const [revision, ...more] = (await admin.get(`/deals/event/${last.id}/revisions`)).body;
    assert.equal(more.length, 0);
    assert.equal(revision.reason, `edit request ${request.id} (Withdraw Investment) approved: Confirmed in writing`);
    // An ordinary move records no reason.
    assert.equal((await admin.get(`/deals/event/${event.id}/revisions`)).body[0].reason, null);
    // Already withdrawn: another approved withdrawal has nowhere to go (409), and stays pending.
    const again = (await admin.post(CREATE, { workflowEventId: last.id, type: 'Withdraw Investment', reason: 'x' })).body;
    expectProblem(await admin.post(`${CREATE}/${again.id}/approve`, {}), 409);
    assert.equal((await admin.get(`${CREATE}/${again.id}`)).body.status, 'pending');
  });

  test('approving a withdrawal in a workflow without a withdrawn step: 409, and the request stays pending', async () => {
    const { deal, investorUserId, event, own } = await committed({ withdrawn: false });
    const request = (await own.post(CREATE, { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'Out' })).body;
    const problem = expectProblem(await admin.post(`${CREATE}/${request.id}/approve`, {}), 409);
    assert.match(problem.detail, /withdrawn/);
    assert.equal((await admin.get(`${CREATE}/${request.id}`)).body.status, 'pending');
    assert.equal((await journeyOf(deal.dealId, investorUserId)).length, 2);
    assert.equal((await admin.post(`${CREATE}/${request.id}/reject`, { reason: 'Nothing to withdraw to' })).status, 200);
  });

  test('approving a withdrawal when no withdrawn step is reachable (investor completed): 409', async () => {
    const { deal, investorUserId, event, own } = await committed();
    await jump(admin, deal.dealId, investorUserId, deal.steps.pay);
    await jump(admin, deal.dealId, investorUserId, deal.steps.done);
    const request = (await own.post(CREATE, { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'Out' })).body;
    const problem = expectProblem(await admin.post(`${CREATE}/${request.id}/approve`, {}), 409);
    assert.match(problem.detail, /reachable/);
  });

  test("listInvestorEditRequests: the investor's requests in the deal, newest first, with the interface fields", async () => {
    const { deal, investorUserId, event, own } = await committed();
    const interest = (await journeyOf(deal.dealId, investorUserId))[0]!;
    const r1 = (await own.post(CREATE, { workflowEventId: event.id, type: 'Investment Amount', reason: 'one', newData: { committed_amount: '1.00' } })).body;
    await admin.post(`${CREATE}/${r1.id}/reject`, { reason: 'no' });
    const r2 = (await own.post(CREATE, { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'two' })).body;
    const r3 = (await own.post(CREATE, { workflowEventId: interest.id, type: 'Withdraw Investment', reason: 'three' })).body;
    // Another deal's and another investor's requests are not listed.
    const other = await committed();
    await other.own.post(CREATE, { workflowEventId: other.event.id, type: 'Withdraw Investment', reason: 'elsewhere' });

    const list = await own.get(filtered(deal.dealId, investorUserId));
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(
      list.body.map((r: any) => r.id),
      [r3.id, r2.id, r1.id],
    );
    assert.deepEqual(
      list.body.map((r: any) => r.reason),
      ['three', 'two', 'one'],
    );
    for (const request of list.body) {
      assert.deepEqual(Object.keys(request).sort(), FIELDS);
      assert.match(request.dateRecieved, TIMESTAMP);
    }
    assert.deepEqual(list.body[2], { ...r1, status: 'rejected', decidedAt: list.body[2].decidedAt, decidedByUserId: adminUserId, decisionReason: 'no' });
    assert.deepEqual((await admin.get(filtered(deal.dealId, investorUserId))).body, list.body);
    const none = await createInvestor(admin);
    assert.deepEqual((await admin.get(filtered(deal.dealId, none.id))).body, []);
  });

  test('listInvestorEditRequests: both query parameters required (400); unknown deal or investor 404', async () => {
    const { deal, investorUserId } = await committed();
    for (const query of [`dealId=${deal.dealId}`, `investorUserId=${investorUserId}`, '']) {
      expectProblem(await admin.get(`/deals/request-to-edit/filtered?${query}`), 400);
    }
    expectProblem(await admin.get(filtered(uniqueId('no-deal'), investorUserId)), 404);
    expectProblem(await admin.get(filtered(deal.dealId, uniqueId('nobody'))), 404);
  });

  test('bad requests: newData that does not fit the type (400), an event without an amount (422), unknown event (404)', async () => {
    const { deal, investorUserId, event, own } = await committed();
    const interest = (await journeyOf(deal.dealId, investorUserId))[0]!;
    const cases: [unknown, string[]][] = [
      [{ workflowEventId: event.id, type: 'Investment Amount', reason: 'r' }, ['newData']],
      [{ workflowEventId: event.id, type: 'Investment Amount', reason: 'r', newData: {} }, ['newData']],
      [{ workflowEventId: event.id, type: 'Investment Amount', reason: 'r', newData: { currency: 'USD' } }, ['newData.currency']],
      [{ workflowEventId: event.id, type: 'Investment Amount', reason: 'r', newData: { constructor: '1' } }, ['newData.constructor']],
      [{ workflowEventId: event.id, type: 'Investment Amount', reason: 'r', newData: { committed_amount: 'abc' } }, ['newData.committed_amount']],
      [{ workflowEventId: event.id, type: 'Investment Amount', reason: 'r', newData: { committed_amount: 30000 } }, ['newData.committed_amount']],
      [{ workflowEventId: event.id, type: 'Withdraw Investment', reason: 'r', newData: { committed_amount: '1' } }, ['newData']],
      [{ workflowEventId: event.id, type: 'Change Everything', reason: 'r' }, ['type']],
      [{ workflowEventId: event.id, type: 'Withdraw Investment', reason: '' }, ['reason']],
      [{ workflowEventId: event.id, type: 'Withdraw Investment' }, ['reason']],
      [{ workflowEventId: 'not-a-uuid', type: 'Withdraw Investment', reason: 'r' }, ['workflowEventId']],
      [{ workflowEventId: event.id, type: 'Withdraw Investment', reason: 'r', extra: 1 }, ['extra']],
    ];
    for (const [body, fields] of cases) {
      const problem = expectProblem(await own.post(CREATE, body), 400);
      const named = new Set(problem.errors?.map((e) => e.field));
      // The schema's union (object or null) may add lines about `newData` itself; each field must be named.
      assert.ok(
        fields.every((f) => named.has(f)),
        `${JSON.stringify(body)}: ${JSON.stringify(problem.errors)}`,
      );
    }
    expectProblem(await own.post(CREATE, { workflowEventId: interest.id, type: 'Investment Amount', reason: 'r', newData: { note: '1' } }), 422);
    expectProblem(await own.post(CREATE, { workflowEventId: randomUUID(), type: 'Withdraw Investment', reason: 'r' }), 404);
    // Nothing was created by any of them.
    assert.deepEqual((await admin.get(filtered(deal.dealId, investorUserId))).body, []);
    // Unknown or malformed request ids.
    expectProblem(await admin.get(`${CREATE}/${randomUUID()}`), 404);
    expectProblem(await admin.get(`${CREATE}/not-a-uuid`), 400);
    expectProblem(await admin.post(`${CREATE}/${randomUUID()}/approve`, {}), 404);
    expectProblem(await admin.post(`${CREATE}/${randomUUID()}/reject`), 404);
    expectProblem(await admin.post(`${CREATE}/${randomUUID()}/reject`, { reason: 5 }), 400);
  });

  test("access: an investor cannot touch another investor's events or requests, nor decide any", async () => {
    const mine = await committed();
    const theirs = await committed();
    const theirRequest = (await theirs.own.post(CREATE, { workflowEventId: theirs.event.id, type: 'Withdraw Investment', reason: 'r' })).body;
    // Another investor's event, request or id answers as an unknown one (404); approving is staff's (403).
    expectProblem(await mine.own.post(CREATE, { workflowEventId: theirs.event.id, type: 'Withdraw Investment', reason: 'r' }), 404);
    expectProblem(await mine.own.get(`${CREATE}/${theirRequest.id}`), 404);
    expectProblem(await mine.own.get(filtered(theirs.deal.dealId, theirs.investorUserId)), 404);
    expectProblem(await mine.own.post(`${CREATE}/${theirRequest.id}/approve`, {}), 403);
    const myRequest = (await mine.own.post(CREATE, { workflowEventId: mine.event.id, type: 'Withdraw Investment', reason: 'r' })).body;
    expectProblem(await mine.own.post(`${CREATE}/${myRequest.id}/approve`, {}), 403);
    expectProblem(await mine.own.post(`${CREATE}/${myRequest.id}/reject`, {}), 403);
    assert.equal((await admin.get(`${CREATE}/${myRequest.id}`)).body.status, 'pending');
    // Staff may ask on an investor's behalf.
    const interest = (await journeyOf(theirs.deal.dealId, theirs.investorUserId))[0]!;
    const onBehalf = await admin.post(CREATE, { workflowEventId: interest.id, type: 'Withdraw Investment', reason: 'asked by phone' });
    assert.equal(onBehalf.status, 201, JSON.stringify(onBehalf.body));
    assert.deepEqual((await theirs.own.get(`${CREATE}/${onBehalf.body.id}`)).body, onBehalf.body);
  });

  test('no-pending-edit-requests: a step requiring it cannot be entered while a request is pending', async () => {
    const { deal, investorUserId, event, own } = await committed();
    const request = (await own.post(CREATE, { workflowEventId: event.id, type: 'Investment Amount', reason: 'r', newData: { committed_amount: '9.00' } })).body;
    const blocked = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId, targetStepId: deal.steps.pay, data: {} });
    const problem = expectProblem(blocked, 422);
    assert.match(JSON.stringify(problem), /no-pending-edit-requests/);
    await admin.post(`${CREATE}/${request.id}/approve`, {});
    const moved = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId, targetStepId: deal.steps.pay, data: {} });
    assert.equal(moved.status, 201, JSON.stringify(moved.body));
  });

  test('a pending request elsewhere (another deal) does not block the move', async () => {
    const a = await committed();
    const deal2 = await createDeal(admin, { workflow: 'subscription' });
    const e2 = await commit(admin, deal2, a.investorUserId);
    await a.own.post(CREATE, { workflowEventId: e2.id, type: 'Withdraw Investment', reason: 'r' });
    assert.equal(
      (await admin.post(`/deals/deal/${a.deal.dealId}/jump-to-step`, { investorUserId: a.investorUserId, targetStepId: a.deal.steps.pay, data: {} })).status,
      201,
    );
  });
});
