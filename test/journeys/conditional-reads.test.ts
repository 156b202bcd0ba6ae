// investor-data and workflow-status answer with an ETag (the journey's or the workflow's version)
// and honour If-None-Match with 304: the tag changes with every move, edit and workflow change, a
// read after a write is never stale, and an investor's 304 is answered only where their 200 would be.
// investor-data's 304 comes from the versions the instance keeps (operations/caches.ts
// JourneyVersions), without a database read: this instance forgets them before a write's answer,
// another instance when the NOTIFY of the journeys' trigger arrives.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Caches } from '../../src/operations/caches.ts';
import { type Client, client, expectProblem, skipUnlessPostgres, startApp } from '../support/app.ts';
import { startCountingApp } from '../support/counting-app.ts';
import { commit, createDeal, createInvestor } from '../support/deals.ts';
import { eventually } from '../support/webhooks.ts';
import { workflowBody } from '../support/workflows.ts';

type Dropped = { dealIds: string[]; from: 'local' | 'feed' };

/** Records the drops of kept journey versions `caches` makes from now on; `stop` ends it. */
function recordDrops(caches: Caches) {
  const drops: Dropped[] = [];
  const listener = (dropped: Dropped) => drops.push(dropped);
  caches.events.on('journeys-dropped', listener);
  return { drops, stop: () => caches.events.off('journeys-dropped', listener) };
}

/**
 * Resolves once `caches` has dropped the deal's versions on a notification (the channel is
 * database-wide: other files' deals arrive too), within 5 s.
 */
const notified = (caches: Caches, dealId: string) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      caches.events.off('journeys-dropped', listener);
      reject(new Error(`no notification for ${dealId} within 5 s`));
    }, 5_000);
    const listener = (dropped: Dropped) => {
      if (dropped.from !== 'feed' || !dropped.dealIds.includes(dealId)) return;
      caches.events.off('journeys-dropped', listener);
      clearTimeout(timer);
      resolve();
    };
    caches.events.on('journeys-dropped', listener);
  });

/**
 * Runs a write of the deal, then waits for its notification to reach `caches` (on PGlite it comes
 * within the commit; on PostgreSQL on another connection, maybe after the answer, when it drops
 * what a read made meanwhile kept): what a test reads next is kept until the test's next write.
 */
async function settled<T>(caches: Caches, dealId: string, write: () => Promise<T>): Promise<T> {
  const arrived = notified(caches, dealId);
  const result = await write();
  await arrived;
  return result;
}

const versionOf = (etag: unknown) => String(etag).replace(/^"j(\d+)"$/, '$1');

