// The operations console's read models through HTTP: the investor directory (search, paging), the
// inbox of pending edit requests across deals (oldest first, with the values they would replace),
// names for actor ids, the reason stored with an edit of an event's data, and who may call them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { commit, createDeal, createInvestor } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

describe('console read models', () => {
  const t = startApp();
  const admin = t.admin;

  test('the directory pages investors by name and finds them by name, e-mail or id', async () => {
    const surname = uniqueId('Dir').replace('-', '');
    const made = [];
    for (const forename of ['Cleo', 'Ada', 'Bea'])
      made.push(
        await createInvestor(admin, {
          forename,
          surname,
          email: `${forename}.${surname}@example.com`.toLowerCase(),
          kycCheckLevel: 2,
          classes: ['professional'],
        }),
      );
    const first = await admin.get(`/console/investors?query=${surname}&limit=2`);
    assert.equal(first.status, 200);
    assert.equal(first.body.total, 3);
    assert.equal(first.body.totalPages, 2);
    assert.deepEqual(
      first.body.output.map((e: { fullName: string }) => e.fullName),
      [`Ada ${surname}`, `Bea ${surname}`],
    );
    const entry = first.body.output[0];
    assert.equal(entry.kycCheckLevel, 2);
    assert.equal(entry.deals, 0);
    assert.equal(entry.email, `ada.${surname}@example.com`.toLowerCase());
    assert.ok(Array.isArray(entry.classifications) && entry.classifications.length === 1, JSON.stringify(entry));
    const second = await admin.get(`/console/investors?query=${surname}&limit=2&page=2`);
    assert.deepEqual(
      second.body.output.map((e: { fullName: string }) => e.fullName),
      [`Cleo ${surname}`],
    );
    const beyond = await admin.get(`/console/investors?query=${surname}&limit=2&page=5`);
    assert.deepEqual([beyond.body.output, beyond.body.total], [[], 3]);
    const byId = await admin.get(`/console/investors?query=${made[1]!.id}`);
    assert.deepEqual(
      byId.body.output.map((e: { id: string }) => e.id),
      [made[1]!.id],
    );
    // LIKE wildcards are taken literally.
    assert.equal((await admin.get(`/console/investors?query=${encodeURIComponent('%')}`)).body.total, 0);
    expectProblem(await admin.get('/console/investors?limit=101'), 400);
  });

  test('the inbox lists pending requests across deals oldest first, with the event data they would change, and drops decided ones', async () => {
    const a = await createDeal(admin, { workflow: 'subscription' });
    const b = await createDeal(admin, { workflow: 'subscription' });
    const one = await createInvestor(admin, { forename: 'Inbox', surname: 'One' });
    const two = await createInvestor(admin, { forename: 'Inbox', surname: 'Two' });
    const eventOne = await commit(admin, a, one.id);
    const eventTwo = await commit(admin, b, two.id);
    const own = client(t.app, await t.investorToken(one.id));
    const first = await own.post('/deals/request-to-edit', {
      workflowEventId: eventOne.id,
      type: 'Investment Amount',
      reason: 'Bonus',
      newData: { committed_amount: '30000.00' },
    });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const second = await admin.post('/deals/request-to-edit', { workflowEventId: eventTwo.id, type: 'Withdraw Investment', reason: 'Changed plans' });
    assert.equal(second.status, 201, JSON.stringify(second.body));

    const inbox = await admin.get('/console/edit-requests?limit=100');
    assert.equal(inbox.status, 200);
    const mine = inbox.body.output.filter((r: { id: string }) => r.id === first.body.id || r.id === second.body.id);
    assert.deepEqual(
      mine.map((r: { id: string }) => r.id),
      [first.body.id, second.body.id],
      'oldest first',
    );
    assert.equal(mine[0].dealId, a.dealId);
    assert.equal(mine[0].dealName, `Deal ${a.dealId}`);
    assert.equal(mine[0].investorFullName, 'Inbox One');
    assert.deepEqual(mine[0].newData, { committed_amount: '30000.00' });
    assert.equal(mine[0].event.toStepId, a.steps.commit);
    assert.equal(mine[0].event.toStepLabel, 'Commitment');
    assert.equal(mine[0].event.data.committed_amount, eventOne.data.committed_amount);
    assert.equal(mine[1].newData, null);

    const ofDeal = await admin.get(`/console/edit-requests?dealId=${b.dealId}`);
    assert.deepEqual(
      ofDeal.body.output.map((r: { id: string }) => r.id),
      [second.body.id],
    );
    assert.equal(ofDeal.body.total, 1);

    assert.equal((await admin.post(`/deals/request-to-edit/${first.body.id}/reject`, { reason: 'No' })).status, 200);
    const after = await admin.get('/console/edit-requests?limit=100');
    assert.ok(!after.body.output.some((r: { id: string }) => r.id === first.body.id), 'a decided request leaves the inbox');
    expectProblem(await admin.get(`/console/edit-requests?dealId=${uniqueId('nope')}`), 404);
  });

  test('people: API keys are named by their id, unknown ids are left out, and at most 100 ids are read', async () => {
    const me = (await admin.get('/whoami')).body.userId;
    const response = await admin.get(`/console/people?ids=${me},someone-else,00000000-0000-4000-8000-000000000000`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, [{ id: me, name: 'test admin' }]);
    const many = Array.from({ length: 101 }, (_, n) => `id-${n}`).join(',');
    expectProblem(await admin.get(`/console/people?ids=${many}`), 400);
    expectProblem(await admin.get('/console/people'), 400);
  });

  test('an edit of an event stores the reason given with the new revision', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const investor = await createInvestor(admin);
    const event = await commit(admin, deal, investor.id);
    const edited = await admin.post(`/deals/event/${event.id}/edit?reason=${encodeURIComponent('Typo in the amount')}`, {
      ...event.data,
      committed_amount: '26000.00',
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    const revisions = (await admin.get(`/deals/event/${event.id}/revisions`)).body;
    assert.equal(revisions.at(-1).reason, 'Typo in the amount');
    assert.equal(revisions.at(-1).data.committed_amount, '26000.00');
    expectProblem(await admin.post(`/deals/event/${event.id}/edit?reason=`, event.data), 400);
  });

  test("a deal's rows filter by amount range, currency, KYC level, class, pending request and step, and sort by name, amount and days", async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const people: Record<string, string> = {};
    const add = async (forename: string, options: { amount?: string; currency?: string; kyc?: number; classes?: string[] }) => {
      const investor = await createInvestor(admin, { forename, surname: 'Row', kycCheckLevel: options.kyc ?? 1, classes: options.classes ?? ['retail'] });
      people[forename] = investor.id;
      if (options.amount) {
        await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor.id, targetStepId: deal.steps.interest, data: {} });
        const event = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
          investorUserId: investor.id,
          targetStepId: deal.steps.commit,
          data: { committed_amount: options.amount, currency: options.currency ?? 'EUR' },
        });
        assert.equal(event.status, 201, JSON.stringify(event.body));
        return event.body;
      }
      assert.equal(
        (await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor.id, targetStepId: deal.steps.interest, data: {} })).status,
        201,
      );
      return undefined;
    };
    await add('Ann', {});
    const bob = await add('Bob', { amount: '100000.00', kyc: 3, classes: ['professional'] });
    await add('Cat', { amount: '2500.50', currency: 'GBP', kyc: 2 });
    await add('Dan', { amount: '9.99' });
    await admin.post('/deals/request-to-edit', {
      workflowEventId: bob!.id,
      type: 'Investment Amount',
      reason: 'More',
      newData: { committed_amount: '120000.00' },
    });

    const names = async (query: string) => {
      const response = await admin.get(`/console/deals/${deal.dealId}/rows?${query}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body.output.map((r: { fullName: string }) => r.fullName.split(' ')[0]);
    };
    assert.deepEqual(await names(''), ['Ann', 'Bob', 'Cat', 'Dan']);
    assert.deepEqual(await names('sort=amount&order=desc'), ['Bob', 'Cat', 'Dan', 'Ann'], 'no amount sorts last');
    assert.deepEqual(await names('sort=amount'), ['Dan', 'Cat', 'Bob', 'Ann']);
    assert.deepEqual(await names('minAmount=10&maxAmount=100000'), ['Bob', 'Cat']);
    assert.deepEqual(await names('currency=GBP'), ['Cat']);
    assert.deepEqual(await names('minKycLevel=2'), ['Bob', 'Cat']);
    assert.deepEqual(await names('classification=PROFESSIONAL'), ['Bob']);
    assert.deepEqual(await names('pending=true'), ['Bob']);
    assert.deepEqual(await names('pending=false'), ['Ann', 'Cat', 'Dan']);
    assert.deepEqual(await names(`stepId=${encodeURIComponent(deal.steps.interest)}`), ['Ann']);
    assert.deepEqual(await names('minDays=0&maxDays=0'), ['Ann', 'Bob', 'Cat', 'Dan'], 'everyone moved today');
    assert.deepEqual(await names('minDays=1'), []);
    assert.deepEqual(await names('order=desc&limit=2&page=2'), ['Bob', 'Ann']);

    const filtered = (await admin.get(`/console/deals/${deal.dealId}/rows?currency=EUR&limit=1`)).body;
    // Ann has no amount yet; her currency is the deal's (EUR), as on her card.
    assert.equal(filtered.total, 3);
    assert.equal(filtered.totalPages, 3);
    assert.deepEqual(filtered.committed, [{ currency: 'EUR', amount: '100009.99' }], 'totals are exact and cover every filtered row, not the page');
    const bobRow = (await admin.get(`/console/deals/${deal.dealId}/rows?pending=true`)).body.output[0];
    assert.deepEqual(
      [bobRow.investorUserId, bobRow.kycCheckLevel, bobRow.classifications, bobRow.pendingEditRequests, bobRow.committedAmount, bobRow.currency, bobRow.stepId],
      [people.Bob, 3, ['Professional'], 1, '100000.00', 'EUR', deal.steps.commit],
    );

    for (const bad of ['minAmount=-1', 'minAmount=1e5', 'currency=eur', 'sort=email', 'minDays=-1', 'pending=maybe', 'limit=0']) {
      expectProblem(await admin.get(`/console/deals/${deal.dealId}/rows?${bad}`), 400);
    }
    expectProblem(await admin.get(`/console/deals/${uniqueId('nope')}/rows`), 404);
    expectProblem(await admin.get(`/console/deals/${deal.dealId}/rows?stepId=not-a-step`), 404);
  });

  test('a workflow check names each problem by field and what a change means for investors on it, and writes nothing', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const investor = await createInvestor(admin);
    await commit(admin, deal, investor.id);
    const current = (await admin.get(`/deals/deal/${deal.dealId}/workflow-status`)).body;
    const document = {
      label: current.label,
      description: current.description,
      investorEngagementEnabled: true,
      steps: current.steps.map((s: { id: string; label: string; type: string; stepFields: object[]; requirements: object[]; formId: string | null }) => ({
        id: s.id,
        label: s.label,
        type: s.type,
        stepFields: s.stepFields,
        requirements: s.requirements,
        formId: s.formId,
      })),
      links: current.steps.flatMap((s: { nextStepLinks: object[] }) => s.nextStepLinks),
    };
    const same = await admin.post(`/console/deals/${deal.dealId}/workflow/check`, document);
    assert.equal(same.status, 200, JSON.stringify(same.body));
    assert.deepEqual(same.body, { valid: true, investors: 1, problems: [], changes: [] });

    // Removing the step the investor stands on, a duplicate field key and a cycle.
    const broken = {
      ...document,
      steps: document.steps
        .filter((s: { id: string }) => s.id !== deal.steps.commit)
        .map((s: { id: string; stepFields: object[] }) =>
          s.id === deal.steps.pay
            ? {
                ...s,
                stepFields: [
                  { fieldKey: 'x', required: false },
                  { fieldKey: 'x', required: false },
                ],
              }
            : s,
        ),
      links: [
        { fromStepId: deal.steps.interest, toStepId: deal.steps.pay },
        { fromStepId: deal.steps.pay, toStepId: deal.steps.done },
        { fromStepId: deal.steps.done, toStepId: deal.steps.pay },
        { fromStepId: deal.steps.pay, toStepId: 'nowhere' },
      ],
    };
    const checked = await admin.post(`/console/deals/${deal.dealId}/workflow/check`, broken);
    assert.equal(checked.status, 200);
    assert.equal(checked.body.valid, false);
    const fields = checked.body.problems.map((p: { field: string }) => p.field);
    assert.ok(fields.includes('steps.1.stepFields.1.fieldKey'), JSON.stringify(fields));
    assert.ok(fields.includes('links.3.toStepId'), JSON.stringify(fields));
    assert.ok(
      checked.body.problems.some((p: { detail: string }) => /cycle/.test(p.detail)),
      JSON.stringify(checked.body.problems),
    );
    const removed = checked.body.changes.find((c: { kind: string }) => c.kind === 'step-removed');
    assert.deepEqual([removed.stepId, removed.investors, removed.blocking], [deal.steps.commit, 1, true]);
    // The PUT agrees, and nothing was saved by the check.
    expectProblem(await admin.put(`/deals/deal/${deal.dealId}/workflow`, broken), 400);
    assert.equal((await admin.get(`/deals/deal/${deal.dealId}/workflow-status`)).body.version, current.version);

    const other = await createDeal(admin, { workflow: 'subscription' });
    const stolen = await admin.post(`/console/deals/${deal.dealId}/workflow/check`, {
      ...document,
      steps: [...document.steps, { id: other.steps.interest, label: 'Theirs', type: 'default', stepFields: [] }],
    });
    assert.ok(
      stolen.body.problems.some((p: { detail: string }) => /another deal/.test(p.detail)),
      JSON.stringify(stolen.body),
    );
    expectProblem(await admin.post(`/console/deals/${uniqueId('nope')}/workflow/check`, document), 404);
    expectProblem(await admin.post(`/console/deals/${deal.dealId}/workflow/check`, { label: 'x' }), 400);
  });

  test('the console read models are for admins: an investor token gets 403', async () => {
    const investor = await createInvestor(admin);
    const own = client(t.app, await t.investorToken(investor.id));
    for (const path of ['/console/investors', '/console/deals/x/rows', '/console/edit-requests', `/console/people?ids=${investor.id}`])
      expectProblem(await own.get(path), 403);
  });
});
