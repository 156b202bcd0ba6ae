// The transactional outbox: an entry exists exactly when its cause committed; triggers pick the
// deliveries; triggers are validated on save and their secrets never come back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../src/domain/errors.ts';
import { inTransaction } from '../../src/operations/deps.ts';
import { recordEditRequest, recordEventEdited, recordStepEntered, recordSubscriptionCreated } from '../../src/operations/outbox-events.ts';
import { checkWorkflowTriggers, listWorkflowStepTriggers, saveStepTriggers } from '../../src/operations/step-triggers.ts';
import { newWebhookSecret } from '../../src/operations/webhook-signature.ts';
import { appendOutbox } from '../../src/store/outbox.ts';
import { client, startApp } from '../support/app.ts';
import { commitStepEntered, dealWithTriggers, depsOf } from '../support/webhooks.ts';

describe('the outbox', () => {
  const t = startApp();

  const entriesOf = (dealId: string) =>
    t.database.db.selectFrom('outbox').selectAll().where('deal_id', '=', dealId).orderBy('xid').orderBy('sequence').execute();
  const deliveriesOf = (dealId: string) => t.database.db.selectFrom('webhook_deliveries').selectAll().where('deal_id', '=', dealId).orderBy('url').execute();

  test('a move whose transaction rolls back leaves no entry and no delivery', async () => {
    const deps = depsOf(t.database.db);
    const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, { sign: [{ kind: 'webhook', url: 'http://127.0.0.1:9/hook' }] });
    await assert.rejects(
      inTransaction(deps, async (tx) => {
        await recordStepEntered(tx, {
          dealId,
          investorUserId: 'inv-1',
          event: { id: tx.newId(), fromStepId: null, toStepId: 'sign', data: {}, createdByUserId: 'ops', createdAt: tx.clock().toISOString() },
        });
        throw new Error('the move failed after writing its event');
      }),
      /the move failed/,
    );
    assert.deepEqual(await entriesOf(dealId), []);
    assert.deepEqual(await deliveriesOf(dealId), []);

    const id = await commitStepEntered(deps, dealId, 'sign');
    const entries = await entriesOf(dealId);
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.id, id);
    assert.equal((await deliveriesOf(dealId)).length, 1);
  });

  test('every committed move has its entry', async () => {
    const deps = depsOf(t.database.db);
    const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, {});
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await commitStepEntered(deps, dealId, `step-${i}`));
    const entries = await entriesOf(dealId);
    assert.deepEqual(
      entries.map((e) => e.id),
      ids,
    );
    const numbers = entries.map((e) => Number(e.sequence));
    assert.deepEqual(
      [...numbers].sort((a, b) => a - b),
      numbers,
      'one writer after the other: numbers grow',
    );
    assert.ok(entries.every((e) => e.type === 'journey.step-entered'));
  });

  test('appendOutbox refuses to run outside a transaction', async () => {
    await assert.rejects(
      appendOutbox(t.database.db, { id: crypto.randomUUID(), type: 'journey.step-entered', occurredAt: new Date(), dealId: null, stepIds: [], data: {} }),
      /inside the caller's transaction/,
    );
  });

  test('a trigger fires for its own step and the event types it lists', async () => {
    const deps = depsOf(t.database.db);
    const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, {
      kyc: [
        { kind: 'webhook', url: 'http://127.0.0.1:9/enter' }, // default: journey.step-entered
        { kind: 'webhook', url: 'http://127.0.0.1:9/edits', events: ['event.edited', 'edit-request.created'] },
      ],
      pay: [{ kind: 'webhook', url: 'http://127.0.0.1:9/pay', events: ['journey.step-entered', 'event.edited'] }],
    });
    await commitStepEntered(deps, dealId, 'kyc');
    await inTransaction(deps, (tx) =>
      recordEventEdited(tx, {
        dealId,
        investorUserId: 'inv-1',
        eventId: tx.newId(),
        stepId: 'kyc',
        oldData: { a: '1' },
        newData: { a: '2' },
        editedByUserId: 'ops',
      }),
    );
    await inTransaction(deps, (tx) =>
      recordEditRequest(tx, 'edit-request.created', {
        dealId,
        investorUserId: 'inv-1',
        stepId: 'kyc',
        editRequest: { type: 'Investment Amount', reason: 'typo' },
      }),
    );
    await inTransaction(deps, (tx) =>
      recordEditRequest(tx, 'edit-request.approved', {
        dealId,
        investorUserId: 'inv-1',
        stepId: 'kyc',
        editRequest: { type: 'Investment Amount' },
        decidedByUserId: 'ops',
      }),
    );
    const entries = await entriesOf(dealId);
    assert.deepEqual(
      entries.map((e) => e.type),
      ['journey.step-entered', 'event.edited', 'edit-request.created', 'edit-request.approved'],
    );
    const deliveries = await deliveriesOf(dealId);
    const fired = deliveries.map((d) => `${d.event_type} → ${new URL(d.url).pathname}`).sort();
    assert.deepEqual(fired, ['edit-request.created → /edits', 'event.edited → /edits', 'journey.step-entered → /enter']);
    const edited = entries[1]!.payload as any;
    assert.deepEqual([edited.oldData, edited.newData], [{ a: '1' }, { a: '2' }]);
  });

  test('a subscription without a deal is sequenced in the platform stream and delivered nowhere', async () => {
    const deps = depsOf(t.database.db);
    const id = await inTransaction(deps, (tx) => recordSubscriptionCreated(tx, { subscription: { id: 'sub-1', units: 10 } }));
    const row = await t.database.db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.stream, 'platform');
    assert.equal(row.deal_id, null);
    assert.ok(Number(row.sequence) >= 1);
    assert.deepEqual(row.payload, { subscription: { id: 'sub-1', units: 10 } });
    assert.equal((await t.database.db.selectFrom('webhook_deliveries').select('id').where('outbox_id', '=', id).execute()).length, 0);
  });

  test('a URL that two matching triggers share gets the entry once', async () => {
    const deps = depsOf(t.database.db);
    const url = 'http://127.0.0.1:9/books';
    const events = ['subscription.created'];
    const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, {
      pay: [{ kind: 'webhook', url, events }],
      done: [{ kind: 'webhook', url, events }],
    });
    await inTransaction(deps, (tx) => recordSubscriptionCreated(tx, { subscription: { id: 'sub-2' }, dealId, stepIds: ['pay', 'done'] }));
    const deliveries = await deliveriesOf(dealId);
    assert.deepEqual(
      deliveries.map((d) => [d.event_type, d.url]),
      [['subscription.created', url]],
    );
  });

  test('triggers are checked on save: http(s) only, no credentials, Standard Webhooks secrets, known events', () => {
    const bad = [
      { kind: 'webhook' as const, url: 'ftp://127.0.0.1/hook' },
      { kind: 'webhook' as const, url: 'http://user:pw@127.0.0.1:9/hook' },
      { kind: 'webhook' as const, url: 'not a url' },
      { kind: 'webhook' as const, url: 'http://127.0.0.1:9/a', secret: 'hunter2' },
      { kind: 'webhook' as const, url: 'http://127.0.0.1:9/b', events: ['journey.step-left'] },
      { kind: 'webhook' as const, url: 'http://127.0.0.1:9/c', events: [] },
    ];
    try {
      checkWorkflowTriggers([
        { id: 'ok', triggers: [{ kind: 'webhook', url: 'http://127.0.0.1:9/ok' }] },
        { id: 's', triggers: bad },
      ]);
      assert.fail('expected a validation error');
    } catch (err) {
      assert.ok(err instanceof AppError);
      assert.equal(err.kind, 'validation');
      assert.deepEqual(
        err.errors!.map((e) => e.field),
        [
          'steps.1.triggers.0.url',
          'steps.1.triggers.1.url',
          'steps.1.triggers.2.url',
          'steps.1.triggers.3.secret',
          'steps.1.triggers.4.events.0',
          'steps.1.triggers.5.events',
        ],
      );
      assert.match(err.errors![1]!.detail, /credentials/);
    }
  });

  test('secrets are stored but never listed; a trigger saved again without its secret keeps it', async () => {
    const deps = depsOf(t.database.db);
    const secret = newWebhookSecret();
    const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, {
      sign: [{ kind: 'webhook', url: 'http://127.0.0.1:9/sign', secret }],
      pay: [{ kind: 'webhook', url: 'http://127.0.0.1:9/pay' }],
    });
    const listed = await listWorkflowStepTriggers(deps, dealId);
    assert.deepEqual(listed.get('sign'), [{ kind: 'webhook', url: 'http://127.0.0.1:9/sign', events: ['journey.step-entered'], hasSecret: true }]);
    assert.deepEqual(listed.get('pay'), [{ kind: 'webhook', url: 'http://127.0.0.1:9/pay', events: ['journey.step-entered'], hasSecret: false }]);
    assert.doesNotMatch(JSON.stringify([...listed]), /whsec_/);

    // Saved back as read (no secret): the secret stays.
    const again = checkWorkflowTriggers([{ id: 'sign', triggers: [{ kind: 'webhook', url: 'http://127.0.0.1:9/sign' }] }]);
    await inTransaction(deps, (tx) => saveStepTriggers(tx, dealId, again));
    const relisted = await listWorkflowStepTriggers(deps, dealId);
    assert.equal(relisted.get('sign')![0]!.hasSecret, true);
    assert.equal(relisted.get('pay'), undefined, 'a step saved without triggers has none');

    await commitStepEntered(deps, dealId, 'sign');
    const deliveries = await client(t.app, t.adminToken).get(`/webhooks/deliveries?dealId=${dealId}`);
    assert.equal(deliveries.body.output.length, 1);
    assert.doesNotMatch(deliveries.text, /whsec_|secret/i);
  });
});