describe('conditional reads', () => {
  const t = startApp();
  const admin = t.admin;

  test('investor-data: an ETag that changes with every move and edit, 304 while it is current, never a stale body after a write', async () => {
    const deal = await createDeal(admin);
    const a = await deal.addInvestor();
    const path = `/deals/deal/${deal.dealId}/investor-data/${a}`;
    const empty = await admin.get(path);
    assert.equal(empty.status, 200);
    assert.equal(empty.headers.etag, '"j0"');
    assert.equal(t.caches.journeyVersions.get(deal.dealId, a), undefined, 'version 0 is not kept');
    const event = await settled(t.caches, deal.dealId, () => deal.move(a, 'commitment', { committed_amount: '100.00', currency: 'EUR' }));
    const first = await admin.get(path);
    assert.equal(first.status, 200);
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    const tag = String(first.headers.etag);
    assert.notEqual(tag, '"j0"');
    assert.equal(t.caches.journeyVersions.get(deal.dealId, a), versionOf(tag), 'kept for the next 304');
    // Held: 304, no body, the same tag; also among several tags, weak or strong, and for *.
    for (const held of [tag, `"x", ${tag}`, `W/${tag}`, '*']) {
      const again = await admin.get(path, { 'if-none-match': held });
      assert.equal(again.status, 304, held);
      assert.equal(again.text, '');
      assert.equal(again.headers.etag, tag);
    }
    // A repeated read without the tag is the same body (kept by version).
    assert.equal((await admin.get(path)).text, first.text);
    // A move: the old tag is no longer current, the body is the new one.
    await deal.move(a, 'kyc', { kyc_ref: 'K-1' });
    const moved = await admin.get(path, { 'if-none-match': tag });
    assert.equal(moved.status, 200);
    assert.notEqual(moved.headers.etag, tag);
    assert.equal(moved.body.journey.length, 2);
    // An edit of an event's data: a new version too.
    const edited = await admin.post(`/deals/event/${event.id}/edit`, { committed_amount: '250.00', currency: 'EUR' });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    const afterEdit = await admin.get(path, { 'if-none-match': String(moved.headers.etag) });
    assert.equal(afterEdit.status, 200);
    assert.equal(afterEdit.body.journey[0].data.committed_amount, '250.00');
    assert.notEqual(afterEdit.headers.etag, moved.headers.etag);
  });

  test("investor-data: an investor gets 304 for their own journey only; another investor's, or a deal they are not in, stays 404 whatever the tag", async () => {
    const deal = await createDeal(admin);
    const [a, b] = [await deal.addInvestor(), await deal.addInvestor()];
    await settled(t.caches, deal.dealId, () => deal.move(a, 'interest'));
    await settled(t.caches, deal.dealId, () => deal.move(b, 'interest'));
    const tagOfB = String((await admin.get(`/deals/deal/${deal.dealId}/investor-data/${b}`)).headers.etag);
    assert.equal(t.caches.journeyVersions.get(deal.dealId, b), versionOf(tagOfB), "b's version is kept: the refusal below is not for want of it");
    const investorA = client(t.app, await t.investorToken(a));
    const own = await investorA.get(`/deals/deal/${deal.dealId}/investor-data/${a}`);
    assert.equal(own.status, 200);
    assert.equal((await investorA.get(`/deals/deal/${deal.dealId}/investor-data/${a}`, { 'if-none-match': String(own.headers.etag) })).status, 304);
    for (const held of [tagOfB, '*']) {
      expectProblem(await investorA.get(`/deals/deal/${deal.dealId}/investor-data/${b}`, { 'if-none-match': held }), 404);
    }
    const other = await createDeal(admin);
    for (const held of ['"j0"', '"j1"', '*']) {
      expectProblem(await investorA.get(`/deals/deal/${other.dealId}/investor-data/${a}`, { 'if-none-match': held }), 404);
      expectProblem(await investorA.get(`/deals/deal/no-such-deal/investor-data/${a}`, { 'if-none-match': held }), 404);
    }
  });

  test("investor-data: every kind of write drops the journey's kept version in this instance before its answer, so the old tag gets 200 at once", async () => {
    const deal = await createDeal(admin);
    const a = await deal.addInvestor();
    const path = `/deals/deal/${deal.dealId}/investor-data/${a}`;
    await deal.move(a, 'interest');
    const event = await settled(t.caches, deal.dealId, () => deal.move(a, 'commitment', { committed_amount: '100.00', currency: 'EUR' }));
    const investorA = client(t.app, await t.investorToken(a));
    const writes: [string, () => Promise<{ status: number; body: unknown }>, number][] = [
      [
        'a move',
        () => admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: a, targetStepId: deal.step('kyc'), data: { kyc_ref: 'K-1' } }),
        201,
      ],
      ['an event edit', () => admin.post(`/deals/event/${event.id}/edit`, { committed_amount: '150.00', currency: 'EUR' }), 200],
      [
        'a move with an Idempotency-Key',
        () =>
          admin.post(
            `/deals/deal/${deal.dealId}/jump-to-step`,
            { investorUserId: a, targetStepId: deal.step('documents'), data: { signed: 'yes' } },
            { 'idempotency-key': `etag-${deal.dealId}` },
          ),
        201,
      ],
      [
        'a bulk move',
        () => admin.post(`/deals/deal/${deal.dealId}/jump-to-step/bulk`, { moves: [{ investorUserId: a, targetStepId: deal.step('payment'), data: {} }] }),
        200,
      ],
      ["an edit request's approval", () => admin.post(`/deals/request-to-edit/${editRequestId}/approve`, { reason: 'Confirmed' }), 200],
    ];
    let editRequestId = '';
    for (const [name, write, status] of writes) {
      if (name === "an edit request's approval") {
        const created = await settled(t.caches, deal.dealId, () =>
          investorA.post('/deals/request-to-edit', {
            workflowEventId: event.id,
            type: 'Investment Amount',
            reason: 'More',
            newData: { committed_amount: '300.00' },
          }),
        );
        assert.equal(created.status, 201, JSON.stringify(created.body));
        editRequestId = created.body.id;
      }
      const read = await admin.get(path);
      const tag = String(read.headers.etag);
      assert.equal((await admin.get(path, { 'if-none-match': tag })).status, 304, name);
      assert.equal(t.caches.journeyVersions.get(deal.dealId, a), versionOf(tag), name);
      const arrived = notified(t.caches, deal.dealId);
      const recorded = recordDrops(t.caches);
      const written = await write();
      const atAnswer = [...recorded.drops];
      recorded.stop();
      assert.equal(written.status, status, `${name}: ${JSON.stringify(written.body)}`);
      // Dropped by the transaction's own process, not only by its notification, which on
      // PostgreSQL comes on another connection, maybe after the answer.
      assert.ok(
        atAnswer.some((d) => d.from === 'local' && d.dealIds.includes(deal.dealId)),
        `${name}: dropped before its answer (${JSON.stringify(atAnswer)})`,
      );
      assert.equal(t.caches.journeyVersions.get(deal.dealId, a), undefined, name);
      const after = await admin.get(path, { 'if-none-match': tag });
      assert.equal(after.status, 200, name);
      assert.notEqual(after.headers.etag, tag, name);
      await arrived;
    }
  });

  test('investor-data: the 304 comes from the kept version, no database read; a version changed without a notification is not seen until one comes', async () => {
    const deal = await createDeal(admin);
    const a = await deal.addInvestor();
    await settled(t.caches, deal.dealId, () => deal.move(a, 'interest'));
    const path = `/deals/deal/${deal.dealId}/investor-data/${a}`;
    const tag = String((await admin.get(path)).headers.etag);
    const journey = sql`deal_id = ${deal.dealId} and investor_user_id = ${a}`;
    // Behind the service's back and without the trigger's NOTIFY (nothing in the service does
    // this: migration 0058), the version changes: the database would answer 200, the instance 304.
    await sql`alter table journeys disable trigger journeys_version_notify`.execute(t.database.db);
    try {
      await sql`update journeys set audit_seq = audit_seq + 1 where ${journey}`.execute(t.database.db);
    } finally {
      await sql`alter table journeys enable trigger journeys_version_notify`.execute(t.database.db);
    }
    const held = await admin.get(path, { 'if-none-match': tag });
    assert.equal(held.status, 304, 'answered without reading the database');
    assert.equal(held.headers.etag, tag);
    // The trigger notifies the deal on a change of any journey's version, whichever statement makes it.
    const arrived = notified(t.caches, deal.dealId);
    await sql`update journeys set audit_seq = audit_seq + 1 where ${journey}`.execute(t.database.db);
    await arrived;
    const fresh = await admin.get(path, { 'if-none-match': tag });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.headers.etag, `"j${Number(versionOf(tag)) + 2}"`);
    await sql`update journeys set audit_seq = audit_seq - 2 where ${journey}`.execute(t.database.db); // the chain as its log says
  });

  test('workflow-status: the version as ETag (staff and investors apart), 304 while current, a new tag after a PUT of the workflow', async () => {
    const deal = await createDeal(admin);
    const a = await deal.addInvestor();
    await deal.move(a, 'interest');
    const path = `/deals/deal/${deal.dealId}/workflow-status`;
    const first = await admin.get(path);
    assert.equal(first.status, 200);
    const tag = String(first.headers.etag);
    assert.equal(tag, '"wa1"');
    const again = await admin.get(path, { 'if-none-match': tag });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const investor = client(t.app, await t.investorToken(a));
    const theirs = await investor.get(path, { 'if-none-match': tag });
    assert.equal(theirs.status, 200, "an investor's view is another representation");
    assert.equal(theirs.headers.etag, '"w1"');
    assert.equal((await investor.get(path, { 'if-none-match': '"w1"' })).status, 304);
    const put = await admin.put(`/deals/deal/${deal.dealId}/workflow`, workflowBody(deal.dealId));
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const changed = await admin.get(path, { 'if-none-match': tag });
    assert.equal(changed.status, 200);
    assert.equal(changed.headers.etag, '"wa2"');
    // An investor of another deal: 404 with or without a tag.
    const other = await createDeal(admin);
    expectProblem(await investor.get(`/deals/deal/${other.dealId}/workflow-status`, { 'if-none-match': '*' }), 404);
  });

  /** A read answered with a digest ETag: 304 while it is current, the same body again, a new tag and body after `write`. */
  async function conditional(reader: ReturnType<typeof client>, path: string, write: () => Promise<void>, prefix: string) {
    const first = await reader.get(path);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const tag = String(first.headers.etag);
    assert.match(tag, new RegExp(`^"${prefix}[A-Za-z0-9_-]{22}"$`));
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    for (const held of [tag, `"x", W/${tag}`, '*']) {
      const again = await reader.get(path, { 'if-none-match': held });
      assert.equal(again.status, 304, `${path} ${held}`);
      assert.equal(again.text, '');
      assert.equal(again.headers.etag, tag);
    }
    assert.equal((await reader.get(path, { 'if-none-match': '"x"' })).text, first.text);
    await write();
    const changed = await reader.get(path, { 'if-none-match': tag });
    assert.equal(changed.status, 200, `${path}: a write makes a new tag`);
    assert.notEqual(changed.headers.etag, tag);
    assert.notEqual(changed.text, first.text);
    assert.equal((await reader.get(path, { 'if-none-match': String(changed.headers.etag) })).status, 304);
    return changed;
  }

  test('a deal, an investor and an asset: a digest ETag, 304 while current, a new tag after a PUT that changes them', async () => {
    const deal = await createDeal(admin);
    await conditional(
      admin,
      `/deals/deal/${deal.dealId}`,
      async () => {
        assert.equal((await admin.put(`/deals/deal/${deal.dealId}`, { name: 'Renamed', currency: 'GBP' })).status, 200);
      },
      'd',
    );
    const { id, body } = await createInvestor(admin);
    await conditional(
      admin,
      `/investors/${id}`,
      async () => {
        const put = await admin.put(`/investors/${id}`, { ...body, kycCheckLevel: body.kycCheckLevel === 3 ? 2 : 3 });
        assert.equal(put.status, 200, JSON.stringify(put.body));
      },
      'i',
    );
    const assetId = String(Math.floor(Math.random() * 1e9) + 1);
    assert.equal((await admin.put(`/portfolio/assets/${assetId}`, { name: 'Acme', currency: 'EUR' })).status, 201);
    await conditional(
      admin,
      `/portfolio/assets/${assetId}`,
      async () => {
        assert.equal((await admin.put(`/portfolio/assets/${assetId}`, { name: 'Acme (renamed)', currency: 'EUR' })).status, 200);
      },
      'a',
    );
    expectProblem(await admin.get('/deals/deal/no-such-deal', { 'if-none-match': '*' }), 404);
  });

  test("an event's revisions: a new tag after an edit; an investor gets 304 for their own only, and another's stays refused whatever the tag", async () => {
    const deal = await createDeal(admin);
    const [a, b] = [await deal.addInvestor(), await deal.addInvestor()];
    const event = await deal.move(a, 'commitment', { committed_amount: '100.00', currency: 'EUR' });
    const eventOfB = await deal.move(b, 'interest');
    const path = `/deals/event/${event.id}/revisions`;
    const changed = await conditional(
      admin,
      path,
      async () => {
        assert.equal((await admin.post(`/deals/event/${event.id}/edit`, { committed_amount: '250.00', currency: 'EUR' })).status, 200);
      },
      'r',
    );
    assert.equal(changed.body.length, 2);
    const investorA = client(t.app, await t.investorToken(a));
    const own = await investorA.get(path);
    assert.equal(own.status, 200);
    assert.equal((await investorA.get(path, { 'if-none-match': String(own.headers.etag) })).status, 304);
    const theirs = await admin.get(`/deals/event/${eventOfB.id}/revisions`);
    const refused = (await investorA.get(`/deals/event/${eventOfB.id}/revisions`)).status;
    assert.ok(refused === 403 || refused === 404, String(refused));
    for (const held of [String(theirs.headers.etag), '*']) {
      expectProblem(await investorA.get(`/deals/event/${eventOfB.id}/revisions`, { 'if-none-match': held }), refused);
    }
    const investorB = client(t.app, await t.investorToken(b));
    expectProblem(await investorB.get(`/investors/${a}`, { 'if-none-match': '*' }), 404);
  });

  test('an edit request, a form implementation and a payment reference: 304 while current, a new tag after a decision, refused to another investor whatever the tag', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const investor = await createInvestor(admin);
    const event = await commit(admin, deal, investor.id);
    const own = client(t.app, await t.investorToken(investor.id));
    const created = await own.post('/deals/request-to-edit', {
      workflowEventId: event.id,
      type: 'Investment Amount',
      reason: 'More',
      newData: { committed_amount: '30000.00' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const requestPath = `/deals/request-to-edit/${created.body.id}`;
    const decided = await conditional(
      own,
      requestPath,
      async () => {
        assert.equal((await admin.post(`${requestPath}/approve`, { reason: 'Confirmed' })).status, 200);
      },
      'e',
    );
    assert.equal(decided.body.status, 'approved');
    const stranger = client(t.app, await t.investorToken((await createInvestor(admin)).id));
    const refused = (await stranger.get(requestPath)).status;
    assert.ok(refused === 403 || refused === 404, String(refused));
    expectProblem(await stranger.get(requestPath, { 'if-none-match': String(decided.headers.etag) }), refused);

    const formPath = `/deals/workflow/step/${deal.steps.commit}/investor-form-implementation?investorUserId=${investor.id}`;
    const form = await admin.get(formPath);
    assert.equal(form.status, 200, JSON.stringify(form.body));
    assert.match(String(form.headers.etag), /^"f/);
    assert.equal((await admin.get(formPath, { 'if-none-match': String(form.headers.etag) })).status, 304);

    const references = await admin.get(`/deals/deal/${deal.dealId}/all-payment-refernces`);
    const reference = references.body.find((r: { investorUserId: string }) => r.investorUserId === investor.id).paymentReference;
    const lookup = await admin.get(`/payments/references/${reference}`);
    assert.equal(lookup.status, 200, JSON.stringify(lookup.body));
    assert.match(String(lookup.headers.etag), /^"p/);
    assert.equal((await admin.get(`/payments/references/${reference}`, { 'if-none-match': String(lookup.headers.etag) })).status, 304);
  });
});

describe('investor-data across two instances (PostgreSQL)', { skip: skipUnlessPostgres }, () => {
  // `b` is an instance with its own caches, LISTENing as a service does; `a` the test app, another.
  const b = startCountingApp({ connectCaches: true });
  let adminA: Client;
  let adminB: Client;
  before(() => {
    adminA = b.other.admin;
    adminB = b.admin();
  });

  /** The statements instance b sends for `call` (the token's lookup, authentication's, left out). */
  async function statementsOf(call: () => Promise<{ status: number }>, status: number): Promise<string[]> {
    b.take();
    const response = await call();
    assert.equal(response.status, status);
    return b.take().filter((s) => !/"api_tokens"/.test(s));
  }

  test("a 304 with no statement; a move through the other instance: 200 there at once, here once its notification has arrived; another investor's journey stays 404", async () => {
    const deal = await createDeal(adminA);
    const [a, other] = [await deal.addInvestor(), await deal.addInvestor()];
    await settled(b.caches(), deal.dealId, () => deal.move(a, 'interest'));
    await settled(b.caches(), deal.dealId, () => deal.move(other, 'interest'));
    const path = `/deals/deal/${deal.dealId}/investor-data/${a}`;
    const first = await adminB.get(path);
    assert.equal(first.status, 200);
    const tag = String(first.headers.etag);
    assert.deepEqual(await statementsOf(() => adminB.get(path, { 'if-none-match': tag }), 304), []);

    const arrived = notified(b.caches(), deal.dealId);
    await deal.move(a, 'commitment', { committed_amount: '100.00', currency: 'EUR' });
    assert.equal((await adminA.get(path, { 'if-none-match': tag })).status, 200, 'the instance that moved: at once');
    // Instance b: the notification is delivered on commit, a few milliseconds later.
    const fresh = await eventually(
      async () => {
        const read = await adminB.get(path, { 'if-none-match': tag });
        return read.status === 200 ? read : undefined;
      },
      5_000,
      "instance b's 200 after the other instance's move",
    );
    await arrived;
    const newTag = String(fresh.headers.etag);
    assert.notEqual(newTag, tag);
    assert.equal((await adminB.get(path, { 'if-none-match': tag })).status, 200);
    assert.deepEqual(await statementsOf(() => adminB.get(path, { 'if-none-match': newTag }), 304), []);

    // An investor asking b for another's journey, which b keeps: 404 whatever the tag.
    assert.equal(b.caches().journeyVersions.get(deal.dealId, a), versionOf(newTag));
    const asOther = b.client(await b.other.investorToken(other));
    for (const held of [newTag, '*']) expectProblem(await asOther.get(path, { 'if-none-match': held }), 404);
  });
});
