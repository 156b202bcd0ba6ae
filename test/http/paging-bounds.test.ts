// Every paged route shares one definition of page, limit and after (src/http/schemas/paging.ts):
// a value past its bound is a 400 naming it, a page past the end is an empty page, and no value a
// client can send overflows the offset or cursor the database computes (it used to be a 500,
// SQLSTATE 22003, for page=99999999999999999999 or after=9223372036854775807).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { MAX_AFTER, MAX_PAGE } from '../../src/http/schemas/paging.ts';
import { expectProblem, startApp } from '../support/app.ts';
import { uniqueId } from '../support/fixtures.ts';

const BOUNDARY = ['2147483648', '9007199254740992', '9223372036854775807', '9223372036854775808', '99999999999999999999', '10000000000000000000000'];

describe('paging bounds on every paged route', () => {
  const t = startApp();
  const admin = t.admin;
  let dealId: string;
  before(async () => {
    dealId = uniqueId('deal');
    assert.equal((await admin.put(`/deals/deal/${dealId}`, { name: 'Paged deal' })).status, 201);
  });

  const paged = (): [string, 'GET' | 'POST'][] => [
    ['/portfolio/transactions/subscriptions', 'GET'],
    ['/webhooks/deliveries', 'GET'],
    [`/console/deals/${dealId}/board/cards`, 'GET'],
    [`/deals/deal/${dealId}/all-investor-workflows`, 'GET'],
    ['/deals/deal/all-transactions', 'POST'],
  ];
  const feeds = (): string[] => [`/deals/deal/${dealId}/events`, '/webhooks/events'];
  const call = (method: 'GET' | 'POST', url: string) => (method === 'GET' ? admin.get(url) : admin.post(url, {}));

  test('page and limit past their bounds are 400s naming the parameter', async () => {
    for (const [path, method] of paged()) {
      for (const value of [...BOUNDARY, String(MAX_PAGE + 1)]) {
        const problem = expectProblem(await call(method, `${path}?page=${value}`), 400);
        assert.deepEqual(
          problem.errors?.map((e) => [e.in, e.field]),
          [['query', 'page']],
          `${path} page=${value}`,
        );
      }
      for (const value of [...BOUNDARY, '101', '0']) {
        const problem = expectProblem(await call(method, `${path}?limit=${value}`), 400);
        assert.deepEqual(
          problem.errors?.map((e) => [e.in, e.field]),
          [['query', 'limit']],
          `${path} limit=${value}`,
        );
      }
    }
  });

  test('the last allowed page is an empty page, not an error', async () => {
    for (const [path, method] of paged()) {
      const response = await call(method, `${path}?page=${MAX_PAGE}&limit=100`);
      assert.equal(response.status, 200, `${path}: ${response.text}`);
      assert.deepEqual(response.body.output, []);
      assert.equal(response.body.page, MAX_PAGE);
    }
  });

  test('after past its bound is a 400 naming it; so is a cursor within the bounds that names no entry of the feed', async () => {
    for (const path of feeds()) {
      for (const value of [...BOUNDARY.filter((v) => Number(v) > MAX_AFTER), '-1']) {
        const problem = expectProblem(await admin.get(`${path}?after=${value}`), 400);
        assert.deepEqual(
          problem.errors?.map((e) => [e.in, e.field]),
          [['query', 'after']],
          `${path} after=${value}`,
        );
      }
      // A feed's numbers name its entries (docs/reference/webhooks-and-feed.md, "The pull feed"): one that names none is a 400
      // telling the consumer to restart from after=0, never a 500 and never a silent empty page.
      for (const value of ['2147483648', String(MAX_AFTER)]) {
        const problem = expectProblem(await admin.get(`${path}?after=${value}`), 400);
        assert.deepEqual(
          problem.errors?.map((e) => [e.in, e.field]),
          [['query', 'after']],
          `${path} after=${value}`,
        );
      }
    }
  });
});
