// Idempotency-Key on POST /portfolio/transactions/subscriptions: replay, mismatch, in progress,
// scope, expiry and (PostgreSQL) real concurrency.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { fingerprintOf } from '../../src/http/idempotency.ts';
import { purgeExpiredKeys } from '../../src/operations/idempotency.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, skipUnlessPostgres, startApp } from '../support/app.ts';
import { createInvestor } from '../support/deals.ts';
import { subscriptionBody, uniqueAssetId, uniqueId } from '../support/fixtures.ts';

const URL = '/portfolio/transactions/subscriptions';
const HOUR = 3_600_000;

describe('idempotent subscription creation', () => {
  const t = startApp({ clock: () => new Date(Date.now() + offsetMs), env: { IDEMPOTENCY_TTL_HOURS: '24' } });
  const admin = t.admin;
  let offsetMs = 0; // moves the service's clock forward

  async function given() {
    const assetId = uniqueAssetId();
    const investorId = uniqueId('inv');
    await admin.put(`/portfolio/assets/${assetId}`, { name: 'Fund', currency: 'EUR' });
    await createInvestor(admin, {}, investorId);
    return { investorId, body: (overrides: Record<string, unknown> = {}) => subscriptionBody(assetId, investorId, overrides) };
  }
  const stored = async (investorId: string) => (await admin.get(`${URL}?investor_id=${investorId}`)).body.output as { id: string }[];
  const key = () => `key-${randomUUID()}`;

  test('a repeat with the same key and body replays the first response and creates nothing', async () => {
    const { investorId, body } = await given();
    const k = key();
    const sent = body();
    const first = await admin.post(URL, sent, { 'idempotency-key': k });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await admin.post(URL, sent, { 'idempotency-key': k });
    assert.equal(again.status, 201);
    assert.equal(again.text, first.text);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    // Key order and whitespace do not make it a different request.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(sent).reverse()), null, 2);
    const third = await admin.post(URL, reordered, { 'idempotency-key': k });
    assert.equal(third.text, first.text);
    assert.equal(third.headers['idempotent-replayed'], 'true');
    assert.deepEqual(
      (await stored(investorId)).map((s) => s.id),
      [first.body.id],
    );
    // The stored response is the record as stored, the asset's currency included.
    assert.deepEqual(first.body, (await admin.get(`${URL}/${first.body.id}`)).body);
    assert.equal(first.body.currency, 'EUR');
  });

  test('a stored response is the record as sent, whatever its texts hold', async () => {
    const { body } = await given();
    const k = key();
    // Texts that look like the currency property (the statement fills in the currency after the service serialized the rest).
    const sent = body({ description: '"currency":"" ,"currency":"USD", \\"currency\\":\\"\\"', source: 'currency', source_id: '"currency":""' });
    const first = await admin.post(URL, sent, { 'idempotency-key': k });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.currency, 'EUR');
    assert.equal(first.body.description, sent.description);
    assert.equal(first.body.source_id, sent.source_id);
    assert.deepEqual(first.body, (await admin.get(`${URL}/${first.body.id}`)).body);
    const again = await admin.post(URL, sent, { 'idempotency-key': k });
    assert.equal(again.text, first.text);
  });

  test('without a key every POST creates', async () => {
    const { investorId, body } = await given();
    const sent = body();
    assert.equal((await admin.post(URL, sent)).status, 201);
    assert.equal((await admin.post(URL, sent)).status, 201);
    assert.equal((await stored(investorId)).length, 2);
  });

  test('the same key with a different body is a 422 and creates nothing', async () => {
    const { investorId, body } = await given();
    const k = key();
    const sent = body();
    const first = await admin.post(URL, sent, { 'idempotency-key': k });
    assert.equal(first.status, 201);
    const problem = expectProblem(await admin.post(URL, body({ units: 20, total: 2010 }), { 'idempotency-key': k }), 422);
    assert.match(problem.detail, /Idempotency-Key/);
    // The same key and body on another URL is another request too.
    expectProblem(await admin.post(`${URL}?x=1`, sent, { 'idempotency-key': k }), 422);
    assert.deepEqual(
      (await stored(investorId)).map((s) => s.id),
      [first.body.id],
    );
    // And the original still replays.
    const replay = await admin.post(URL, sent, { 'idempotency-key': k });
    assert.equal(replay.status, 201);
    assert.equal(replay.text, first.text);
  });

  test('keys are scoped to the token: another token with the same key is a new request', async () => {
    const { investorId, body } = await given();
    const k = key();
    const sent = body();
    const other = client(t.app, (await createToken(t.database.db, { name: 'second admin', role: 'admin' })).token);
    const first = await admin.post(URL, sent, { 'idempotency-key': k });
    const second = await other.post(URL, sent, { 'idempotency-key': k });
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.notEqual(second.body.id, first.body.id);
    assert.equal(second.headers['idempotent-replayed'], undefined);
    assert.equal((await stored(investorId)).length, 2);
  });

  test('a request that fails stores no key: the retry runs again', async () => {
    const { investorId, body } = await given();
    const k = key();
    const bad = body({ total: 1 });
    expectProblem(await admin.post(URL, bad, { 'idempotency-key': k }), 422);
    expectProblem(await admin.post(URL, bad, { 'idempotency-key': k }), 422); // not a replay: run again
    const good = await admin.post(URL, body(), { 'idempotency-key': k });
    assert.equal(good.status, 201, good.text);
    assert.equal(good.headers['idempotent-replayed'], undefined);
    assert.equal((await stored(investorId)).length, 1);
  });

  test('a malformed key is a 400 naming the header, and nothing is stored', async () => {
    const { investorId, body } = await given();
    for (const bad of ['x'.repeat(256), 'clé-été', 'tab\there']) {
      const problem = expectProblem(await admin.post(URL, body(), { 'idempotency-key': bad }), 400);
      assert.ok(
        problem.errors?.some((e) => e.in === 'header' && e.field === 'idempotency-key'),
        JSON.stringify(problem),
      );
    }
    assert.equal((await admin.post(URL, body(), { 'idempotency-key': 'x'.repeat(255) })).status, 201);
    assert.equal((await admin.post(URL, body(), { 'idempotency-key': 'a key with spaces' })).status, 201);
    assert.equal((await stored(investorId)).length, 2);
  });

  test('while the first request with the key runs, a repeat is a 409 with Retry-After, and nothing is stored', async () => {
    const { investorId, body } = await given();
    const k = key();
    const sent = body();
    const scope = (await sql<{ id: string }>`select id from api_tokens where name = 'test admin'`.execute(t.database.db)).rows[0]!.id;
    // A claim as the first request leaves it while its effect runs (lease of 60 s).
    const now = new Date(Date.now() + offsetMs);
    await t.database.db
      .insertInto('idempotency_keys')
      .values({
        scope,
        key: k,
        fingerprint: fingerprintOf({ method: 'POST', url: URL, body: sent }),
        status: 'in-progress',
        lease_id: randomUUID(),
        created_at: now,
        expires_at: new Date(now.getTime() + 60_000),
      })
      .execute();
    const response = await admin.post(URL, sent, { 'idempotency-key': k });
    const problem = expectProblem(response, 409);
    assert.equal(response.headers['retry-after'], '1');
    assert.match(problem.detail, /still being processed/);
    assert.deepEqual(await stored(investorId), []);

    // A different body with that key is still a 422, even while it runs.
    expectProblem(await admin.post(URL, body({ fee: 1 }), { 'idempotency-key': k }), 422);

    // The first request died (its lease ran out): the retry takes the key over and runs.
    offsetMs += 61_000;
    try {
      const retry = await admin.post(URL, sent, { 'idempotency-key': k });
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.headers['idempotent-replayed'], undefined);
      assert.equal((await admin.post(URL, sent, { 'idempotency-key': k })).headers['idempotent-replayed'], 'true');
    } finally {
      offsetMs -= 61_000;
    }
    assert.equal((await stored(investorId)).length, 1);
  });

  test('keys expire after IDEMPOTENCY_TTL_HOURS and are purged', async () => {
    const { investorId, body } = await given();
    const k = key();
    const sent = body();
    const first = await admin.post(URL, sent, { 'idempotency-key': k });
    assert.equal(first.status, 201);
    const countKeys = async () =>
      Number((await sql<{ n: string }>`select count(*) as n from idempotency_keys where key = ${k}`.execute(t.database.db)).rows[0]!.n);
    offsetMs += 23 * HOUR;
    try {
      assert.equal((await admin.post(URL, sent, { 'idempotency-key': k })).headers['idempotent-replayed'], 'true');
      assert.equal((await purgeExpiredKeys({ db: t.database.db, clock: () => new Date(Date.now() + offsetMs) })) >= 0, true);
      assert.equal(await countKeys(), 1, 'not expired yet, not purged');
      offsetMs += 2 * HOUR;
      assert.ok((await purgeExpiredKeys({ db: t.database.db, clock: () => new Date(Date.now() + offsetMs) })) >= 1);
      assert.equal(await countKeys(), 0);
      // After expiry the key is new again: the request runs (a second subscription).
      const after = await admin.post(URL, sent, { 'idempotency-key': k });
      assert.equal(after.status, 201);
      assert.notEqual(after.body.id, first.body.id);
      assert.equal(after.headers['idempotent-replayed'], undefined);
    } finally {
      offsetMs -= 25 * HOUR;
    }
    assert.equal((await stored(investorId)).length, 2);
  });

  test('an expired key that was never purged is reused like a new one', async () => {
    const { investorId, body } = await given();
    const k = key();
    assert.equal((await admin.post(URL, body(), { 'idempotency-key': k })).status, 201);
    offsetMs += 25 * HOUR;
    try {
      // Even a different body: the old use of the key is gone.
      const response = await admin.post(URL, body({ fee: 3 }), { 'idempotency-key': k });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.fee, 3);
    } finally {
      offsetMs -= 25 * HOUR;
    }
    assert.equal((await stored(investorId)).length, 2);
  });

  test('20 concurrent requests with one key create exactly one subscription; the others wait for it and replay it', { skip: skipUnlessPostgres }, async () => {
    const { investorId, body } = await given();
    const k = key();
    const sent = body();
    const responses = await Promise.all(Array.from({ length: 20 }, () => admin.post(URL, sent, { 'idempotency-key': k })));
    const statuses = responses.map((r) => r.status);
    // The key is taken in the booking's own statement: a duplicate waits for that statement, never sees it running.
    assert.ok(
      statuses.every((s) => s === 201),
      statuses.join(','),
    );
    const created = responses.filter((r) => r.status === 201);
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((r) => r.body.id)).size, 1, 'every 201 is the same subscription');
    assert.equal(created.filter((r) => r.headers['idempotent-replayed'] === undefined).length, 1, 'one ran, the rest replayed');
    assert.equal((await stored(investorId)).length, 1);
    // After the dust settles every retry is a replay.
    const late = await admin.post(URL, sent, { 'idempotency-key': k });
    assert.equal(late.headers['idempotent-replayed'], 'true');
    assert.equal(late.body.id, created[0]!.body.id);
  });
});
