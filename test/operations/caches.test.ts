// The caches (src/operations/caches.ts): a cached API key stops working as soon as it is
// revoked, and a re-applied workflow is seen at once; in this instance at once, in the others when
// the NOTIFY arrives (simulated here by changing rows behind the service's back, then notifying).
// investor-data's kept journey versions: the class's guards (the HTTP side is in
// test/journeys/conditional-reads.test.ts).
import assert from 'node:assert/strict';
import type { Caches, Invalidation } from '../../src/operations/caches.ts';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { JourneyVersions, publishInvalidation } from '../../src/operations/caches.ts';
import { createToken, revokeToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { workflowBody } from '../support/workflows.ts';

/** Resolves when `caches` has applied this invalidation (the channel is database-wide: other test
 * files on the same PostgreSQL database send theirs too). */
const applied = (caches: Caches, expected: Invalidation) =>
  new Promise<void>((resolve) => {
    const listener = (message: Invalidation) => {
      if (JSON.stringify(message) !== JSON.stringify(expected)) return;
      caches.events.off('invalidated', listener);
      resolve();
    };
    caches.events.on('invalidated', listener);
  });

describe('token cache', () => {
  const t = startApp();

  test('a revoked token is refused on the next request, though it was just cached', async () => {
    const created = await createToken(t.database.db, { name: 'cached', role: 'admin' });
    const api = client(t.app, created.token);
    assert.equal((await api.get('/whoami')).status, 200);
    assert.equal((await api.get('/whoami')).status, 200, 'served from the cache');
    await revokeToken(t.database.db, created.id);
    expectProblem(await api.get('/whoami'), 401);
  });

  test('a revocation made elsewhere reaches this instance through its notification', async () => {
    const created = await createToken(t.database.db, { name: 'revoked elsewhere', role: 'admin' });
    const api = client(t.app, created.token);
    assert.equal((await api.get('/whoami')).status, 200);
    // Another instance (or the CLI in another process) revokes: the row changes, then its NOTIFY
    // arrives here. Until then this instance still trusts its cache, for at most the TTL.
    await sql`update api_tokens set revoked_at = now() where id = ${created.id}`.execute(t.database.db);
    assert.equal((await api.get('/whoami')).status, 200, 'the cache answered, not the database');
    const arrived = applied(t.caches, { kind: 'token', tokenId: created.id });
    await publishInvalidation(t.database.db, { kind: 'token', tokenId: created.id });
    await arrived;
    expectProblem(await api.get('/whoami'), 401);
  });
});

describe('workflow cache', () => {
  const t = startApp();

  const labels = (body: any) => body.steps.map((s: { label: string }) => s.label);

  test('a re-applied workflow is seen at once by workflow-status and by the next move', async () => {
    const admin = client(t.app, t.adminToken);
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const before = await admin.get(`/deals/deal/${deal.dealId}/workflow-status`);
    assert.equal(before.status, 200);
    assert.equal((await admin.get(`/deals/deal/${deal.dealId}/workflow-status`)).status, 200, 'now cached');
    await deal.move(investor, 'interest');

    // Re-apply: the interest step is renamed and a new entry step "waitlist" leads to it.
    const body = workflowBody(deal.dealId);
    body.steps[0]!.label = 'Expression of interest';
    body.steps.push({ id: deal.step('waitlist'), label: 'Waitlist', type: 'default', stepFields: [] });
    body.links.push({ fromStepId: deal.step('waitlist'), toStepId: deal.step('interest') });
    assert.equal((await admin.put(`/deals/deal/${deal.dealId}/workflow`, body)).status, 200);

    const after = await admin.get(`/deals/deal/${deal.dealId}/workflow-status`);
    assert.equal(after.body.version, before.body.version + 1);
    assert.ok(labels(after.body).includes('Expression of interest'));
    assert.ok(labels(after.body).includes('Waitlist'));
    // A move to the new step works at once (the old structure would answer 404 for it). The investor
    // already in flight stays on version 1 until migrated; one who starts now is on version 2.
    const newcomer = await deal.addInvestor();
    await deal.move(newcomer, 'waitlist');
  });

  test('a workflow changed by another instance is refused to moves at once and reaches reads by notification', async () => {
    const admin = client(t.app, t.adminToken);
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    await deal.move(investor, 'interest');
    assert.equal((await admin.get(`/deals/deal/${deal.dealId}/workflow-status`)).status, 200);

    // Another instance retires a step (as its PUT would: the rows, a new version, then NOTIFY).
    const retire = async (name: string) => {
      await sql`update workflow_steps set retired_at = now() where id = ${deal.step(name)}`.execute(t.database.db);
      await sql`update workflows set version = version + 1 where deal_id = ${deal.dealId}`.execute(t.database.db);
    };
    await retire('withdrawn');
    const stale = await admin.get(`/deals/deal/${deal.dealId}/workflow-status`);
    assert.ok(labels(stale.body).includes('Withdrawn'), 'reads are served from the cache until the notification');
    // Moves check the version under the row lock, so they see the change before any notification
    // (a journey that starts now is on the new version; the one in flight stays on version 1).
    const newcomer = await deal.addInvestor();
    const move = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: newcomer, targetStepId: deal.step('withdrawn'), data: {} });
    expectProblem(move, 404);

    await retire('kyc');
    const arrived = applied(t.caches, { kind: 'workflow', dealId: deal.dealId });
    await publishInvalidation(t.database.db, { kind: 'workflow', dealId: deal.dealId });
    await arrived;
    const fresh = await admin.get(`/deals/deal/${deal.dealId}/workflow-status`);
    assert.ok(!labels(fresh.body).includes('KYC'));
    assert.ok(!labels(fresh.body).includes('Withdrawn'));
  });
});

