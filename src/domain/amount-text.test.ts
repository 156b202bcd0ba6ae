import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalAmount } from './amount-text.ts';

test('amounts are written with their currency minor units, never rounded', () => {
  const cases: [string, string | null, string][] = [
    ['80000', 'EUR', '80000.00'],
    ['60000.00', 'EUR', '60000.00'],
    ['60000.5', 'EUR', '60000.50'],
    ['0012500.50', 'EUR', '12500.50'],
    ['1500', 'JPY', '1500'],
    ['1500.000', 'JPY', '1500'],
    ['1.5', 'KWD', '1.500'],
    ['60000.00', null, '60000'],
    ['60000.10', 'XAU', '60000.1'],
    ['60000.125', 'EUR', '60000.125'],
    ['12,5', 'EUR', '12,5'],
    ['', 'EUR', ''],
    ['100', 'not a code', '100'],
  ];
  for (const [value, currency, expected] of cases) assert.equal(canonicalAmount(value, currency), expected, `${value} ${currency}`);
});
