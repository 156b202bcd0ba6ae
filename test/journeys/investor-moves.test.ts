// An investor moving themselves (POST /deals/deal/{dealId}/jump-to-step with an investor token):
// only along a link open to investors, when the workflow allows it, only for themselves, under
// every jump rule, recorded as their own move; a refusal writes nothing.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { createOpenDeal, investorAtInterest, type OpenDeal, openWorkflow } from '../support/open-deals.ts';

describe('investors moving themselves', () => {
  const t = startApp();
  const admin = t.admin;
  let deal: OpenDeal;
  before(async () => {
    deal = await createOpenDeal(admin);
  });

  const url = (dealId: string) => `/deals/deal/${dealId}/jump-to-step`;
  const journeyOf = async (dealId: string, investorUserId: string) =>
    (await admin.get(`/deals/deal/${dealId}/investor-data/${investorUserId}`)).body.journey as any[];

  test('along an open link, with the target step fields: 201, the event is theirs', async () => {
    const { id, own } = await investorAtInterest(t, admin, deal);
    const me = (await own.get('/whoami')).body;
    const moved = await own.post(url(deal.dealId), {
      investorUserId: id,
      targetStepId: deal.step('commit'),
      data: { committed_amount: '25000.00', currency: 'EUR' },
    });
    assert.equal(moved.status, 201, moved.text);
    assert.equal(moved.body.fromStepId, deal.step('interest'));
    assert.equal(moved.body.toStepId, deal.step('commit'));
    assert.deepEqual(moved.body.data, { committed_amount: '25000.00', currency: 'EUR' });
    assert.equal(moved.body.createdByUserId, me.userId, 'the investor is the principal of the move');
    assert.notEqual(moved.body.createdByUserId, (await admin.get('/whoami')).body.userId);
    const revisions = (await admin.get(`/deals/event/${moved.body.id}/revisions`)).body;
    assert.equal(revisions[0].setByUserId, me.userId);
    assert.equal((await journeyOf(deal.dealId, id)).at(-1).id, moved.body.id);
  });

  test('along a closed link: 403 in plain words, nothing written', async () => {
    const { id, own } = await investorAtInterest(t, admin, deal);
    await jump(admin, deal.dealId, id, deal.step('commit'), { committed_amount: '100.00', currency: 'EUR' });
    const before = await journeyOf(deal.dealId, id);
    const refused = expectProblem(
      await own.post(url(deal.dealId), { investorUserId: id, targetStepId: deal.step('pay'), data: { paid_on: '2026-11-20' } }),
      403,
    );
    assert.equal(refused.detail, 'You cannot move from Commitment to Payment yourself');
    assert.deepEqual(await journeyOf(deal.dealId, id), before);
    // Staff still may.
    await jump(admin, deal.dealId, id, deal.step('pay'));
  });

  test('past an open link to a step further on, or backward: 403', async () => {
    const { id, own } = await investorAtInterest(t, admin, deal);
    const ahead = expectProblem(await own.post(url(deal.dealId), { investorUserId: id, targetStepId: deal.step('out'), data: {} }), 403);
    assert.equal(ahead.detail, 'You cannot move from Interest to Withdrawn yourself');
    await jump(admin, deal.dealId, id, deal.step('commit'), { committed_amount: '100.00', currency: 'EUR' });
    expectProblem(await own.post(url(deal.dealId), { investorUserId: id, targetStepId: deal.step('interest'), data: {} }), 403);
    assert.equal((await journeyOf(deal.dealId, id)).length, 2);
  });

  test('every jump rule still applies: a missing required field 422, a bad value 400, nothing written', async () => {
    const { id, own } = await investorAtInterest(t, admin, deal);
    const missing = expectProblem(
      await own.post(url(deal.dealId), { investorUserId: id, targetStepId: deal.step('commit'), data: { committed_amount: '10.00' } }),
      422,
    );
    assert.deepEqual(missing.missingFields, ['currency']);
    const bad = expectProblem(
      await own.post(url(deal.dealId), { investorUserId: id, targetStepId: deal.step('commit'), data: { committed_amount: 'lots', currency: 'EUR' } }),
      400,
    );
    assert.deepEqual(
      bad.errors?.map((e) => e.field),
      ['data.committed_amount'],
    );
    assert.equal((await journeyOf(deal.dealId, id)).length, 1);
  });

  test('expectedCurrentStepId is honoured: stale 409, current 201', async () => {
    const { id, own } = await investorAtInterest(t, admin, deal);
    await jump(admin, deal.dealId, id, deal.step('commit'), { committed_amount: '100.00', currency: 'EUR' });
    const stale = expectProblem(
      await own.post(url(deal.dealId), { investorUserId: id, targetStepId: deal.step('out'), data: {}, expectedCurrentStepId: deal.step('interest') }),
      409,
    );
    assert.equal(stale.currentStepId, deal.step('commit'));
    const moved = await own.post(url(deal.dealId), {
      investorUserId: id,
      targetStepId: deal.step('out'),
      data: {},
      expectedCurrentStepId: deal.step('commit'),
    });
    assert.equal(moved.status, 201, moved.text);
  });

  test('an Idempotency-Key: the retry answers the first event, one move written', async () => {
    const { id, own } = await investorAtInterest(t, admin, deal);
    const body = { investorUserId: id, targetStepId: deal.step('commit'), data: { committed_amount: '50.00', currency: 'EUR' } };
    const key = uniqueId('key');
    const first = await own.post(url(deal.dealId), body, { 'idempotency-key': key });
    const again = await own.post(url(deal.dealId), body, { 'idempotency-key': key });
    assert.equal(first.status, 201, first.text);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.id, first.body.id);
    assert.equal((await journeyOf(deal.dealId, id)).length, 2);
  });

  test('a dry run answers the investor as the move would', async () => {
    const { id, own } = await investorAtInterest(t, admin, deal);
    const dry = await own.post(`${url(deal.dealId)}?dryRun=true`, {
      investorUserId: id,
      targetStepId: deal.step('commit'),
      data: { committed_amount: '5.00', currency: 'EUR' },
    });
    assert.equal(dry.status, 200, dry.text);
    expectProblem(await own.post(`${url(deal.dealId)}?dryRun=true`, { investorUserId: id, targetStepId: deal.step('out'), data: {} }), 403);
    assert.equal((await journeyOf(deal.dealId, id)).length, 1);
  });

  test('a workflow without investor engagement: 403, nothing written', async () => {
    const closed = await createOpenDeal(admin, { engagement: false });
    const { id, own } = await investorAtInterest(t, admin, closed);
    const refused = expectProblem(
      await own.post(url(closed.dealId), { investorUserId: id, targetStepId: closed.step('commit'), data: { committed_amount: '1.00', currency: 'EUR' } }),
      403,
    );
    assert.equal(refused.detail, 'This deal does not let investors move themselves');
    assert.equal((await journeyOf(closed.dealId, id)).length, 1);
  });

  test("another investor's id: 404 exactly as an unknown investor id, nothing written", async () => {
    const mine = await investorAtInterest(t, admin, deal);
    const theirs = await investorAtInterest(t, admin, deal);
    const unknown = uniqueId('inv');
    const move = (investorUserId: string) =>
      mine.own.post(url(deal.dealId), { investorUserId, targetStepId: deal.step('commit'), data: { committed_amount: '1.00', currency: 'EUR' } });
    const other = expectProblem(await move(theirs.id), 404);
    const none = expectProblem(await move(unknown), 404);
    assert.deepEqual(
      { ...other, detail: other.detail.replace(theirs.id, '<id>'), instance: undefined, requestId: undefined },
      { ...none, detail: none.detail.replace(unknown, '<id>'), instance: undefined, requestId: undefined },
    );
    assert.equal((await journeyOf(deal.dealId, theirs.id)).length, 1);
  });

  test('a deal they have no journey in: 404 exactly as an unknown deal; they cannot enter it themselves', async () => {
    const { id } = await createInvestor(admin);
    const own = client(t.app, await t.investorToken(id));
    const unknown = uniqueId('deal');
    const move = (dealId: string, target: string) => own.post(url(dealId), { investorUserId: id, targetStepId: target, data: {} });
    const known = expectProblem(await move(deal.dealId, deal.step('interest')), 404);
    const none = expectProblem(await move(unknown, `${unknown}.interest`), 404);
    assert.deepEqual([known.type, known.title, known.detail.replace(deal.dealId, '<id>')], [none.type, none.title, none.detail.replace(unknown, '<id>')]);
    assert.deepEqual(
      (await admin.get(`/deals/deal/${deal.dealId}/all-payment-refernces`)).body.filter((r: any) => r.investorUserId === id),
      [],
    );
  });

  test('moves arriving together (one group commit): each keeps its own principal and answer', async () => {
    const [a, b, c] = [await investorAtInterest(t, admin, deal), await investorAtInterest(t, admin, deal), await investorAtInterest(t, admin, deal)];
    const staffMoved = await createInvestor(admin);
    const [userA, userB] = [(await a.own.get('/whoami')).body.userId, (await b.own.get('/whoami')).body.userId];
    const commit = { committed_amount: '10.00', currency: 'EUR' };
    const answers = await Promise.all([
      a.own.post(url(deal.dealId), { investorUserId: a.id, targetStepId: deal.step('commit'), data: commit }),
      b.own.post(url(deal.dealId), { investorUserId: b.id, targetStepId: deal.step('commit'), data: commit }),
      c.own.post(url(deal.dealId), { investorUserId: c.id, targetStepId: deal.step('out'), data: {} }),
      c.own.post(url(deal.dealId), { investorUserId: staffMoved.id, targetStepId: deal.step('interest'), data: {} }),
      admin.post(url(deal.dealId), { investorUserId: staffMoved.id, targetStepId: deal.step('interest'), data: {} }),
    ]);
    assert.deepEqual(
      answers.map((r) => r.status),
      [201, 201, 403, 404, 201],
      answers.map((r) => r.text).join('\n'),
    );
    assert.equal(answers[0]!.body.createdByUserId, userA);
    assert.equal(answers[1]!.body.createdByUserId, userB);
    assert.equal(answers[4]!.body.createdByUserId, (await admin.get('/whoami')).body.userId);
    assert.equal((await journeyOf(deal.dealId, c.id)).length, 1);
  });

  test('bulk moves stay staff only', async () => {
    const { id, own } = await investorAtInterest(t, admin, deal);
    expectProblem(
      await own.post(`${url(deal.dealId)}/bulk`, {
        moves: [{ investorUserId: id, targetStepId: deal.step('commit'), data: { committed_amount: '1.00', currency: 'EUR' } }],
      }),
      403,
    );
  });
});

