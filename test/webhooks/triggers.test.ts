// Step triggers through the HTTP edge: set with the workflow, shown to staff without secrets, and
// fired by jump-to-step (journey.step-entered) and the event edit (event.edited), signed.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createDispatcher } from '../../src/operations/webhook-dispatcher.ts';
import { newWebhookSecret } from '../../src/operations/webhook-signature.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { workflowBody } from '../support/workflows.ts';
import { uniqueId } from '../support/fixtures.ts';
import { feedCaughtUp, type Receiver, startReceiver } from '../support/webhooks.ts';

type Trigger = { kind: 'webhook'; url: string; secret?: string; events?: string[] };

/** The test workflow with triggers on some of its steps (by short name). */
function withTriggers(dealId: string, triggers: Record<string, Trigger[]>) {
  const body = workflowBody(dealId);
  return {
    ...body,
    steps: body.steps.map((step) => {
      const name = step.id.slice(dealId.length + 1);
      return triggers[name] ? { ...step, triggers: triggers[name] } : step;
    }),
  };
}

describe('step triggers', () => {
  let receiver: Receiver;
  const t = startApp({ beforeClose: () => receiver.close() });
  const admin = t.admin;
  before(async () => {
    receiver = await startReceiver();
  });

  test('are saved with the workflow and shown to staff on getWorkflowStatus, never with their secret', async () => {
    const deal = await createDeal(admin);
    const secret = newWebhookSecret();
    const put = await admin.put(
      `/deals/deal/${deal.dealId}/workflow`,
      withTriggers(deal.dealId, {
        documents: [{ kind: 'webhook', url: 'http://127.0.0.1:9/signing', secret, events: ['journey.step-entered', 'event.edited'] }],
      }),
    );
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.doesNotMatch(put.text, /whsec_/);
    const status = await admin.get(`/deals/deal/${deal.dealId}/workflow-status`);
    assert.doesNotMatch(status.text, /whsec_/);
    const documents = status.body.steps.find((s: any) => s.id === deal.step('documents'));
    assert.deepEqual(documents.workflowCustomStepTriggers, [
      { kind: 'webhook', url: 'http://127.0.0.1:9/signing', events: ['journey.step-entered', 'event.edited'], hasSecret: true },
    ]);
    const interest = status.body.steps.find((s: any) => s.id === deal.step('interest'));
    assert.equal(interest.workflowCustomStepTriggers, undefined, 'a step without triggers is as before');

    // An investor of the deal reads the workflow, without the triggers.
    const investorId = await deal.addInvestor();
    await deal.move(investorId, 'interest');
    const asInvestor = await client(t.app, await t.investorToken(investorId)).get(`/deals/deal/${deal.dealId}/workflow-status`);
    assert.equal(asInvestor.status, 200);
    assert.doesNotMatch(asInvestor.text, /workflowCustomStepTriggers|127\.0\.0\.1:9\/signing/);

    // Re-applied without triggers: they are gone.
    await admin.put(`/deals/deal/${deal.dealId}/workflow`, workflowBody(deal.dealId));
    const after = await admin.get(`/deals/deal/${deal.dealId}/workflow-status`);
    assert.doesNotMatch(after.text, /workflowCustomStepTriggers/);
  });

  test('are validated on save, each problem named beside the other problems of the document', async () => {
    const deal = await createDeal(admin);
    const body = withTriggers(deal.dealId, {
      kyc: [{ kind: 'webhook', url: 'ftp://127.0.0.1/' }],
      payment: [
        { kind: 'webhook', url: 'http://user:password@127.0.0.1:9/pay' },
        { kind: 'webhook', url: 'http://127.0.0.1:9/pay', secret: 'not-a-secret', events: ['payment.matched'] },
      ],
    });
    const problem = expectProblem(await admin.put(`/deals/deal/${deal.dealId}/workflow`, body), 400);
    const kyc = body.steps.findIndex((s) => s.id === deal.step('kyc'));
    const payment = body.steps.findIndex((s) => s.id === deal.step('payment'));
    assert.deepEqual(
      problem.errors!.map((e) => e.field),
      [`steps.${kyc}.triggers.0.url`, `steps.${payment}.triggers.0.url`, `steps.${payment}.triggers.1.secret`],
    );
    // An event type not on the closed list is a schema error (the list is an enum in the request's schema).
    const misspelt = withTriggers(deal.dealId, { payment: [{ kind: 'webhook', url: 'http://127.0.0.1:9/pay', events: ['payment.received' as never] }] });
    const eventProblem = expectProblem(await admin.put(`/deals/deal/${deal.dealId}/workflow`, misspelt), 400);
    assert.deepEqual(
      eventProblem.errors!.map((e) => e.field),
      [`steps.${payment}.triggers.0.events.0`],
    );
    // Unknown members and kinds are schema errors.
    const unknown = withTriggers(deal.dealId, { kyc: [{ kind: 'webhook', url: 'http://127.0.0.1:9/a', headers: {} } as never] });
    expectProblem(await admin.put(`/deals/deal/${deal.dealId}/workflow`, unknown), 400);
    const kind = withTriggers(deal.dealId, { kyc: [{ kind: 'email', url: 'http://127.0.0.1:9/a' } as never] });
    expectProblem(await admin.put(`/deals/deal/${deal.dealId}/workflow`, kind), 400);
    // Nothing was saved.
    assert.doesNotMatch((await admin.get(`/deals/deal/${deal.dealId}/workflow-status`)).text, /workflowCustomStepTriggers/);
  });

  test('a move fires journey.step-entered and an edit fires event.edited, signed, and both are in the feed', async () => {
    const deal = await createDeal(admin);
    const secret = newWebhookSecret();
    const url = `${receiver.url}/${uniqueId('r')}`;
    const put = await admin.put(
      `/deals/deal/${deal.dealId}/workflow`,
      withTriggers(deal.dealId, { commitment: [{ kind: 'webhook', url, secret, events: ['journey.step-entered', 'event.edited'] }] }),
    );
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const investorId = await deal.addInvestor();
    await deal.move(investorId, 'interest'); // no trigger there
    const moved = await deal.move(investorId, 'commitment', { committed_amount: '25000.00', currency: 'EUR' });
    // A refused move writes nothing.
    const refused = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investorId, targetStepId: deal.step('kyc'), data: {} });
    assert.equal(refused.status, 422);
    const edited = await admin.post(`/deals/event/${moved.id}/edit`, { committed_amount: '30000.00', currency: 'EUR' });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));

    await feedCaughtUp(t.database.db);
    const feed = (await admin.get(`/deals/deal/${deal.dealId}/events`)).body;
    assert.deepEqual(
      feed.output.map((e: any) => e.type),
      ['journey.step-entered', 'journey.step-entered', 'event.edited'],
    );
    const [, entered, edit] = feed.output;
    assert.deepEqual(entered.data, {
      dealId: deal.dealId,
      investorUserId: investorId,
      fromStepId: deal.step('interest'),
      toStepId: deal.step('commitment'),
      event: moved,
    });
    assert.equal(entered.timestamp, moved.createdAt);
    assert.equal(edit.data.eventId, moved.id);
    assert.deepEqual(edit.data.oldData, { committed_amount: '25000.00', currency: 'EUR' });
    assert.deepEqual(edit.data.newData, { committed_amount: '30000.00', currency: 'EUR' });

    await createDispatcher({ db: t.database.db }).runOnce();
    const mine = receiver.received.filter((r) => r.json?.dealId === deal.dealId);
    assert.deepEqual(mine.map((r) => r.json.type).sort(), ['event.edited', 'journey.step-entered']);
    for (const request of mine) {
      const verified = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as any;
      assert.deepEqual(
        verified,
        feed.output.find((e: any) => e.id === verified.id),
        'the webhook body is the feed entry',
      );
    }
  });
});
