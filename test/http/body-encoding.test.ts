// Only valid UTF-8 JSON, with unique member names, is accepted; query strings must decode as UTF-8.
// Each refusal is a problem document and changes nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { uniqueId } from '../support/fixtures.ts';

describe('body and query encoding', () => {
  const t = startApp();
  const admin = t.admin;

  const putDeal = (dealId: string, payload: string | Buffer, contentType = 'application/json') =>
    admin.raw({ method: 'PUT', url: `/deals/deal/${dealId}`, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType }, payload });
  const problemOf = (response: Awaited<ReturnType<typeof putDeal>>, status: number) =>
    expectProblem({ status: response.statusCode, headers: response.headers, body: response.json() }, status);
  const absent = async (dealId: string) => expectProblem(await admin.get(`/deals/deal/${dealId}`), 404);

  test('invalid UTF-8 bytes in a body are a 400, never stored as U+FFFD', async () => {
    for (const bytes of [[0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80]]) {
      const dealId = uniqueId('deal');
      const body = Buffer.concat([Buffer.from('{"name":"Fund '), Buffer.from(bytes), Buffer.from('"}')]);
      const problem = problemOf(await putDeal(dealId, body), 400);
      assert.match(problem.detail, /UTF-8/);
      await absent(dealId);
    }
    const dealId = uniqueId('deal');
    assert.equal((await putDeal(dealId, Buffer.from('{"name":"Fünd €"}', 'utf8'))).statusCode, 201, 'the control: valid UTF-8');
    assert.equal((await admin.get(`/deals/deal/${dealId}`)).body.name, 'Fünd €');
  });

  test('a Content-Type charset other than UTF-8 is a 415; utf-8 in any spelling is fine', async () => {
    for (const charset of ['iso-8859-1', 'latin1', 'utf-16', 'windows-1252', '"us-ascii"']) {
      const dealId = uniqueId('deal');
      const problem = problemOf(await putDeal(dealId, '{"name":"Fund"}', `application/json; charset=${charset}`), 415);
      assert.match(problem.detail, /charset/);
      await absent(dealId);
    }
    for (const charset of ['utf-8', 'UTF-8', '"utf-8"', 'utf8']) {
      assert.equal((await putDeal(uniqueId('deal'), '{"name":"Fund"}', `application/json; charset=${charset}`)).statusCode, 201, charset);
    }
  });

  test('a member name twice in one object is a 400 naming it, at any depth and under any spelling', async () => {
    const cases: [string, string][] = [
      ['{"name":"A","name":"B"}', 'name'],
      ['{"name":"A","\\u006eame":"B"}', 'name'],
      ['{"name":"A","description":"x","currency":"EUR","description":"y"}', 'description'],
    ];
    for (const [payload, field] of cases) {
      const dealId = uniqueId('deal');
      const problem = problemOf(await putDeal(dealId, payload), 400);
      assert.deepEqual(
        problem.errors?.map((e) => [e.in, e.field]),
        [['body', field]],
      );
      await absent(dealId);
    }
    // Nested: the duplicate inside a workflow's step is found too, and named by its path.
    const dealId = uniqueId('deal');
    assert.equal((await putDeal(dealId, '{"name":"A"}')).statusCode, 201);
    const nested = await admin.put(
      `/deals/deal/${dealId}/workflow`,
      `{"label":"W","description":"d","investorEngagementEnabled":true,"steps":[{"id":"s1","label":"S","type":"default","type":"complete","stepFields":[]}],"links":[]}`,
    );
    const problem = expectProblem(nested, 400);
    assert.deepEqual(
      problem.errors?.map((e) => [e.in, e.field]),
      [['body', 'steps.[].type']],
    );
    expectProblem(await admin.get(`/deals/deal/${dealId}/workflow-status`), 404);
  });

  test('invalid UTF-8 in a query string is a 400 naming the parameter', async () => {
    for (const query of ['query=%FF', 'query=%C3', 'query=abc%E2%82', 'stepId=%ED%A0%80', '%FF=1']) {
      const response = await admin.get(`/webhooks/deliveries?${query}`);
      const problem = expectProblem(response, 400);
      assert.equal(problem.errors?.[0]?.in, 'query', query);
    }
    // In a path the router refuses it; the answer still carries the request id header.
    const inPath = await admin.get('/deals/deal/%E2%82');
    expectProblem(inPath, 400);
    assert.ok(inPath.headers['x-request-id'], 'X-Request-Id on a malformed URL');
    const problem = expectProblem(await admin.get('/webhooks/deliveries?status=%FF'), 400);
    assert.deepEqual(
      problem.errors?.map((e) => [e.in, e.field]),
      [['query', 'status']],
    );
    const dealId = uniqueId('deal');
    assert.equal((await admin.put(`/deals/deal/${dealId}`, { name: 'Été' })).status, 201);
    const control = await admin.get(`/console/deals/${dealId}/board/cards?query=%C3%A9t%C3%A9`);
    assert.equal(control.status, 200, `the control: valid UTF-8: ${control.text}`);
  });
});
