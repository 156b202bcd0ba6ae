// A body with very many bad members: the problem lists the first ones (ERRORS_LISTED) and says how
// many more there were, instead of an empty or unbounded list.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';

describe('many errors', () => {
  const t = startApp();

  test('60,000 unknown members: a 400 listing the first 100 and saying how many more', async () => {
    const body: Record<string, unknown> = { name: 'x' };
    for (let i = 0; i < 60_000; i++) body[`m${i}`] = 1;
    const problem = expectProblem(await t.admin.put('/deals/deal/many-members', body), 400);
    assert.equal(problem.errors?.length, 100);
    assert.deepEqual(
      problem.errors?.slice(0, 2).map((e) => [e.field, e.detail]),
      [
        ['m0', 'is not a known property'],
        ['m1', 'is not a known property'],
      ],
    );
    assert.equal((problem as unknown as { moreErrors: number }).moreErrors, 59_900);
    assert.match(problem.detail, /^Invalid body: m0, m1, .*m9, and 59,990 more$/);
    assert.ok(problem.detail.length < 2000, `detail of ${problem.detail.length} characters`);
    expectProblem(await t.admin.get('/deals/deal/many-members'), 404);
  });

  test('a few unknown members are all listed, with no moreErrors', async () => {
    const problem = expectProblem(await t.admin.put('/deals/deal/few-members', { name: 'x', a: 1, b: 2 }), 400);
    assert.deepEqual(
      problem.errors?.map((e) => e.field),
      ['a', 'b'],
    );
    assert.equal('moreErrors' in problem, false);
  });
});
