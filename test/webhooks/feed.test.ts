// The pull feed (GET /deals/deal/{dealId}/events) and the delivery list (GET /webhooks/deliveries).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { commitStepEntered, dealWithTriggers, depsOf, feedCaughtUp, manualClock } from '../support/webhooks.ts';

describe('the pull feed', () => {
  const t = startApp();

  test('returns a deal’s entries in the order written and pages with after', async () => {
    const admin = client(t.app, t.adminToken);
    const deps = depsOf(t.database.db);
    const dealId = await dealWithTriggers(admin, deps, {});
    const other = await dealWithTriggers(admin, deps, {});
    const ids: string[] = [];
    for (let i = 1; i <= 7; i++) {
      ids.push(await commitStepEntered(deps, dealId, `step-${i}`, 'inv-feed'));
      await commitStepEntered(deps, other, 'elsewhere'); // interleaved, in another deal's feed
    }

    await feedCaughtUp(t.database.db);
    const first = await admin.get(`/deals/deal/${dealId}/events?limit=3`);
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.output.map((e: any) => e.id),
      ids.slice(0, 3),
    );
    assert.equal(first.body.lastSequence, first.body.output[2].sequence);
    assert.equal(first.body.hasMore, true);
    const entry = first.body.output[0];
    assert.deepEqual(Object.keys(entry), ['id', 'type', 'timestamp', 'dealId', 'sequence', 'data']);
    assert.equal(entry.type, 'journey.step-entered');
    assert.equal(entry.dealId, dealId);
    assert.equal(entry.data.toStepId, 'step-1');

    const seen = [...first.body.output];
    let after = first.body.lastSequence;
    for (let page = 0; page < 10; page++) {
      const next = await admin.get(`/deals/deal/${dealId}/events?after=${after}&limit=3`);
      seen.push(...next.body.output);
      after = next.body.lastSequence;
      if (!next.body.hasMore) break;
    }
    assert.deepEqual(
      seen.map((e) => e.id),
      ids,
    );
    // One writer after the other: numbers grow (with gaps: the other deal's entries took some).
    const numbers = seen.map((e) => e.sequence);
    assert.deepEqual(
      [...numbers].sort((a, b) => a - b),
      numbers,
    );
    assert.equal(new Set(numbers).size, 7);

    const last = numbers.at(-1)!;
    const caughtUp = await admin.get(`/deals/deal/${dealId}/events?after=${last}`);
    assert.deepEqual(caughtUp.body, { output: [], lastSequence: last, hasMore: false });
    const defaults = await admin.get(`/deals/deal/${dealId}/events`);
    assert.equal(defaults.body.output.length, 7);
  });

  test('an unknown deal is a 404; bad after or limit a 400; only admins read it', async () => {
    const admin = client(t.app, t.adminToken);
    expectProblem(await admin.get('/deals/deal/no-such-deal/events'), 404);
    const dealId = await dealWithTriggers(admin, depsOf(t.database.db), {});
    expectProblem(await admin.get(`/deals/deal/${dealId}/events?after=-1`), 400);
    expectProblem(await admin.get(`/deals/deal/${dealId}/events?after=abc`), 400);
    // A number that names no entry of this feed: guessed, or another feed's.
    const unknown = await admin.get(`/deals/deal/${dealId}/events?after=987654321`);
    expectProblem(unknown, 400);
    assert.match(unknown.body.detail, /restart from after=0/);
    assert.deepEqual(
      unknown.body.errors.map((e: any) => e.field),
      ['after'],
    );
    const other = await dealWithTriggers(admin, depsOf(t.database.db), {});
    await commitStepEntered(depsOf(t.database.db), other, 'elsewhere');
    await feedCaughtUp(t.database.db);
    const othersNumber = (await admin.get(`/deals/deal/${other}/events`)).body.lastSequence;
    expectProblem(await admin.get(`/deals/deal/${dealId}/events?after=${othersNumber}`), 400);
    expectProblem(await admin.get(`/webhooks/events?after=${othersNumber}`), 400);
    expectProblem(await admin.get(`/deals/deal/${dealId}/events?limit=0`), 400);
    expectProblem(await admin.get(`/deals/deal/${dealId}/events?limit=101`), 400);
    expectProblem(await client(t.app, await t.investorToken('inv-feed')).get(`/deals/deal/${dealId}/events`), 403);
  });
});

describe('the delivery list', () => {
  const t = startApp();

  test('pages newest first and filters by deal and status', async () => {
    const admin = client(t.app, t.adminToken);
    const clock = manualClock();
    const deps = depsOf(t.database.db, clock);
    const dealId = await dealWithTriggers(admin, deps, { a: [{ kind: 'webhook', url: 'http://127.0.0.1:9/a' }] });
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await commitStepEntered(deps, dealId, 'a'));
      clock.advance(1000);
    }

    const page1 = await admin.get(`/webhooks/deliveries?dealId=${dealId}&limit=2`);
    assert.equal(page1.status, 200);
    assert.equal(page1.body.page, 1);
    assert.equal(page1.body.totalPages, 3);
    assert.equal(page1.body.output.length, 2);
    const page3 = await admin.get(`/webhooks/deliveries?dealId=${dealId}&limit=2&page=3`);
    assert.equal(page3.body.output.length, 1);
    const all = [...page1.body.output, ...(await admin.get(`/webhooks/deliveries?dealId=${dealId}&limit=2&page=2`)).body.output, ...page3.body.output];
    assert.deepEqual(
      all.map((d: any) => d.eventId),
      ids.toReversed(),
      'newest first',
    );
    const d = all[0];
    assert.deepEqual(Object.keys(d).sort(), [
      'attempts',
      'createdAt',
      'deadAt',
      'dealId',
      'deliveredAt',
      'eventId',
      'eventType',
      'id',
      'lastAttemptAt',
      'lastError',
      'lastStatus',
      'nextAttemptAt',
      'status',
      'url',
    ]);
    assert.equal(d.status, 'pending');
    assert.equal(d.attempts, 0);

    assert.equal((await admin.get(`/webhooks/deliveries?dealId=${dealId}&status=pending`)).body.output.length, 5);
    assert.deepEqual((await admin.get(`/webhooks/deliveries?dealId=${dealId}&status=delivered`)).body, { output: [], page: 1, totalPages: 0 });
    assert.deepEqual((await admin.get(`/webhooks/deliveries?dealId=${dealId}&page=9`)).body.output, []);
    expectProblem(await admin.get('/webhooks/deliveries?status=lost'), 400);
    expectProblem(await admin.get('/webhooks/deliveries?limit=0'), 400);
    expectProblem(await admin.get('/webhooks/deliveries?page=0'), 400);
  });
});
