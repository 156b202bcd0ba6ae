// Query and path parameters are converted from text, but whole numbers must be written as whole
// numbers: "1.5", "2e1" and "0x10" are 400s on every route, not 1, 20 and 16.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { client, type Client, expectProblem, startTestApp, type TestApp } from '../support/app.ts';

describe('whole-number query parameters', () => {
  let t: TestApp;
  let admin: Client;
  before(async () => {
    t = await startTestApp();
    admin = client(t.app, t.adminToken);
  });
  after(() => t.close());

  const routes: [string, (query: string) => Promise<{ status: number; headers: Record<string, unknown>; body: any }>][] = [
    ['all-transactions', (q) => admin.post(`/deals/deal/all-transactions?${q}`)],
    ['subscriptions list', (q) => admin.get(`/portfolio/transactions/subscriptions?${q}`)],
    ['all-investor-workflows', (q) => admin.get(`/deals/deal/any-deal/all-investor-workflows?${q}`)],
  ];

  for (const [name, call] of routes) {
    test(`${name}: limit=1.5, page=2e1 and limit=0x10 are 400s naming the parameter`, async () => {
      for (const [query, field] of [['limit=1.5', 'limit'], ['page=2e1', 'page'], ['limit=0x10', 'limit']] as const) {
        const problem = expectProblem(await call(query), 400);
        assert.deepEqual(problem.errors?.map((e) => [e.in, e.field]), [['query', field]], `${name} ${query}`);
      }
      assert.notEqual((await call('limit=5&page=1')).status, 400, 'whole numbers are accepted');
    });
  }
});
