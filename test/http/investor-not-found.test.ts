// An investor learns nothing about what is not theirs: for an investor token, a deal they have no
// journey in, and a step, event, edit request or form implementation of another investor, answers
// exactly as an unknown id does (status, problem type, title, and detail but for the id), and so
// does another investor's id in a path or query. Role-level refusals (an admin-only route) stay 403.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { client, type Client, expectProblem, startApp } from '../support/app.ts';
import { commit, createDeal, createInvestor, jump, type SubscriptionDeal } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

type Response = Awaited<ReturnType<Client['get']>>;

/** Status, type, title and detail with the id replaced: what the caller can tell apart. */
const visible = (response: Response, id: string) => {
  const problem = expectProblem(response, response.status);
  return { status: problem.status, type: problem.type, title: problem.title, detail: problem.detail.split(id).join('<id>') };
};

function assertIndistinguishable(theirs: Response, theirId: string, unknown: Response, unknownId: string) {
  assert.equal(theirs.status, 404, `expected 404 for another's record: ${theirs.text}`);
  assert.deepEqual(visible(theirs, theirId), visible(unknown, unknownId));
}

describe("investors cannot tell another's records from unknown ones", () => {
  const t = startApp();
  const admin = t.admin;
  let deal: SubscriptionDeal;
  let other: SubscriptionDeal;
  let me: string;
  let them: string;
  let mine: Client;
  let theirEventId: string;
  let theirRequestId: string;
  before(async () => {
    deal = await createDeal(admin, { workflow: 'subscription' });
    other = await createDeal(admin, { workflow: 'subscription' });
    me = (await createInvestor(admin)).id;
    them = (await createInvestor(admin)).id;
    await jump(admin, deal.dealId, me, deal.steps.interest);
    const event = await commit(admin, other, them);
    theirEventId = event.id;
    const request = await client(t.app, await t.investorToken(them)).post('/deals/request-to-edit', {
      workflowEventId: theirEventId,
      type: 'Withdraw Investment',
      reason: 'changed my mind',
    });
    assert.equal(request.status, 201, request.text);
    theirRequestId = request.body.id;
    mine = client(t.app, await t.investorToken(me));
  });

  test('workflow-status of a deal they are not in', async () => {
    const unknown = uniqueId('deal');
    assertIndistinguishable(
      await mine.get(`/deals/deal/${other.dealId}/workflow-status`),
      other.dealId,
      await mine.get(`/deals/deal/${unknown}/workflow-status`),
      unknown,
    );
    assert.equal((await mine.get(`/deals/deal/${deal.dealId}/workflow-status`)).status, 200, 'the control: their own deal');
  });

  test('investor-data with their own id in a deal they are not in', async () => {
    const unknown = uniqueId('deal');
    assertIndistinguishable(
      await mine.get(`/deals/deal/${other.dealId}/investor-data/${me}`),
      other.dealId,
      await mine.get(`/deals/deal/${unknown}/investor-data/${me}`),
      unknown,
    );
    assert.equal((await mine.get(`/deals/deal/${deal.dealId}/investor-data/${me}`)).status, 200);
  });

  test('request-to-edit/filtered with their own id in a deal they are not in', async () => {
    const unknown = uniqueId('deal');
    const url = (dealId: string) => `/deals/request-to-edit/filtered?dealId=${dealId}&investorUserId=${me}`;
    assertIndistinguishable(await mine.get(url(other.dealId)), other.dealId, await mine.get(url(unknown)), unknown);
    assert.equal((await mine.get(url(deal.dealId))).status, 200);
  });

  test("another investor's event: revisions and a new edit request", async () => {
    const unknown = randomUUID();
    assertIndistinguishable(
      await mine.get(`/deals/event/${theirEventId}/revisions`),
      theirEventId,
      await mine.get(`/deals/event/${unknown}/revisions`),
      unknown,
    );
    const ask = (id: string) => mine.post('/deals/request-to-edit', { workflowEventId: id, type: 'Withdraw Investment', reason: 'probe' });
    assertIndistinguishable(await ask(theirEventId), theirEventId, await ask(unknown), unknown);
    // Nothing was created by the probe.
    assert.deepEqual(
      (await admin.get(`/deals/request-to-edit/filtered?dealId=${other.dealId}&investorUserId=${them}`)).body.map((r: any) => r.id),
      [theirRequestId],
    );
  });

  test("another investor's edit request", async () => {
    const unknown = randomUUID();
    assertIndistinguishable(
      await mine.get(`/deals/request-to-edit/${theirRequestId}`),
      theirRequestId,
      await mine.get(`/deals/request-to-edit/${unknown}`),
      unknown,
    );
  });

  test('a step (and so a form implementation) of a deal they are not in', async () => {
    const unknown = uniqueId('step');
    const url = (stepId: string) => `/deals/workflow/step/${stepId}/investor-form-implementation`;
    assertIndistinguishable(await mine.get(url(other.steps.commit)), other.steps.commit, await mine.get(url(unknown)), unknown);
    assert.equal((await mine.get(url(deal.steps.commit))).status, 200, 'the control: a step of their own deal');
  });

  test("another investor's id: directory entry, journey, edit requests and form implementation", async () => {
    const unknown = uniqueId('inv');
    assertIndistinguishable(await mine.get(`/investors/${them}`), them, await mine.get(`/investors/${unknown}`), unknown);
    const journey = (id: string) => mine.get(`/deals/deal/${other.dealId}/investor-data/${id}`);
    assertIndistinguishable(await journey(them), them, await journey(unknown), unknown);
    const requests = (id: string) => mine.get(`/deals/request-to-edit/filtered?dealId=${other.dealId}&investorUserId=${id}`);
    assertIndistinguishable(await requests(them), them, await requests(unknown), unknown);
    const form = (id: string) => mine.get(`/deals/workflow/step/${deal.steps.commit}/investor-form-implementation?investorUserId=${id}`);
    assertIndistinguishable(await form(them), them, await form(unknown), unknown);
  });

  test('role-level refusals stay 403: an admin-only route', async () => {
    expectProblem(await mine.get(`/deals/deal/${deal.dealId}/all-investor-workflows`), 403);
    expectProblem(await mine.post(`/deals/request-to-edit/${theirRequestId}/approve`, {}), 403);
  });
});
