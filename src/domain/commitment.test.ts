import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paidStateOf, remainingOf } from './commitment.ts';

test('what is still to pay, and how much of the commitment is paid', () => {
  const cases: [committed: string | null, received: string | null, remaining: string | null, state: string | null][] = [
    ['25000.00', null, null, 'none'],
    ['25000.00', '0', '25000', 'none'],
    ['25000.00', '5000.00', '20000', 'partly'],
    ['25000.00', '25000', '0', 'full'],
    ['25000.00', '25000.01', '0', 'full'],
    ['0.10', '0.05', '0.05', 'partly'],
    [' 100 ', '1', '99', 'partly'],
    [null, '5000.00', null, null],
    ['not an amount', '5', null, null],
    ['-5', '0', null, null],
  ];
  for (const [committed, received, remaining, state] of cases) {
    assert.equal(remainingOf(committed, received)?.toFixed() ?? null, remaining, `remaining of ${committed} less ${received}`);
    assert.equal(paidStateOf(committed, received), state, `paid state of ${committed} with ${received}`);
  }
});
