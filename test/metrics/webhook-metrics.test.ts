// Webhook deliveries on /metrics: each attempt counted by outcome (delivered, retry, dead) and by
// whether it was the first, and the pending deliveries and the outbox lag read from the database.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDispatcher } from '../../src/operations/webhook-dispatcher.ts';
import { client, startTestApp, type TestApp } from '../support/app.ts';
import { commitStepEntered, dealWithTriggers, depsOf, manualClock, startReceiver } from '../support/webhooks.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

const sample = (text: string, name: string, labels: Record<string, string> = {}) => {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) total += Number(line.split(' ').at(-1));
  }
  return total;
};

describe('webhook metrics', () => {
  let t: TestApp;
  const clock = manualClock();
  before(async () => {
    t = await startTestApp({ clock, env: { METRICS_TOKEN } });
  });
  after(() => t.close());
  const scrape = async () => (await client(t.app).get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` })).text;

  test('a failed attempt, its retry that is delivered, and the gauges before and after', async () => {
    let calls = 0;
    const receiver = await startReceiver(() => (++calls === 1 ? 500 : 200));
    try {
      const deps = depsOf(t.database.db, clock);
      const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, { sign: [{ kind: 'webhook', url: receiver.url }] });
      const before = await scrape();
      await commitStepEntered(deps, dealId, 'sign', 'inv-metrics');
      const pending = await scrape();
      assert.equal(sample(pending, 'dealflow_webhook_deliveries_pending') - sample(before, 'dealflow_webhook_deliveries_pending'), 1);
      const dispatcher = createDispatcher({ db: t.database.db, clock });
      assert.equal(await dispatcher.runOnce(), 1); // 500: scheduled again
      clock.advance(24 * 3600_000);
      assert.equal(await dispatcher.runOnce(), 1); // delivered
      const afterDelivery = await scrape();
      const delta = (labels: Record<string, string>) =>
        sample(afterDelivery, 'dealflow_webhook_delivery_attempts_total', labels) - sample(before, 'dealflow_webhook_delivery_attempts_total', labels);
      assert.equal(delta({ outcome: 'retry', attempt: 'first' }), 1);
      assert.equal(delta({ outcome: 'delivered', attempt: 'retry' }), 1);
      assert.equal(delta({ outcome: 'delivered', attempt: 'first' }), 0);
      assert.equal(delta({ outcome: 'dead' }), 0);
      assert.equal(sample(afterDelivery, 'dealflow_webhook_deliveries_pending'), sample(before, 'dealflow_webhook_deliveries_pending'));
    } finally {
      await receiver.close();
    }
  });
});
