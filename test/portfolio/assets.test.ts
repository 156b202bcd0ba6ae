import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { uniqueAssetId } from '../support/fixtures.ts';

describe('portfolio assets', () => {
  const t = startApp();
  const admin = t.admin;

  test('PUT creates (201) then updates (200); GET reads it', async () => {
    const id = uniqueAssetId();
    const created = await admin.put(`/portfolio/assets/${id}`, { name: 'Acme Series A', currency: 'EUR' });
    assert.equal(created.status, 201);
    assert.equal(created.body.id, id);
    assert.equal(created.body.name, 'Acme Series A');
    assert.equal(created.body.currency, 'EUR');
    const updated = await admin.put(`/portfolio/assets/${id}`, { name: 'Acme Series A (renamed)', currency: 'GBP' });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.createdAt, created.body.createdAt);
    const read = await admin.get(`/portfolio/assets/${id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, updated.body);
  });

  test('an unknown asset is a 404', async () => {
    expectProblem(await admin.get(`/portfolio/assets/${uniqueAssetId()}`), 404);
  });

  test('the asset id must be a positive integer', async () => {
    for (const bad of ['0', '-1', '1.5', 'abc', '1e3', '0x10', '01', '9007199254740993', '1000000000000000']) {
      const problem = expectProblem(await admin.put(`/portfolio/assets/${bad}`, { name: 'x', currency: 'EUR' }), 400);
      assert.deepEqual(
        problem.errors?.map((e) => [e.in, e.field]),
        [['path', 'assetId']],
        bad,
      );
    }
  });

  test('the currency must be a real ISO 4217 code; nothing is stored', async () => {
    const id = uniqueAssetId();
    for (const currency of ['XYZ', 'eur', 'EURO', '']) {
      const problem = expectProblem(await admin.put(`/portfolio/assets/${id}`, { name: 'x', currency }), 400);
      assert.deepEqual(
        problem.errors?.map((e) => e.field),
        ['currency'],
        currency,
      );
    }
    expectProblem(await admin.put(`/portfolio/assets/${id}`, { name: 'x' }), 400);
    expectProblem(await admin.put(`/portfolio/assets/${id}`, { name: 'x', currency: 'EUR', extra: 1 }), 400);
    expectProblem(await admin.get(`/portfolio/assets/${id}`), 404);
  });

  test('investors may not read or write assets', async () => {
    const id = uniqueAssetId();
    await admin.put(`/portfolio/assets/${id}`, { name: 'x', currency: 'EUR' });
    const investor = client(t.app, await t.investorToken('someone'));
    expectProblem(await investor.get(`/portfolio/assets/${id}`), 403);
    expectProblem(await investor.put(`/portfolio/assets/${id}`, { name: 'y', currency: 'EUR' }), 403);
    expectProblem(await client(t.app).get(`/portfolio/assets/${id}`), 401);
  });
});
