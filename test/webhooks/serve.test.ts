// The service delivers by itself: `serve` starts the dispatcher beside the API and stops it on
// close. Through real HTTP on 127.0.0.1, on an in-memory embedded database.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { serve } from '../../src/main.ts';
import { newWebhookSecret } from '../../src/operations/webhook-signature.ts';
import { onPostgres } from '../support/app.ts';
import { workflowBody } from '../support/workflows.ts';
import { checkedFetch } from '../support/contract.ts';
import { investorBody, uniqueId } from '../support/fixtures.ts';
import { eventually, startReceiver } from '../support/webhooks.ts';

describe('the service with its dispatcher', { skip: onPostgres ? 'runs on the embedded database only' : false }, () => {
  test('a move made through the API reaches the receiver without any worker', async () => {
    const receiver = await startReceiver();
    const lines: string[] = [];
    const config = loadConfig({ DATA_DIR: 'memory://', PORT: '0', LOG_LEVEL: 'silent', WEBHOOKS_POLL_MS: '20' });
    const service = await serve(config, { demo: false, print: (line) => lines.push(line) });
    try {
      const token = /dfk_[A-Za-z0-9_-]+/.exec(lines.join('\n'))?.[0];
      assert.ok(token, 'the first run prints an admin token');
      const call = async (method: string, path: string, body: unknown): Promise<any> => {
        const response = await checkedFetch(service.url, path, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${response.text}`);
        return response.json;
      };
      const dealId = uniqueId('deal');
      await call('PUT', `/deals/deal/${dealId}`, { name: 'Served', currency: 'EUR' });
      const workflow = workflowBody(dealId);
      workflow.steps[0] = { ...workflow.steps[0]!, triggers: [{ kind: 'webhook', url: receiver.url, secret: newWebhookSecret() }] } as never;
      await call('PUT', `/deals/deal/${dealId}/workflow`, workflow);
      const investorId = uniqueId('inv');
      await call('PUT', `/investors/${investorId}`, investorBody());
      const event = await call('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId: investorId, targetStepId: `${dealId}.interest`, data: {} });

      await eventually(async () => (receiver.received.length > 0 ? true : undefined), 20_000, 'the service to deliver');
      const [delivered] = receiver.received;
      assert.equal(delivered!.json.type, 'journey.step-entered');
      assert.equal(delivered!.json.data.event.id, event.id);
      assert.ok(delivered!.headers['webhook-signature']);
    } finally {
      await service.close(); // stops the dispatcher before the database closes
      await receiver.close();
    }
  });
});
