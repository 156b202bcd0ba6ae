import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { checkStepTriggers, isWebhookSecret, webhookUrlProblem } from './step-trigger.ts';

test('secrets follow the Standard Webhooks form: whsec_ and the base64 of 24 to 64 bytes', () => {
  for (const n of [24, 32, 64]) assert.ok(isWebhookSecret(`whsec_${randomBytes(n).toString('base64')}`), `${n} bytes`);
  for (const n of [16, 23, 65]) assert.ok(!isWebhookSecret(`whsec_${randomBytes(n).toString('base64')}`), `${n} bytes`);
  assert.ok(!isWebhookSecret(randomBytes(32).toString('base64')), 'no prefix');
  assert.ok(!isWebhookSecret(`whsec_${randomBytes(32).toString('base64url')}!`));
});

test('webhook URLs: absolute http(s), no credentials', () => {
  assert.equal(webhookUrlProblem('https://hooks.example.com/dealflow?x=1'), undefined);
  assert.equal(webhookUrlProblem('http://127.0.0.1:8080/hook'), undefined);
  assert.match(webhookUrlProblem('ftp://example.com')!, /http or https/);
  assert.match(webhookUrlProblem('javascript:alert(1)')!, /http or https/);
  assert.match(webhookUrlProblem('https://token@example.com/')!, /credentials/);
  assert.match(webhookUrlProblem('https://:pw@example.com/')!, /credentials/);
  assert.match(webhookUrlProblem('/relative')!, /absolute/);
  assert.match(webhookUrlProblem(`https://example.com/${'a'.repeat(2100)}`)!, /at most/);
});

test('events default to journey.step-entered; duplicates and unknown types are refused', () => {
  const ok = checkStepTriggers([{ kind: 'webhook', url: 'https://a.example/' }], 'steps.0.triggers');
  assert.deepEqual(ok.errors, []);
  assert.deepEqual(ok.triggers[0]!.events, ['journey.step-entered']);
  const bad = checkStepTriggers(
    [
      { kind: 'webhook', url: 'https://a.example/', events: ['event.edited', 'event.edited'] },
      { kind: 'webhook', url: 'https://a.example/' },
    ],
    't',
  );
  assert.deepEqual(
    bad.errors.map((e) => e.field),
    ['t.0.events.1', 't.1.url'],
  );
});
