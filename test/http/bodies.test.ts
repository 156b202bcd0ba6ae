// Strict bodies: JSON only, no coercion, unknown properties named, size limited; nothing written.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { investorBody, subscriptionBody, uniqueAssetId, uniqueId } from '../support/fixtures.ts';

describe('request bodies', () => {
  const t = startApp({ env: { BODY_LIMIT: '2048' } });
  const admin = t.admin;

  const nothingWritten = async (dealId: string) => expectProblem(await admin.get(`/deals/deal/${dealId}`), 404);

  test('a valid body is accepted (the control case)', async () => {
    const response = await admin.put('/deals/deal/ok-deal', { name: 'Fund I', currency: 'EUR' });
    assert.equal(response.status, 201);
    assert.equal(response.body.name, 'Fund I');
    assert.equal((await admin.put('/deals/deal/ok-deal', { name: 'Fund I (renamed)' })).status, 200);
  });

  test('an unknown property is a 400 that names it', async () => {
    const problem = expectProblem(await admin.put('/deals/deal/d1', { name: 'x', colour: 'red', size: 1 }), 400);
    assert.deepEqual(problem.errors?.map((e) => e.field).sort(), ['colour', 'size']);
    assert.ok(problem.errors?.every((e) => e.in === 'body'));
    await nothingWritten('d1');
  });

  test('a wrong type is a 400 naming the field, not coerced', async () => {
    for (const name of [123, true, null, ['x'], { a: 1 }]) {
      const problem = expectProblem(await admin.put('/deals/deal/d2', { name }), 400);
      assert.deepEqual(
        problem.errors?.map((e) => e.field),
        ['name'],
        JSON.stringify(name),
      );
    }
    await nothingWritten('d2');
  });

  test('a missing required property is named', async () => {
    const problem = expectProblem(await admin.put('/deals/deal/d3', { description: 'no name' }), 400);
    assert.deepEqual(problem.errors, [{ in: 'body', field: 'name', detail: 'is required' }]);
    await nothingWritten('d3');
  });

  test('a body that is not JSON is 415', async () => {
    const response = await admin.raw({
      method: 'PUT',
      url: '/deals/deal/d4',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    assert.equal(response.statusCode, 415);
    assert.equal(response.json().type, 'urn:dealflow:problem:unsupported-media-type');
    const form = await admin.raw({
      method: 'PUT',
      url: '/deals/deal/d4',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=x',
    });
    assert.equal(form.statusCode, 415);
    await nothingWritten('d4');
  });

  test('broken JSON is a 400', async () => {
    const problem = expectProblem(await admin.put('/deals/deal/d5', '{"name": "x",'), 400);
    assert.match(problem.detail, /not valid JSON/);
    await nothingWritten('d5');
  });

  test('a __proto__ key is a 400', async () => {
    expectProblem(await admin.put('/deals/deal/d6', '{"name": "x", "__proto__": {"admin": true}}'), 400);
    await nothingWritten('d6');
  });

  test('a number beyond double precision is refused, not rounded', async () => {
    const problem = expectProblem(await admin.put('/deals/deal/d7', '{"name": 9007199254740993}'), 400);
    assert.match(problem.detail, /more than 15 significant digits/);
    expectProblem(await admin.put('/deals/deal/d7', '{"name": 1e400}'), 400);
    await nothingWritten('d7');
  });

  test('a body over BODY_LIMIT is 413', async () => {
    const problem = expectProblem(await admin.put('/deals/deal/d8', { name: 'x', description: 'y'.repeat(4096) }), 413);
    assert.equal(problem.type, 'urn:dealflow:problem:payload-too-large');
    await nothingWritten('d8');
  });

  test('a bad path parameter is a 400 naming it', async () => {
    const problem = expectProblem(await admin.get(`/deals/deal/${'x'.repeat(200)}`), 400);
    assert.deepEqual(
      problem.errors?.map((e) => [e.in, e.field]),
      [['path', 'dealId']],
    );
  });

  test('an unknown currency is a 400', async () => {
    const problem = expectProblem(await admin.put('/deals/deal/d9', { name: 'x', currency: 'XYZ' }), 400);
    assert.deepEqual(
      problem.errors?.map((e) => e.field),
      ['currency'],
    );
    await nothingWritten('d9');
  });

  describe('on the subscription route (numbers must be JSON numbers)', () => {
    const URL = '/portfolio/transactions/subscriptions';
    async function given() {
      const assetId = uniqueAssetId();
      const investorId = uniqueId('inv');
      await admin.put(`/portfolio/assets/${assetId}`, { name: 'Fund', currency: 'EUR' });
      await admin.put(`/investors/${investorId}`, investorBody());
      return { assetId, investorId };
    }
    const nothingStored = async (investorId: string) => assert.deepEqual((await admin.get(`${URL}?investor_id=${investorId}`)).body.output, []);

    test('a string where a number is required ("100" for units) is a 400, nothing written', async () => {
      const { assetId, investorId } = await given();
      const problem = expectProblem(await admin.post(URL, subscriptionBody(assetId, investorId, { units: '100', total: 10050 })), 400);
      assert.deepEqual(
        problem.errors?.map((e) => e.field),
        ['units'],
      );
      await nothingStored(investorId);
    });

    test('true where a number is required is a 400, nothing written', async () => {
      const { assetId, investorId } = await given();
      for (const field of ['units', 'price_per_unit', 'total', 'fee']) {
        const problem = expectProblem(await admin.post(URL, subscriptionBody(assetId, investorId, { [field]: true })), 400);
        assert.deepEqual(
          problem.errors?.map((e) => e.field),
          [field],
        );
      }
      await nothingStored(investorId);
    });
  });
});

// Found by the reliability suite's fuzzer: PostgreSQL cannot store NUL in text or jsonb
// (a 500), and an unpaired surrogate was silently stored as U+FFFD.
describe('text that cannot be stored', () => {
  const t = startApp();
  const admin = t.admin;

  for (const [name, text] of [
    ['a NUL character', 'a\u0000b'],
    ['an unpaired high surrogate', '\ud800'],
    ['an unpaired low surrogate', 'x\udfffy'],
  ] as const) {
    test(`${name} in a body member is a 400 naming it, and nothing is stored`, async () => {
      const problem = expectProblem(await admin.put('/deals/deal/text-1', { name: text }), 400);
      assert.deepEqual(
        problem.errors?.map((e) => [e.in, e.field]),
        [['body', 'name']],
      );
      const investor = investorBody();
      (investor.contact.contact as { title: string | null }).title = text;
      const nested = expectProblem(await admin.put('/investors/text-inv', investor), 400);
      assert.deepEqual(
        nested.errors?.map((e) => e.field),
        ['title'],
      );
      expectProblem(await admin.get('/deals/deal/text-1'), 404);
      expectProblem(await admin.get('/investors/text-inv'), 404);
    });
  }

  test('in a member name too', async () => {
    expectProblem(await admin.put('/deals/deal/text-2', '{"name":"x","a\\u0000":1}'), 400);
    expectProblem(await admin.get('/deals/deal/text-2'), 404);
  });

  test('in a query or path parameter', async () => {
    const query = expectProblem(await admin.get('/whoami?q=a%00b'), 400);
    assert.deepEqual(
      query.errors?.map((e) => [e.in, e.field]),
      [['query', 'q']],
    );
    expectProblem(await admin.get('/investors/a%00b'), 400);
  });
});
