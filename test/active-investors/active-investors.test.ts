// listActiveInvestors: POST /deals/deal/all-transactions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { commit, createDeal, createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

const URL = '/deals/deal/all-transactions';

describe('active investors (listActiveInvestors)', () => {
  const t = startApp();
  const admin = t.admin;

  /** A surname shared by this test's investors only, so a search isolates them. */
  const family = () => uniqueId('Zed').replace('-', '');

  test('counts across complete, in-progress and withdrawn journeys; shape field by field', async () => {
    const surname = family();
    const a = await createInvestor(admin, { forename: 'Ada', surname });
    const b = await createInvestor(admin, { forename: 'Bea', surname });
    const [d1, d2, d3, d4] = [
      await createDeal(admin, { workflow: 'subscription' }),
      await createDeal(admin, { workflow: 'subscription' }),
      await createDeal(admin, { workflow: 'subscription' }),
      await createDeal(admin, { workflow: 'subscription' }),
    ];
    // Ada: complete in d1, in progress in d2 (commit) and d4 (pay), withdrawn in d3.
    await commit(admin, d1, a.id);
    await jump(admin, d1.dealId, a.id, d1.steps.pay);
    await jump(admin, d1.dealId, a.id, d1.steps.done);
    await commit(admin, d2, a.id);
    await commit(admin, d3, a.id);
    await jump(admin, d3.dealId, a.id, d3.steps.out);
    await commit(admin, d4, a.id);
    await jump(admin, d4.dealId, a.id, d4.steps.pay);
    // Bea: one journey, at the first step.
    await jump(admin, d1.dealId, b.id, d1.steps.interest);

    const response = await admin.post(URL, { nameOrEmail: surname });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.deepEqual(Object.keys(response.body).sort(), ['output', 'page', 'totalPages']);
    assert.equal(response.body.page, 1);
    assert.equal(response.body.totalPages, 1);
    assert.deepEqual(response.body.output, [
      { investor: { id: a.id, ...a.body }, dealsCompletedCount: '1', dealsInProgressCount: '2', dealsTotal: '4' },
      { investor: { id: b.id, ...b.body }, dealsCompletedCount: '0', dealsInProgressCount: '1', dealsTotal: '1' },
    ]);
    const [entry] = response.body.output;
    assert.deepEqual(Object.keys(entry).sort(), ['dealsCompletedCount', 'dealsInProgressCount', 'dealsTotal', 'investor']);
    assert.deepEqual(Object.keys(entry.investor).sort(), ['contact', 'dataSource', 'id', 'kycCheckLevel', 'remoteId', 'teamUserId']);
    assert.deepEqual(Object.keys(entry.investor.contact).sort(), [
      'classifications',
      'compliance',
      'contact',
      'externalId',
      'fullName',
      'guid',
      'name',
      'profilePhotoFileKey',
      'status',
      'tfaEnabled',
      'userType',
      'username',
    ]);
    for (const count of ['dealsCompletedCount', 'dealsInProgressCount', 'dealsTotal']) assert.equal(typeof entry[count], 'string');
  });

  test('inactive investors and investors without a journey are left out', async () => {
    const surname = family();
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const active = await createInvestor(admin, { forename: 'Cai', surname });
    const inactive = await createInvestor(admin, { forename: 'Dan', surname });
    await createInvestor(admin, { forename: 'Eve', surname }); // active, never moved
    await jump(admin, deal.dealId, active.id, deal.steps.interest);
    await jump(admin, deal.dealId, inactive.id, deal.steps.interest);
    const deactivated = await admin.put(`/investors/${inactive.id}`, { ...inactive.body, contact: { ...inactive.body.contact, status: 'inactive' } });
    assert.equal(deactivated.status, 200);
    const response = await admin.post(URL, { nameOrEmail: surname });
    assert.deepEqual(
      response.body.output.map((e: any) => e.investor.id),
      [active.id],
    );
  });

  test('paging: limit, pages, a page past the end, bad limits and pages', async () => {
    const surname = family();
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const ids: string[] = [];
    for (const forename of ['Fay', 'Gus', 'Hal']) {
      const investor = await createInvestor(admin, { forename, surname });
      await jump(admin, deal.dealId, investor.id, deal.steps.interest);
      ids.push(investor.id);
    }
    const page = async (query: string) => (await admin.post(`${URL}?${query}`, { nameOrEmail: surname })).body;
    assert.deepEqual(await page('limit=2&page=1').then((b) => [b.output.map((e: any) => e.investor.id), b.page, b.totalPages]), [ids.slice(0, 2), 1, 2]);
    assert.deepEqual(await page('limit=2&page=2').then((b) => [b.output.map((e: any) => e.investor.id), b.page, b.totalPages]), [ids.slice(2), 2, 2]);
    assert.deepEqual(await page('limit=2&page=3'), { output: [], page: 3, totalPages: 2 });
    // The shared bound of every paged route (schemas/paging.ts): the last page allowed is empty, one past it a 400.
    assert.deepEqual(await page('limit=2&page=10000000'), { output: [], page: 10000000, totalPages: 2 });
    expectProblem(await admin.post(`${URL}?limit=2&page=9007199254740991`, {}), 400);
    assert.equal((await page('limit=100')).output.length, 3);
    for (const bad of ['page=0', 'limit=0', 'limit=101', 'limit=abc', 'page=-1']) {
      expectProblem(await admin.post(`${URL}?${bad}`, {}), 400);
    }
    const none = await admin.post(URL, { nameOrEmail: uniqueId('nobody-matches') });
    assert.deepEqual(none.body, { output: [], page: 1, totalPages: 0 });
  });

  test('nameOrEmail: case-insensitive, anywhere in the full name or e-mail; LIKE wildcards taken literally', async () => {
    const surname = family();
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const ivy = await createInvestor(admin, { forename: 'Ivy', surname, email: `ivy.${surname.toLowerCase()}@mail.example` });
    const jon = await createInvestor(admin, { forename: 'Jon', surname, email: null });
    for (const investor of [ivy, jon]) await jump(admin, deal.dealId, investor.id, deal.steps.interest);
    const search = async (nameOrEmail: string) => (await admin.post(URL, { nameOrEmail })).body.output.map((e: any) => e.investor.id);
    assert.deepEqual(await search(surname.toUpperCase()), [ivy.id, jon.id]);
    assert.deepEqual(await search(`jon ${surname.toLowerCase()}`), [jon.id], 'full name, other case');
    assert.deepEqual(await search(`${surname.toLowerCase().slice(2)}@MAIL.EX`), [ivy.id], 'part of the e-mail');
    assert.deepEqual(await search(`${surname}%`), [], '% is not a wildcard');
    assert.deepEqual(await search(`Iv_ ${surname}`), [], '_ is not a wildcard');
    assert.deepEqual(await search(`  ${surname}  `), [ivy.id, jon.id], 'surrounding spaces are ignored');
  });

  test('the body is optional: none at all, empty, {} or null nameOrEmail; unknown properties are 400', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const investor = await createInvestor(admin, { forename: 'Kim', surname: family() });
    await jump(admin, deal.dealId, investor.id, deal.steps.interest);
    const noBody = await admin.raw({ method: 'POST', url: `${URL}?limit=100`, headers: { authorization: `Bearer ${t.adminToken}` } });
    assert.equal(noBody.statusCode, 200, noBody.body);
    assert.ok(JSON.parse(noBody.body).totalPages >= 1);
    const empty = await admin.raw({
      method: 'POST',
      url: URL,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal(empty.statusCode, 200, empty.body);
    assert.equal((await admin.post(URL, {})).status, 200);
    assert.equal((await admin.post(URL, { nameOrEmail: null })).status, 200);
    assert.equal((await admin.post(URL, { nameOrEmail: '' })).status, 200);
    const unknown = expectProblem(await admin.post(URL, { name: 'x' }), 400);
    assert.deepEqual(
      unknown.errors?.map((e) => e.field),
      ['name'],
    );
    expectProblem(await admin.post(URL, { nameOrEmail: 5 }), 400);
    expectProblem(await admin.post(URL, '[]'), 400);
  });

  test('admin only: an investor token gets 403', async () => {
    const investor = await createInvestor(admin);
    expectProblem(await client(t.app, await t.investorToken(investor.id)).post(URL, {}), 403);
    expectProblem(await client(t.app).post(URL, {}), 401);
  });
});
