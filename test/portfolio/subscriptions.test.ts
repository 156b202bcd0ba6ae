// createSubscription: every rule, one test each, each asserting that nothing was stored.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createInvestor } from '../support/deals.ts';
import { subscriptionBody, uniqueAssetId, uniqueId } from '../support/fixtures.ts';

const URL = '/portfolio/transactions/subscriptions';

describe('subscription transactions', () => {
  const t = startApp();
  const admin = t.admin;

  /** A fresh asset (in `currency`) and investor of this test's own. */
  async function given(currency = 'EUR') {
    const assetId = uniqueAssetId();
    const investorId = uniqueId('inv');
    assert.equal((await admin.put(`/portfolio/assets/${assetId}`, { name: 'Acme Series A', currency })).status, 201);
    await createInvestor(admin, {}, investorId);
    return { assetId, investorId, body: (overrides: Record<string, unknown> = {}) => subscriptionBody(assetId, investorId, overrides) };
  }

  async function storedFor(investorId: string) {
    const list = await admin.get(`${URL}?investor_id=${encodeURIComponent(investorId)}`);
    assert.equal(list.status, 200);
    return list.body.output as unknown[];
  }
  const nothingStored = async (investorId: string) => assert.deepEqual(await storedFor(investorId), []);

  test('creates: 201 with id, every field, the asset currency and created_at; GET returns the same', async () => {
    const { investorId, body } = await given('GBP');
    const sent = body();
    const response = await admin.post(URL, sent);
    assert.equal(response.status, 201, JSON.stringify(response.body));
    const { id, created_at, created_by_user_id, currency, ...fields } = response.body;
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.match(created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(currency, 'GBP');
    assert.equal(typeof created_by_user_id, 'string');
    assert.deepEqual(fields, sent);
    assert.equal(response.headers['idempotent-replayed'], undefined);
    const read = await admin.get(`${URL}/${id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, response.body);
    assert.deepEqual(await storedFor(investorId), [response.body]);
  });

  test('optional fields: fee defaults to 0, source, source_id and description to null', async () => {
    const { body } = await given();
    const { fee: _f, source: _s, source_id: _si, description: _d, ...required } = body();
    const response = await admin.post(URL, required);
    assert.equal(response.status, 201, JSON.stringify(response.body));
    assert.equal(response.body.fee, 0);
    assert.equal(response.body.source, null);
    assert.equal(response.body.source_id, null);
    assert.equal(response.body.description, null);
  });

  test('settlement on the invoice day is allowed', async () => {
    const { body } = await given();
    assert.equal((await admin.post(URL, body({ invoice_date: '2026-04-30', settlement_date: '2026-04-30' }))).status, 201);
  });

  test('leap day of a leap year is a date that exists', async () => {
    const { body } = await given();
    assert.equal((await admin.post(URL, body({ invoice_date: '2028-02-29', settlement_date: '2028-02-29' }))).status, 201);
  });

  for (const field of ['asset_id', 'investor_id', 'units', 'price_per_unit', 'total', 'funding_source', 'invoice_date', 'settlement_date']) {
    test(`${field} is required (400 naming it)`, async () => {
      const { investorId, body } = await given();
      const sent: Record<string, unknown> = body();
      delete sent[field];
      const problem = expectProblem(await admin.post(URL, sent), 400);
      assert.deepEqual(problem.errors, [{ in: 'body', field, detail: 'is required' }]);
      await nothingStored(investorId);
    });
  }

  test('a date that is not YYYY-MM-DD is a 400', async () => {
    const { investorId, body } = await given();
    for (const date of ['2026-3-01', '01/03/2026', '2026-03-01T00:00:00Z', '20260301', '', 20260301]) {
      for (const field of ['invoice_date', 'settlement_date']) {
        const problem = expectProblem(await admin.post(URL, body({ [field]: date })), 400);
        assert.deepEqual(
          problem.errors?.map((e) => e.field),
          [field],
          `${field}=${date}`,
        );
      }
    }
    await nothingStored(investorId);
  });

  test('a date that does not exist is a 400 (2026-02-30, 2026-13-01, 2027-02-29)', async () => {
    const { investorId, body } = await given();
    for (const date of ['2026-02-30', '2026-13-01', '2027-02-29', '2026-04-31', '2026-00-10']) {
      const problem = expectProblem(await admin.post(URL, body({ invoice_date: date, settlement_date: '2028-01-01' })), 400);
      assert.deepEqual(
        problem.errors?.map((e) => e.field),
        ['invoice_date'],
        date,
      );
    }
    await nothingStored(investorId);
  });

  test('settlement before invoice is a 422 naming settlement_date', async () => {
    const { investorId, body } = await given();
    const problem = expectProblem(await admin.post(URL, body({ invoice_date: '2026-03-05', settlement_date: '2026-03-04' })), 422);
    assert.deepEqual(
      problem.errors?.map((e) => e.field),
      ['settlement_date'],
    );
    await nothingStored(investorId);
  });

  test('a negative total or fee is a 400', async () => {
    const { investorId, body } = await given();
    expectProblem(await admin.post(URL, body({ total: -1005 })), 400);
    const problem = expectProblem(await admin.post(URL, body({ fee: -0.01 })), 400);
    assert.deepEqual(
      problem.errors?.map((e) => e.field),
      ['fee'],
    );
    await nothingStored(investorId);
  });

  test('units and price_per_unit must be greater than zero (400)', async () => {
    const { investorId, body } = await given();
    for (const [field, value] of [
      ['units', 0],
      ['units', -10],
      ['price_per_unit', 0],
      ['price_per_unit', -100.5],
    ] as const) {
      const problem = expectProblem(await admin.post(URL, body({ [field]: value, total: 0 })), 400);
      assert.deepEqual(
        problem.errors?.map((e) => e.field),
        [field],
        `${field}=${value}`,
      );
    }
    await nothingStored(investorId);
  });

  test('a zero total with a zero fee is allowed only when consistent', async () => {
    const { investorId, body } = await given();
    // 0.001 × 1 = 0.001, which is 0.00 to the cent.
    const response = await admin.post(URL, body({ units: 0.001, price_per_unit: 1, total: 0, fee: 0 }));
    assert.equal(response.status, 201, JSON.stringify(response.body));
    assert.equal((await storedFor(investorId)).length, 1);
  });

  test('an unknown funding_source is a 400', async () => {
    const { investorId, body } = await given();
    for (const source of ['wire', 'CASH_ACCOUNT', '', 1]) {
      const problem = expectProblem(await admin.post(URL, body({ funding_source: source })), 400);
      assert.ok(
        problem.errors?.some((e) => e.field === 'funding_source'),
        JSON.stringify(problem.errors),
      );
    }
    await nothingStored(investorId);
  });

  test('each known funding_source is accepted', async () => {
    const { investorId, body } = await given();
    for (const source of ['cash_account', 'bank_transfer', 'card', 'other']) {
      assert.equal((await admin.post(URL, body({ funding_source: source }))).status, 201, source);
    }
    assert.equal((await storedFor(investorId)).length, 4);
  });

  test('a total that is not units × price_per_unit to the cent is a 422 stating the expected total', async () => {
    const { investorId, body } = await given();
    const problem = expectProblem(await admin.post(URL, body({ units: 3, price_per_unit: 0.333333, total: 1.01 })), 422);
    assert.equal(problem.expectedTotal, '1.00');
    assert.match(problem.detail, /expected 1\.00/);
    assert.deepEqual(
      problem.errors?.map((e) => e.field),
      ['total'],
    );
    const off = expectProblem(await admin.post(URL, body({ total: 1004.99 })), 422);
    assert.equal(off.expectedTotal, '1005.00');
    await nothingStored(investorId);
  });

  test('a total within the cent is accepted (3 × 0.333333 = 0.999999 → 1.00); the exact product, finer than the cent, is not a EUR amount', async () => {
    const { investorId, body } = await given();
    assert.equal((await admin.post(URL, body({ units: 3, price_per_unit: 0.333333, total: 1 }))).status, 201);
    const problem = expectProblem(await admin.post(URL, body({ units: 3, price_per_unit: 0.333333, total: 0.999999 })), 422);
    assert.deepEqual(
      problem.errors?.map((e) => e.field),
      ['total'],
    );
    assert.equal((await storedFor(investorId)).length, 1);
  });

  test('an unknown asset is a 404', async () => {
    const { investorId, body } = await given();
    const problem = expectProblem(await admin.post(URL, body({ asset_id: uniqueAssetId() })), 404);
    assert.match(problem.detail, /asset/);
    await nothingStored(investorId);
  });

  test('an unknown investor is a 404', async () => {
    const { body } = await given();
    const ghost = uniqueId('ghost');
    const problem = expectProblem(await admin.post(URL, body({ investor_id: ghost })), 404);
    assert.match(problem.detail, /investor/);
    await nothingStored(ghost);
  });

  test('an unknown property is a 400 naming it', async () => {
    const { investorId, body } = await given();
    const problem = expectProblem(await admin.post(URL, body({ currency: 'EUR' })), 400);
    assert.deepEqual(
      problem.errors?.map((e) => e.field),
      ['currency'],
    );
    await nothingStored(investorId);
  });

  test('asset_id must be a positive integer number', async () => {
    const { investorId, body, assetId } = await given();
    for (const bad of [String(assetId), assetId + 0.5, 0, -1, null]) {
      const problem = expectProblem(await admin.post(URL, body({ asset_id: bad })), 400);
      assert.ok(
        problem.errors?.some((e) => e.field === 'asset_id'),
        JSON.stringify(bad),
      );
    }
    await nothingStored(investorId);
  });

  test('investor tokens may not book subscriptions', async () => {
    const { investorId, body } = await given();
    const investor = client(t.app, await t.investorToken(investorId));
    expectProblem(await investor.post(URL, body()), 403);
    expectProblem(await investor.get(`${URL}?investor_id=${investorId}`), 403);
    expectProblem(await client(t.app).post(URL, body()), 401);
    await nothingStored(investorId);
  });

  test('GET of an unknown or malformed id: 404 and 400', async () => {
    expectProblem(await admin.get(`${URL}/00000000-0000-4000-8000-000000000000`), 404);
    expectProblem(await admin.get(`${URL}/not-a-uuid`), 400);
  });

  test('the list filters by investor, asset, source and source_id, in pages', async () => {
    const a = await given();
    const otherAsset = uniqueAssetId();
    await admin.put(`/portfolio/assets/${otherAsset}`, { name: 'Other', currency: 'USD' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await admin.post(URL, a.body({ source: 'crm', source_id: `batch-${i}` }));
      ids.push(response.body.id);
    }
    const other = await admin.post(URL, subscriptionBody(otherAsset, a.investorId, { source: 'import' }));
    assert.equal(other.status, 201);

    const all = await admin.get(`${URL}?investor_id=${a.investorId}&limit=4`);
    assert.equal(all.body.totalPages, 2);
    assert.equal(all.body.page, 1);
    assert.equal(all.body.output.length, 4);
    const second = await admin.get(`${URL}?investor_id=${a.investorId}&limit=4&page=2`);
    assert.equal(second.body.output.length, 2);
    assert.deepEqual([...all.body.output, ...second.body.output].map((s: { id: string }) => s.id).sort(), [...ids, other.body.id].sort());
    const past = await admin.get(`${URL}?investor_id=${a.investorId}&limit=4&page=3`);
    assert.deepEqual(past.body, { output: [], page: 3, totalPages: 2 });

    const byAsset = await admin.get(`${URL}?investor_id=${a.investorId}&asset_id=${otherAsset}`);
    assert.deepEqual(
      byAsset.body.output.map((s: { id: string }) => s.id),
      [other.body.id],
    );
    assert.equal(byAsset.body.output[0].currency, 'USD');
    const bySource = await admin.get(`${URL}?investor_id=${a.investorId}&source=crm&source_id=batch-3`);
    assert.deepEqual(
      bySource.body.output.map((s: { id: string }) => s.id),
      [ids[3]],
    );
    const none = await admin.get(`${URL}?source=crm&source_id=${uniqueId('nothing')}`);
    assert.deepEqual(none.body, { output: [], page: 1, totalPages: 0 });
  });

  test('bad list parameters are 400s', async () => {
    for (const query of ['limit=0', 'limit=101', 'page=0', 'asset_id=1.5', 'asset_id=abc', 'colour=red']) {
      expectProblem(await admin.get(`${URL}?${query}`), 400);
    }
  });
});
