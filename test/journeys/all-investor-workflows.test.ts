// listAllInvestorWorkflows: GET /deals/deal/{dealId}/all-investor-workflows: page wrapper, order, search, edges.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, type TestDeal } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

describe('all-investor-workflows', () => {
  const t = startApp();
  const admin = t.admin;
  let deal: TestDeal;
  const ids: Record<string, string> = {};
  before(async () => {
    deal = await createDeal(admin);
    // Names that sort the same under every collation: capitals, distinct first letters.
    const people: [string, string, string][] = [
      ['zoe', 'Zoe', 'Adams'],
      ['anna', 'Anna', 'Berg'],
      ['carter', 'Carl', 'Carter'],
      ['bob', 'Bob', 'Dylan'],
      ['pct', 'Dora', '100% Sure'],
    ];
    for (const [key, forename, surname] of people) ids[key] = await deal.addInvestor({ forename, surname, email: `${key}.${forename}@Example.com` });
    ids.nobody = await deal.addInvestor({ forename: 'Anna', surname: 'Nomoves' });
    await deal.move(ids.zoe!, 'interest', { note: 'hello' });
    await deal.move(ids.zoe!, 'commitment', { committed_amount: '10.00', currency: 'EUR' });
    for (const key of ['anna', 'carter', 'bob', 'pct']) await deal.move(ids[key]!, 'interest');
  });

  const list = (query = '') => admin.get(`/deals/deal/${deal.dealId}/all-investor-workflows${query}`);

  test('the page wrapper, with abbreviated journeys, ordered by full name then id', async () => {
    const response = await list();
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.body).sort(), ['output', 'page', 'totalPages']);
    assert.equal(response.body.page, 1);
    assert.equal(response.body.totalPages, 1);
    assert.deepEqual(
      response.body.output.map((o: any) => o.investor.id),
      [ids.anna, ids.bob, ids.carter, ids.pct, ids.zoe],
      'investors without a journey are not listed',
    );
    const zoe = response.body.output[4];
    assert.deepEqual(Object.keys(zoe).sort(), ['investor', 'journey']);
    assert.deepEqual(zoe.investor, { id: ids.zoe });
    assert.equal(zoe.journey.length, 2);
    for (const entry of zoe.journey) assert.deepEqual(Object.keys(entry).sort(), ['createdAt', 'data', 'id', 'toStepId']);
    assert.deepEqual(
      zoe.journey.map((e: any) => e.toStepId),
      [deal.step('interest'), deal.step('commitment')],
    );
    assert.deepEqual(zoe.journey[1].data, { committed_amount: '10.00', currency: 'EUR' });
    const full = await admin.get(`/deals/deal/${deal.dealId}/investor-data/${ids.zoe}`);
    assert.deepEqual(
      zoe.journey,
      full.body.journey.map(({ id, toStepId, data, createdAt }: any) => ({ id, toStepId, data, createdAt })),
    );
  });

  test('pages: limit and page, totalPages = ceil(total / limit), a page past the end is empty', async () => {
    const first = await list('?limit=2');
    assert.deepEqual([first.body.page, first.body.totalPages], [1, 3]);
    assert.deepEqual(
      first.body.output.map((o: any) => o.investor.id),
      [ids.anna, ids.bob],
    );
    const third = await list('?limit=2&page=3');
    assert.deepEqual(
      third.body.output.map((o: any) => o.investor.id),
      [ids.zoe],
    );
    const past = await list('?limit=2&page=4');
    assert.equal(past.status, 200);
    assert.deepEqual(past.body, { output: [], page: 4, totalPages: 3 });
    assert.equal((await list('?limit=100')).body.output.length, 5);
  });

  test('pages: page 0, limit 0, limit 101 and non-numbers are 400s naming the parameter', async () => {
    for (const [query, field] of [
      ['?page=0', 'page'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=ten', 'limit'],
      ['?page=1.5', 'page'],
      ['?page=-1', 'page'],
      ['?limit=2e1', 'limit'],
      ['?limit=', 'limit'],
    ] as const) {
      const problem = expectProblem(await list(query), 400);
      assert.ok(
        problem.errors?.some((e) => e.field === field && e.in === 'query'),
        `${query}: ${JSON.stringify(problem.errors)}`,
      );
    }
  });

  test('an empty deal: no output, totalPages 0', async () => {
    const empty = await createDeal(admin);
    const response = await admin.get(`/deals/deal/${empty.dealId}/all-investor-workflows`);
    assert.deepEqual(response.body, { output: [], page: 1, totalPages: 0 });
    expectProblem(await admin.get(`/deals/deal/${uniqueId('deal')}/all-investor-workflows`), 404);
  });

  test('search: case-insensitive, anywhere in full name or e-mail; LIKE wildcards match themselves', async () => {
    const found = async (query: string) => (await list(`?query=${encodeURIComponent(query)}`)).body.output.map((o: any) => o.investor.id);
    assert.deepEqual(await found('ANNA'), [ids.anna]);
    assert.deepEqual(await found('an'), [ids.anna, ids.bob], '"an" is in Anna and in Dylan');
    assert.deepEqual(await found('carter.carl@example'), [ids.carter], 'e-mail, case-insensitive');
    assert.deepEqual(await found('EXAMPLE.COM'), [ids.anna, ids.bob, ids.carter, ids.pct, ids.zoe]);
    assert.deepEqual(await found('%'), [ids.pct], '"%" is a character, not a wildcard');
    assert.deepEqual(await found('_'), [], '"_" is a character, not a wildcard');
    assert.deepEqual(await found('\\'), []);
    assert.deepEqual(await found('nobody'), []);
    const paged = await list('?query=example&limit=2&page=2');
    assert.deepEqual([paged.body.page, paged.body.totalPages, paged.body.output.length], [2, 3, 2]);
  });

  test('only staff list journeys', async () => {
    const own = client(t.app, await t.investorToken(ids.anna!));
    expectProblem(await own.get(`/deals/deal/${deal.dealId}/all-investor-workflows`), 403);
  });
});