describe('investorMay on the workflow', () => {
  const t = startApp();
  const admin = t.admin;

  test('returned on every link (false by default), and opening a link alone makes a new version', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const v1 = (await admin.get(`/deals/deal/${deal.dealId}/workflow-status`)).body;
    const links = v1.steps.flatMap((s: any) => [...s.previousStepLinks, ...s.nextStepLinks]);
    assert.ok(links.length > 0 && links.every((l: any) => l.investorMay === false), JSON.stringify(links));
    const opened = openWorkflow(deal.dealId);
    const check = await admin.post(`/console/deals/${deal.dealId}/workflow/check`, opened);
    assert.equal(check.status, 200, check.text);
    assert.deepEqual(check.body.changes.map((c: any) => c.kind).sort(), ['link-opened-to-investors', 'link-opened-to-investors']);
    const put = await admin.put(`/deals/deal/${deal.dealId}/workflow`, opened);
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.version, v1.version + 1);
    const commit = put.body.steps.find((s: any) => s.id === deal.steps.commit);
    assert.deepEqual(Object.fromEntries(commit.nextStepLinks.map((l: any) => [l.toStepId, l.investorMay])), {
      [deal.steps.pay]: false,
      [deal.steps.out]: true,
    });
    assert.deepEqual(
      commit.previousStepLinks.map((l: any) => l.investorMay),
      [true],
    );
    // The earlier version keeps its closed links.
    const old = (await admin.get(`/deals/deal/${deal.dealId}/workflow-status?version=${v1.version}`)).body;
    assert.ok(old.steps.flatMap((s: any) => s.nextStepLinks).every((l: any) => l.investorMay === false));
    // Investors read it too.
    const investor = await deal.addInvestor();
    await jump(admin, deal.dealId, investor, deal.steps.interest);
    const seen = (await client(t.app, await t.investorToken(investor)).get(`/deals/deal/${deal.dealId}/workflow-status`)).body;
    const seenLinks = seen.steps.find((s: any) => s.id === deal.steps.commit).nextStepLinks;
    assert.deepEqual(Object.fromEntries(seenLinks.map((l: any) => [l.toStepId, l.investorMay])), { [deal.steps.pay]: false, [deal.steps.out]: true });
  });

  test('investorMay must be a boolean (400)', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const body = openWorkflow(deal.dealId);
    const bad = { ...body, links: body.links.map((l, i) => (i === 0 ? { ...l, investorMay: 'yes' } : l)) };
    const refused = expectProblem(await admin.put(`/deals/deal/${deal.dealId}/workflow`, bad), 400);
    assert.ok(
      refused.errors?.some((e) => e.field.includes('investorMay')),
      JSON.stringify(refused.errors),
    );
  });
});
