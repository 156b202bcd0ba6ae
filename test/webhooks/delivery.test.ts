// Webhook delivery against a real local receiver: the Standard Webhooks signature, retries after a
// 500, a timeout and a refused connection, death after the last attempt, and the manual retry.
// The dispatcher is driven scan by scan (runOnce) with a clock the test moves: no sleeps.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createDispatcher } from '../../src/operations/webhook-dispatcher.ts';
import { newWebhookSecret } from '../../src/operations/webhook-signature.ts';
import { claimDueDeliveries, recordAttempt } from '../../src/store/webhook-deliveries.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { commitStepEntered, dealWithTriggers, depsOf, feedCaughtUp, manualClock, type Receiver, startReceiver } from '../support/webhooks.ts';

// One database for the file, and one clock that only moves forward. Every test leaves its
// deliveries delivered or dead (checked after each), so the next test's scans see only its own and
// the counts of runOnce are exact. The signature test comes first: a Standard Webhooks library
// checks the timestamp against the real time.
describe('webhook delivery', () => {
  const clock = manualClock();
  const t = startApp({ clock });
  let receiver: Receiver;
  afterEach(async () => {
    const left = await t.database.db.selectFrom('webhook_deliveries').select('id').where('delivered_at', 'is', null).where('dead_at', 'is', null).execute();
    assert.deepEqual(left, [], 'a test left a delivery pending');
  });

  const deliveriesOf = async (dealId: string) => (await client(t.app, t.adminToken).get(`/webhooks/deliveries?dealId=${dealId}`)).body.output;

  test('a move is posted once, signed so that a Standard Webhooks library accepts it', async () => {
    receiver = await startReceiver();
    try {
      const secret = newWebhookSecret();
      const deps = depsOf(t.database.db, clock);
      const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, { sign: [{ kind: 'webhook', url: receiver.url, secret }] });
      const entryId = await commitStepEntered(deps, dealId, 'sign', 'inv-42');
      const dispatcher = createDispatcher({ db: t.database.db, clock });
      assert.equal(await dispatcher.runOnce(), 1);

      assert.equal(receiver.received.length, 1);
      const [request] = receiver.received;
      assert.equal(request!.headers['content-type'], 'application/json');
      assert.equal(request!.headers['webhook-id'], entryId);
      assert.match(String(request!.headers['webhook-timestamp']), /^\d+$/);
      assert.match(String(request!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
      // The receiver's side: the reference library, given only the secret, the headers and the body.
      const verified = new Webhook(secret).verify(request!.body, {
        'webhook-id': String(request!.headers['webhook-id']),
        'webhook-timestamp': String(request!.headers['webhook-timestamp']),
        'webhook-signature': String(request!.headers['webhook-signature']),
      }) as any;
      assert.equal(verified.id, entryId);
      assert.equal(verified.type, 'journey.step-entered');
      assert.equal(verified.dealId, dealId);
      // The body's number is the entry's number in the pull feed.
      await feedCaughtUp(t.database.db);
      const [fed] = (await client(t.app, t.adminToken).get(`/deals/deal/${dealId}/events`)).body.output;
      assert.equal(verified.sequence, fed.sequence);
      assert.match(verified.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(verified.data.investorUserId, 'inv-42');
      assert.equal(verified.data.toStepId, 'sign');
      assert.equal(verified.data.fromStepId, null);
      assert.equal(verified.data.event.toStepId, 'sign');
      assert.deepEqual(verified.data.event.data, { amount: '25000.00' });
      // A wrong secret or a changed body fails verification.
      assert.throws(() => new Webhook(newWebhookSecret()).verify(request!.body, request!.headers as Record<string, string>));
      assert.throws(() => new Webhook(secret).verify(request!.body.replace('inv-42', 'inv-43'), request!.headers as Record<string, string>));

      const [delivery] = await deliveriesOf(dealId);
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attempts, 1);
      assert.equal(delivery.lastStatus, 200);
      assert.equal(delivery.eventId, entryId);
      assert.equal(delivery.nextAttemptAt, null);
      assert.ok(delivery.deliveredAt);
      // Nothing is due any more.
      assert.equal(await dispatcher.runOnce(), 0);
      assert.equal(receiver.received.length, 1);
    } finally {
      await receiver.close();
    }
  });

  test('a trigger without a secret is posted unsigned', async () => {
    receiver = await startReceiver();
    try {
      const deps = depsOf(t.database.db, clock);
      const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, { kyc: [{ kind: 'webhook', url: receiver.url }] });
      await commitStepEntered(deps, dealId, 'kyc');
      await createDispatcher({ db: t.database.db, clock }).runOnce();
      assert.equal(receiver.received.length, 1);
      assert.equal(receiver.received[0]!.headers['webhook-signature'], undefined);
      assert.ok(receiver.received[0]!.headers['webhook-id']);
    } finally {
      await receiver.close();
    }
  });

  test('a 500 is retried after the scheduled delay, with the same Webhook-Id', async () => {
    receiver = await startReceiver((n) => (n === 1 ? 500 : 200));
    try {
      const deps = depsOf(t.database.db, clock);
      const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, { pay: [{ kind: 'webhook', url: receiver.url, secret: newWebhookSecret() }] });
      await commitStepEntered(deps, dealId, 'pay');
      const dispatcher = createDispatcher({ db: t.database.db, clock, schedule: [60_000, 60_000], random: () => 0.5 });
      assert.equal(await dispatcher.runOnce(), 1);

      let [delivery] = await deliveriesOf(dealId);
      assert.equal(delivery.status, 'pending');
      assert.equal(delivery.lastStatus, 500);
      assert.equal(delivery.lastError, 'HTTP 500');
      assert.equal(delivery.attempts, 1);
      // Jitter 0.5 is the middle of ±10 %: exactly the scheduled minute.
      assert.equal(Date.parse(delivery.nextAttemptAt) - clock().getTime(), 60_000);

      clock.advance(59_000);
      assert.equal(await dispatcher.runOnce(), 0, 'not due before its time');
      clock.advance(1000);
      assert.equal(await dispatcher.runOnce(), 1);
      [delivery] = await deliveriesOf(dealId);
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attempts, 2);
      assert.equal(receiver.received.length, 2);
      assert.equal(receiver.received[0]!.headers['webhook-id'], receiver.received[1]!.headers['webhook-id']);
    } finally {
      await receiver.close();
    }
  });

  test('a receiver that does not answer in time is retried', async () => {
    receiver = await startReceiver((n) => (n === 1 ? 'hang' : 200));
    try {
      const deps = depsOf(t.database.db, clock);
      const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, { docs: [{ kind: 'webhook', url: receiver.url }] });
      await commitStepEntered(deps, dealId, 'docs');
      const dispatcher = createDispatcher({ db: t.database.db, clock, timeoutMs: 200, schedule: [1000] });
      assert.equal(await dispatcher.runOnce(), 1);
      let [delivery] = await deliveriesOf(dealId);
      assert.equal(delivery.status, 'pending');
      assert.equal(delivery.lastStatus, null);
      assert.equal(delivery.lastError, 'no answer within 200 ms');

      clock.advance(2000);
      assert.equal(await dispatcher.runOnce(), 1);
      [delivery] = await deliveriesOf(dealId);
      assert.equal(delivery.status, 'delivered');
      assert.equal(receiver.received.length, 2);
    } finally {
      await receiver.close();
    }
  });

  test('a refused connection is retried, and dead when the schedule runs out', async () => {
    const gone = await startReceiver();
    const url = gone.url;
    await gone.close(); // nothing listens on that port any more
    const deps = depsOf(t.database.db, clock);
    const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, { crm: [{ kind: 'webhook', url }] });
    await commitStepEntered(deps, dealId, 'crm');
    const dispatcher = createDispatcher({ db: t.database.db, clock, schedule: [1000] });
    assert.equal(await dispatcher.runOnce(), 1);
    let [delivery] = await deliveriesOf(dealId);
    assert.equal(delivery.status, 'pending');
    assert.match(delivery.lastError, /^connection failed: ECONNREFUSED$/);
    clock.advance(2000);
    assert.equal(await dispatcher.runOnce(), 1, 'tried again');
    [delivery] = await deliveriesOf(dealId);
    assert.equal(delivery.status, 'dead', 'the one retry of this schedule failed too');
    assert.equal(delivery.attempts, 2);
  });

  test('after the last scheduled attempt a delivery is dead; a manual retry delivers it', async () => {
    receiver = await startReceiver(() => 503);
    try {
      const deps = depsOf(t.database.db, clock);
      const admin = client(t.app, t.adminToken);
      const dealId = await dealWithTriggers(admin, deps, { done: [{ kind: 'webhook', url: receiver.url, secret: newWebhookSecret() }] });
      await commitStepEntered(deps, dealId, 'done');
      // Two retries: three attempts in all.
      const dispatcher = createDispatcher({ db: t.database.db, clock, schedule: [1000, 1000] });
      for (let attempt = 1; attempt <= 3; attempt++) {
        assert.equal(await dispatcher.runOnce(), 1, `attempt ${attempt}`);
        clock.advance(2000);
      }
      let [delivery] = await deliveriesOf(dealId);
      assert.equal(delivery.status, 'dead');
      assert.equal(delivery.attempts, 3);
      assert.equal(delivery.lastStatus, 503);
      assert.ok(delivery.deadAt);
      assert.equal(delivery.nextAttemptAt, null);
      clock.advance(24 * 3600_000);
      assert.equal(await dispatcher.runOnce(), 0, 'a dead delivery is not tried again by itself');
      assert.equal(receiver.received.length, 3);
      const dead = await admin.get(`/webhooks/deliveries?status=dead&dealId=${dealId}`);
      assert.deepEqual(
        dead.body.output.map((d: any) => d.id),
        [delivery.id],
      );

      receiver.behave(() => 200);
      const retried = await admin.post(`/webhooks/deliveries/${delivery.id}/retry`);
      assert.equal(retried.status, 200);
      assert.equal(retried.body.status, 'pending');
      assert.equal(retried.body.deadAt, null);
      assert.equal(retried.body.nextAttemptAt, clock().toISOString());
      assert.equal(await dispatcher.runOnce(), 1);
      [delivery] = await deliveriesOf(dealId);
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attempts, 4);
      assert.equal(receiver.received.length, 4);

      const again = expectProblem(await admin.post(`/webhooks/deliveries/${delivery.id}/retry`), 409);
      assert.match(again.detail, /already delivered/);
    } finally {
      await receiver.close();
    }
  });

  test('a manual retry restarts the schedule of a failing delivery', async () => {
    receiver = await startReceiver(() => 500);
    try {
      const deps = depsOf(t.database.db, clock);
      const admin = client(t.app, t.adminToken);
      const dealId = await dealWithTriggers(admin, deps, { s: [{ kind: 'webhook', url: receiver.url }] });
      await commitStepEntered(deps, dealId, 's');
      const dispatcher = createDispatcher({ db: t.database.db, clock, schedule: [3_600_000] });
      await dispatcher.runOnce();
      const [failing] = await deliveriesOf(dealId);
      assert.equal((await admin.post(`/webhooks/deliveries/${failing.id}/retry`)).status, 200);
      assert.equal(await dispatcher.runOnce(), 1, 'due at once, not in an hour');
      let [delivery] = await deliveriesOf(dealId);
      assert.equal(delivery.status, 'pending', 'the schedule started over: one more retry before it is dead');
      assert.equal(delivery.attempts, 2);
      clock.advance(2 * 3_600_000);
      assert.equal(await dispatcher.runOnce(), 1);
      [delivery] = await deliveriesOf(dealId);
      assert.equal(delivery.status, 'dead');
      assert.equal(delivery.attempts, 3);
    } finally {
      await receiver.close();
    }
  });

  test('a dispatcher that dies after claiming only delays the delivery until its lease ends', async () => {
    receiver = await startReceiver();
    try {
      const deps = depsOf(t.database.db, clock);
      const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, { s: [{ kind: 'webhook', url: receiver.url }] });
      await commitStepEntered(deps, dealId, 's');
      // The dead dispatcher: it claimed the delivery and never came back.
      const [lost] = await claimDueDeliveries(t.database.db, { now: clock(), leaseMs: 60_000, limit: 10, claimId: crypto.randomUUID() });
      assert.ok(lost);
      const survivor = createDispatcher({ db: t.database.db, clock });
      assert.equal(await survivor.runOnce(), 0, 'the claim holds while its lease lasts');
      clock.advance(60_000);
      assert.equal(await survivor.runOnce(), 1);
      assert.equal(receiver.received.length, 1);
      const [delivery] = await deliveriesOf(dealId);
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attempts, 2, 'the lost attempt counts');
      // Were it to come back, its outcome would be ignored.
      assert.equal(await recordAttempt(t.database.db, lost, { kind: 'dead', status: 500, error: 'HTTP 500' }, clock()), false);
      assert.equal((await deliveriesOf(dealId))[0].status, 'delivered');
    } finally {
      await receiver.close();
    }
  });

  test('retrying an unknown delivery is a 404, a malformed id a 400; investors may not', async () => {
    const admin = client(t.app, t.adminToken);
    expectProblem(await admin.post('/webhooks/deliveries/00000000-0000-4000-8000-000000000000/retry'), 404);
    expectProblem(await admin.post('/webhooks/deliveries/not-a-uuid/retry'), 400);
    const investor = client(t.app, await t.investorToken('inv-w'));
    expectProblem(await investor.get('/webhooks/deliveries'), 403);
    expectProblem(await investor.post('/webhooks/deliveries/00000000-0000-4000-8000-000000000000/retry'), 403);
    expectProblem(await client(t.app).get('/webhooks/deliveries'), 401);
  });
});
