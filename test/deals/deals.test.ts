// PUT and GET /deals/deal/{dealId}: created (201) then updated (200), read back with its ETag, bad
// bodies refused without a change, and a deal is staff's to write. On PGlite, and on PostgreSQL
// when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { uniqueId } from '../support/fixtures.ts';

describe('deals', () => {
  const t = startApp();

  test('a deal is created, then updated, and reads back as written', async () => {
    const id = uniqueId('deal');
    const created = await t.admin.put(`/deals/deal/${id}`, { name: 'Harbour Series B', currency: 'EUR' });
    assert.equal(created.status, 201);
    assert.deepEqual([created.body.id, created.body.name, created.body.currency], [id, 'Harbour Series B', 'EUR']);
    const updated = await t.admin.put(`/deals/deal/${id}`, { name: 'Harbour Series B (second close)', description: 'Closing in March', currency: 'EUR' });
    assert.equal(updated.status, 200);
    const read = await t.admin.get(`/deals/deal/${id}`);
    assert.equal(read.status, 200);
    assert.deepEqual([read.body.name, read.body.description], ['Harbour Series B (second close)', 'Closing in March']);
    const etag = String(read.headers.etag);
    assert.equal((await t.admin.get(`/deals/deal/${id}`, { 'if-none-match': etag })).status, 304);
  });

  test('a bad body is a 400 naming the field, and nothing changes', async () => {
    const id = uniqueId('deal');
    await t.admin.put(`/deals/deal/${id}`, { name: 'Kept', currency: 'GBP' });
    for (const body of [{ name: '' }, { name: 'x', currency: 'euro' }, { name: 'x', colour: 'blue' }]) {
      expectProblem(await t.admin.put(`/deals/deal/${id}`, body), 400);
    }
    expectProblem(await t.admin.put('/deals/deal/has%20space', { name: 'x' }), 400);
    const read = await t.admin.get(`/deals/deal/${id}`);
    assert.deepEqual([read.body.name, read.body.currency], ['Kept', 'GBP']);
  });

  test('an unknown deal is 404; an investor cannot write one', async () => {
    expectProblem(await t.admin.get(`/deals/deal/${uniqueId('none')}`), 404);
    const investor = client(t.app, await t.investorToken(uniqueId('inv')));
    const id = uniqueId('deal');
    expectProblem(await investor.put(`/deals/deal/${id}`, { name: 'Not theirs' }), 403);
    expectProblem(await t.admin.get(`/deals/deal/${id}`), 404);
  });
});