describe("investor-data's kept journey versions", () => {
  const on = (options: ConstructorParameters<typeof JourneyVersions>[0] = {}) => {
    const versions = new JourneyVersions(options);
    versions.setEnabled(true);
    return versions;
  };

  test('off until its LISTEN is up, and again while it is down: nothing is kept', () => {
    const versions = new JourneyVersions();
    versions.set('d', 'i', '3', versions.generation);
    assert.equal(versions.get('d', 'i'), undefined, 'off when made');
    versions.setEnabled(true);
    versions.set('d', 'i', '3', versions.generation);
    assert.equal(versions.get('d', 'i'), '3');
    versions.setEnabled(false);
    assert.equal(versions.get('d', 'i'), undefined, 'forgotten when switched off');
    versions.set('d', 'i', '3', versions.generation);
    assert.equal(versions.get('d', 'i'), undefined);
  });

  test("version 0 (a journey without events) is never kept; a later read's version replaces an earlier one", () => {
    const versions = on();
    versions.set('d', 'i', '0', versions.generation);
    assert.equal(versions.get('d', 'i'), undefined);
    versions.set('d', 'i', '2', versions.generation);
    versions.set('d', 'i', '3', versions.generation);
    assert.equal(versions.get('d', 'i'), '3');
  });

  test("a drop forgets the deal's versions, not another deal's", () => {
    const versions = on();
    versions.set('d1', 'a', '3', versions.generation);
    versions.set('d1', 'b', '5', versions.generation);
    versions.set('d2', 'a', '7', versions.generation);
    versions.drop('d1');
    assert.equal(versions.get('d1', 'a'), undefined);
    assert.equal(versions.get('d1', 'b'), undefined);
    assert.equal(versions.get('d2', 'a'), '7');
    versions.set('d1', 'a', '4', versions.generation);
    assert.equal(versions.get('d1', 'a'), '4', 'a read that began after the drop is kept');
  });

  test('the generation guard: a read that began before a drop of its deal, or before everything was dropped, keeps nothing', () => {
    const versions = on();
    const before = versions.generation;
    versions.drop('d1');
    versions.set('d1', 'a', '3', before);
    assert.equal(versions.get('d1', 'a'), undefined, 'read before the drop: maybe the replaced version');
    versions.set('d2', 'a', '3', before);
    assert.equal(versions.get('d2', 'a'), '3', 'another deal was not dropped');
    const beforeClear = versions.generation;
    versions.clear();
    versions.set('d2', 'b', '3', beforeClear);
    assert.equal(versions.get('d2', 'b'), undefined);
    const beforeOff = versions.generation;
    versions.setEnabled(false);
    versions.setEnabled(true);
    versions.set('d2', 'b', '3', beforeOff);
    assert.equal(versions.get('d2', 'b'), undefined, 'read while the LISTEN was down');
  });

  test('bounded: the least recently used versions go past the bound; past the deals whose drops it remembers, a drop forgets everything', () => {
    const versions = on({ maxEntries: 2, maxDroppedDeals: 2 });
    versions.set('d', 'a', '1', versions.generation);
    versions.set('d', 'b', '1', versions.generation);
    assert.equal(versions.get('d', 'a'), '1');
    versions.set('d', 'c', '1', versions.generation);
    assert.equal(versions.get('d', 'b'), undefined, 'the least recently used');
    assert.equal(versions.get('d', 'a'), '1');
    const before = versions.generation;
    versions.drop('x');
    versions.drop('y');
    versions.set('d', 'c', '2', versions.generation);
    versions.drop('z'); // a third deal: everything goes
    assert.equal(versions.get('d', 'a'), undefined);
    assert.equal(versions.get('d', 'c'), undefined);
    versions.set('x', 'a', '1', before);
    assert.equal(versions.get('x', 'a'), undefined, 'a read in flight across it keeps nothing');
  });
});
