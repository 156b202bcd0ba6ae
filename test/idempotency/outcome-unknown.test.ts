// A commit that hangs (a synchronous standby that is gone: synchronous_standby_names names one that
// does not exist) on a throwaway cluster, as on a formation's primary whose standby died, or a
// restored copy of a formation's node. PostgreSQL has then written each commit locally and makes it
// visible once the wait ends; the client cannot know. So:
// - a write whose commit is cut off answers `outcome-unknown` (503, retryable, Retry-After: 1),
//   never `database-unavailable`, which promises nothing was applied;
// - its key stays claimed, and once commits go through again its retry replays the committed
//   result (Idempotent-Replayed: true), with the effect there once;
// - /readyz answers 503 within its bound (a commit does not complete), and /whoami and the portal's
//   session, reads, answer at once (a token's use and a session's renewal are written off the
//   request path).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { type Client, client, expectProblem, onPostgres } from '../support/app.ts';
import { createDeal, createInvestor } from '../support/deals.ts';
import { subscriptionBody, uniqueAssetId } from '../support/fixtures.ts';
import { invitationToken, portal } from '../support/portal.ts';
import { clusterUnavailable, createCluster, type ThrowawayCluster } from '../support/throwaway-cluster.ts';

const skip = !onPostgres ? 'needs PostgreSQL (set TEST_DATABASE_URL); it makes a throwaway cluster of its own' : (clusterUnavailable() ?? false);
const TIMEOUT_MS = 800;
let ahead = 0;

describe('a commit whose outcome is unknown', { skip }, () => {
  let cluster: ThrowawayCluster;
  let database: Database;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let admin: Client;
  let superuser: pg.Client;

  before(async () => {
    cluster = await createCluster();
    superuser = new pg.Client({ connectionString: cluster.url });
    await superuser.connect();
    await superuser.query('create extension if not exists pg_trgm; create extension if not exists btree_gin');
    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: cluster.url, DATABASE_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOKS_DISPATCHER: 'off' });
    database = await openDatabase(config);
    await migrateToLatest(database.db);
    // The clock runs ahead when the test says, so a portal session is due for renewal.
    app = await buildApp({ db: database.db, config, clock: () => new Date(systemClock().getTime() + ahead), newId: newUuid });
    await app.ready();
    admin = client(app, (await createToken(database.db, { name: 'test admin', role: 'admin' })).token);
  });
  after(async () => {
    await superuser?.query(`alter system reset synchronous_standby_names; select pg_reload_conf()`).catch(() => {});
    await app?.close();
    await database?.close();
    await superuser?.end().catch(() => {});
    cluster?.destroy();
  });

  const commitsHang = async (hang: boolean) => {
    await superuser.query(hang ? `alter system set synchronous_standby_names = 'ANY 1 (missing_standby)'` : 'alter system reset synchronous_standby_names');
    await superuser.query('select pg_reload_conf()');
    // The checkpointer applies it (and, when reset, releases the waiting commits) on its reload.
    await new Promise((resolve) => setTimeout(resolve, 500));
  };

  test('the write answers outcome-unknown, and its retry replays what committed', { timeout: 120_000 }, async () => {
    const deal = await createDeal(admin);
    const investor = (await createInvestor(admin)).id;
    const assetId = uniqueAssetId();
    assert.equal((await admin.put(`/portfolio/assets/${assetId}`, { name: 'Outcome Ltd', currency: 'EUR' })).status, 201);
    const reader = client(app, (await createToken(database.db, { name: 'reader', role: 'admin' })).token);
    const portalSite = portal(app, '', 'http://localhost:3000');
    const [invitation] = await portalSite.invite(admin, [investor]);
    const { session } = await portalSite.register(invitationToken(invitation!.url));

    await commitsHang(true);
    try {
      // Readiness: a 503 within its bound, not a hang.
      let started = performance.now();
      const ready = await admin.get('/readyz');
      const readyMs = performance.now() - started;
      const notReady = expectProblem(ready, 503);
      assert.match(notReady.detail, /commit/);
      assert.ok(readyMs < 1500, `/readyz answered in ${Math.round(readyMs)} ms`);

      // A read does not wait for a commit: the token's first use is recorded after the answer.
      started = performance.now();
      const whoami = await reader.get('/whoami');
      assert.equal(whoami.status, 200, whoami.text);
      assert.ok(performance.now() - started < TIMEOUT_MS, `/whoami answered in ${Math.round(performance.now() - started)} ms`);

      // Nor does the portal's session, due for renewal five minutes on: the renewal is written after.
      ahead += 5 * 60_000;
      started = performance.now();
      const portalRead = await session.api.get('/portal/api/session');
      assert.equal(portalRead.status, 200, portalRead.text);
      assert.ok(performance.now() - started < TIMEOUT_MS, `the portal's session answered in ${Math.round(performance.now() - started)} ms`);

      const subscriptionKey = randomUUID();
      const body = subscriptionBody(assetId, investor);
      const booked = await admin.post('/portfolio/transactions/subscriptions', body, { 'idempotency-key': subscriptionKey });
      const bookingProblem = expectProblem(booked, 503);
      assert.equal(bookingProblem.type, 'urn:dealflow:problem:outcome-unknown', booked.text);
      assert.equal(bookingProblem.retryable, true);
      assert.equal(booked.headers['retry-after'], '1');

      const moveKey = randomUUID();
      const move = { investorUserId: investor, targetStepId: deal.step('interest'), data: {} };
      const moved = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, move, { 'idempotency-key': moveKey });
      assert.equal(expectProblem(moved, 503).type, 'urn:dealflow:problem:outcome-unknown', moved.text);

      await commitsHang(false);

      // The commits landed when the wait ended: each retry replays its result, and nothing is doubled.
      const bookedAgain = await admin.post('/portfolio/transactions/subscriptions', body, { 'idempotency-key': subscriptionKey });
      assert.equal(bookedAgain.status, 201, bookedAgain.text);
      assert.equal(bookedAgain.headers['idempotent-replayed'], 'true');
      const movedAgain = await retryWhileInProgress(() => admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, move, { 'idempotency-key': moveKey }));
      assert.equal(movedAgain.status, 201, movedAgain.text);
      assert.equal(movedAgain.headers['idempotent-replayed'], 'true');

      const { rows: subscriptions } = await superuser.query('select count(*)::int as n from subscriptions where source_id = $1', [body.source_id]);
      assert.equal(subscriptions[0].n, 1);
      const { rows: events } = await superuser.query('select count(*)::int as n from workflow_events where deal_id = $1 and investor_user_id = $2', [
        deal.dealId,
        investor,
      ]);
      assert.equal(events[0].n, 1);

      const readyAgain = await retryWhileInProgress(() => admin.get('/readyz'));
      assert.equal(readyAgain.status, 200, readyAgain.text);
    } finally {
      await commitsHang(false);
    }
  });
});

/** A 409 in progress or a 503 answers "not yet": asks again for a few seconds. */
async function retryWhileInProgress<T extends { status: number }>(call: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    const response = await call();
    if ((response.status !== 409 && response.status !== 503) || i >= 30) return response;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
