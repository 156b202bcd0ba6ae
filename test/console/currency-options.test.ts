// The console's currency pickers offer what the service accepts: no withdrawn ISO 4217 code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { currencyOptions } from '../../web/console/src/lib/currencies.ts';
import { withdrawnCurrencies } from '../../src/domain/currency.ts';

test('currency pickers offer the current ISO 4217 codes and none of the withdrawn', () => {
  for (const code of Object.keys(withdrawnCurrencies)) assert.ok(!currencyOptions.includes(code), `${code} is offered`);
  for (const code of Object.values(withdrawnCurrencies)) assert.ok(currencyOptions.includes(code), `${code}, its replacement, is not offered`);
  for (const code of ['EUR', 'USD', 'GBP', 'CHF']) assert.ok(currencyOptions.includes(code));
});
