// The lease of an in-progress key, at the operation level: a request that outlives its lease and
// is taken over by a retry cannot commit its effect (PostgreSQL: two requests at once).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/domain/errors.ts';
import { newUuid } from '../../src/operations/deps.ts';
import { runIdempotently } from '../../src/operations/idempotency.ts';
import { findAsset, upsertAsset } from '../../src/store/assets.ts';
import { openTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/app.ts';
import { uniqueAssetId, uniqueId } from '../support/fixtures.ts';

describe('idempotency leases', { skip: skipUnlessPostgres }, () => {
  let database: TestDatabase;
  let offsetMs = 0;
  const clock = () => new Date(Date.now() + offsetMs);
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());

  test('a request taken over after its lease ran out rolls its effect back; the retry commits', async () => {
    const deps = { db: database.db, clock, newId: newUuid };
    const request = { scope: 'token-a', key: uniqueId('k'), fingerprint: 'f1' };
    const slowAsset = uniqueAssetId();
    const retryAsset = uniqueAssetId();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));

    // A stalled owner: its heartbeat does not renew the lease in time (heartbeatMs beyond the test).
    const slow = runIdempotently(deps, request, { ttlMs: 3_600_000, leaseMs: 1000, heartbeatMs: 600_000 }, async (tx) => {
      await upsertAsset(tx.db, { id: slowAsset, name: 'slow', currency: 'EUR' }, tx.clock());
      started();
      await gate; // outlives its lease
      return { status: 201, body: '"slow"' };
    });
    await running;

    // While the lease holds, a retry is a 409.
    await assert.rejects(
      runIdempotently(deps, request, { ttlMs: 3_600_000 }, async () => ({ status: 201, body: '"never"' })),
      (err: unknown) => err instanceof AppError && err.kind === 'conflict',
    );

    offsetMs += 2000;
    const retry = await runIdempotently(deps, request, { ttlMs: 3_600_000, leaseMs: 1000 }, async (tx) => {
      await upsertAsset(tx.db, { id: retryAsset, name: 'retry', currency: 'EUR' }, tx.clock());
      return { status: 201, body: '"retry"' };
    });
    assert.deepEqual(retry, { status: 201, body: '"retry"', replayed: false });

    release();
    await assert.rejects(slow, (err: unknown) => err instanceof AppError && err.kind === 'conflict');
    assert.equal(await findAsset(database.db, slowAsset), undefined, 'the slow effect rolled back');
    assert.ok(await findAsset(database.db, retryAsset));

    const replay = await runIdempotently(deps, request, { ttlMs: 3_600_000 }, async () => ({ status: 201, body: '"again"' }));
    assert.deepEqual(replay, { status: 201, body: '"retry"', replayed: true });
  });

  test('a live request keeps its key past its lease: the heartbeat renews it, and a retry meanwhile is a 409', async () => {
    const deps = { db: database.db, clock: () => new Date(), newId: newUuid };
    const request = { scope: 'token-a', key: uniqueId('k'), fingerprint: 'f1' };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = runIdempotently(deps, request, { ttlMs: 3_600_000, leaseMs: 600, heartbeatMs: 100 }, async () => {
      await gate; // three leases long
      return { status: 201, body: '"slow"' };
    });
    await new Promise((resolve) => setTimeout(resolve, 1800));
    await assert.rejects(
      runIdempotently(deps, request, { ttlMs: 3_600_000, leaseMs: 600 }, async () => ({ status: 201, body: '"retry"' })),
      (err: unknown) => err instanceof AppError && err.kind === 'conflict',
    );
    release();
    assert.deepEqual(await slow, { status: 201, body: '"slow"', replayed: false });
  });
});
