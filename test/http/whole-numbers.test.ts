// Integer query and path parameters are whole numbers as sent, on every route (the reliability suite found that
// conversion from text turned limit=1.5 into 1 and /portfolio/assets/1.5 into asset 1 wherever a
// route had not added its own check).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';

describe('whole numbers in queries and paths', () => {
  const t = startApp();
  const admin = t.admin;

  const lists: [string, (url: string) => Promise<{ status: number; headers: Record<string, unknown>; body: any }>][] = [
    ['/webhooks/deliveries', (url) => admin.get(url)],
    ['/portfolio/transactions/subscriptions', (url) => admin.get(url)],
    ['/deals/deal/all-transactions', (url) => admin.post(url, {})],
  ];
  for (const [path, call] of lists) {
    test(`${path}: limit and page that are not whole numbers are 400s naming them`, async () => {
      for (const bad of ['1.5', '2.0', '1e1', '0x10', ' 5']) {
        for (const name of ['limit', 'page']) {
          const problem = expectProblem(await call(`${path}?${name}=${encodeURIComponent(bad)}`), 400);
          assert.deepEqual(
            problem.errors?.map((e) => [e.in, e.field]),
            [['query', name]],
            `${name}=${bad}`,
          );
        }
      }
      assert.equal((await call(`${path}?limit=5&page=1`)).status, 200, 'the control case');
    });
  }

  test('a path id that is not a whole number is a 400, and nothing is written under its truncation', async () => {
    const problem = expectProblem(await admin.put('/portfolio/assets/7.5', { name: 'Fund', currency: 'EUR' }), 400);
    assert.deepEqual(
      problem.errors?.map((e) => [e.in, e.field]),
      [['path', 'assetId']],
    );
    expectProblem(await admin.get('/portfolio/assets/7'), 404);
  });
});
