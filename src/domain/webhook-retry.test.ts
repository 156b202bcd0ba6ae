import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultRetrySchedule, retryDelay } from './webhook-retry.ts';

const hour = 3600_000;

test('the default schedule: 30 s, 2 min, 10 min, 1 h, 6 h, then 12 h, within 3 days', () => {
  assert.deepEqual(defaultRetrySchedule.slice(0, 5), [30_000, 120_000, 600_000, hour, 6 * hour]);
  assert.ok(defaultRetrySchedule.slice(5).every((d) => d === 12 * hour));
  const total = defaultRetrySchedule.reduce((a, b) => a + b, 0);
  assert.ok(total <= 72 * hour, 'the last attempt is within 3 days');
  assert.ok(total + 12 * hour > 72 * hour, 'one more 12 h retry would pass 3 days');
});

test('jitter stays within ±10 % and the middle is the scheduled delay', () => {
  assert.equal(retryDelay(1, defaultRetrySchedule, 0.5), 30_000);
  assert.equal(retryDelay(1, defaultRetrySchedule, 0), 27_000);
  assert.ok(retryDelay(1, defaultRetrySchedule, 0.999_999)! <= 33_000);
  assert.equal(retryDelay(5, defaultRetrySchedule, 0.5), 6 * hour);
});

test('after the last retry there is none: the delivery is dead', () => {
  assert.equal(retryDelay(defaultRetrySchedule.length, defaultRetrySchedule, 0.5), 12 * hour);
  assert.equal(retryDelay(defaultRetrySchedule.length + 1, defaultRetrySchedule, 0.5), undefined);
  assert.equal(retryDelay(1, [], 0.5), undefined);
  assert.equal(retryDelay(0, defaultRetrySchedule, 0.5), undefined);
});
