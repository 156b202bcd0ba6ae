import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Big from 'big.js';
import fc from 'fast-check';
import {
  currenciesTooCoarseFor,
  currentCurrencies,
  decimalsOf,
  isCurrencyCode,
  minorUnitsOf,
  minorUnitsProblem,
  withdrawnCurrencyProblem,
} from './currency.ts';

describe('minor units', () => {
  test('ISO 4217 minor units per currency', () => {
    const cases: [string, number | null][] = [
      ['EUR', 2],
      ['GBP', 2],
      ['USD', 2],
      ['CHF', 2],
      ['HUF', 2],
      ['IDR', 2],
      ['COP', 2],
      ['JPY', 0],
      ['KRW', 0],
      ['ISK', 0],
      ['CLP', 0],
      ['XOF', 0],
      ['BHD', 3],
      ['KWD', 3],
      ['IQD', 3],
      ['JOD', 3],
      ['OMR', 3],
      ['TND', 3],
      ['LYD', 3],
      ['CLF', 4],
      ['XAU', null],
      ['XDR', null],
    ];
    for (const [code, units] of cases) assert.equal(minorUnitsOf(code), units, code);
  });

  test('decimals of a decimal text, trailing zeros not counted', () => {
    const cases: [string, number][] = [
      ['0', 0],
      ['100', 0],
      ['100.00', 0],
      ['100.5', 1],
      ['100.50', 1],
      ['0.001', 3],
      ['0.0010', 3],
      ['25000.01', 2],
      ['1e-8', 8],
      ['1000000', 0],
    ];
    for (const [text, decimals] of cases) assert.equal(decimalsOf(text), decimals, text);
  });

  test('amounts and currencies: at most the minor units', () => {
    const cases: [string, string, boolean][] = [
      ['0.01', 'EUR', true],
      ['0.001', 'EUR', false],
      ['25000.00', 'EUR', true],
      ['25000.005', 'GBP', false],
      ['1.10', 'USD', true],
      ['100', 'JPY', true],
      ['100.00', 'JPY', true],
      ['100.5', 'JPY', false],
      ['0.01', 'JPY', false],
      ['1.234', 'BHD', true],
      ['1.2345', 'BHD', false],
      ['1.234', 'KWD', true],
      ['0.0001', 'KWD', false],
      ['1.2345', 'CLF', true],
      ['0.00000001', 'XAU', true],
    ];
    for (const [amount, currency, fits] of cases) assert.equal(minorUnitsProblem(amount, currency) === undefined, fits, `${amount} ${currency}`);
  });

  test('property: an amount fits exactly when its value rounded to the minor units is itself', () => {
    const code = fc.constantFrom('EUR', 'GBP', 'USD', 'JPY', 'BHD', 'KWD', 'CLF', 'KRW');
    const amount = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 8 }))
      .map(([m, scale]) => new Big(m.toString()).div(new Big(10).pow(scale)).toFixed(scale));
    fc.assert(
      fc.property(amount, code, (a, c) => {
        const units = minorUnitsOf(c)!;
        assert.equal(minorUnitsProblem(a, c) === undefined, new Big(a).round(units, Big.roundDown).eq(a), `${a} ${c}`);
      }),
      { numRuns: 2000 },
    );
  });

  test('currenciesTooCoarseFor lists exactly the known codes an amount of that many decimals does not fit', () => {
    assert.deepEqual(currenciesTooCoarseFor(0), []);
    const one = currenciesTooCoarseFor(1);
    assert.ok(one.includes('JPY') && !one.includes('EUR') && !one.includes('XAU'));
    const three = currenciesTooCoarseFor(3);
    assert.ok(three.includes('EUR') && three.includes('JPY') && !three.includes('BHD') && !three.includes('CLF'));
    assert.ok(currenciesTooCoarseFor(5).includes('CLF'));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), fc.constantFrom('EUR', 'JPY', 'BHD', 'CLF', 'XAU', 'SEK'), (d, c) => {
        assert.equal(currenciesTooCoarseFor(d).includes(c), minorUnitsOf(c) !== null && minorUnitsOf(c)! < d);
      }),
    );
  });

  test('codes are the real ISO 4217 list', () => {
    assert.ok(isCurrencyCode('EUR') && isCurrencyCode('JPY'));
    assert.ok(!isCurrencyCode('ABC') && !isCurrencyCode('eur'));
  });
});

describe('withdrawn ISO 4217 codes', () => {
  test('refused for new data with the code that replaced them, never offered, still known for stored data', () => {
    for (const [code, replacement] of [
      ['HRK', 'EUR'],
      ['SLL', 'SLE'],
      ['ZWL', 'ZWG'],
      ['ANG', 'XCG'],
    ]) {
      assert.equal(withdrawnCurrencyProblem(code!), `"${code}" was withdrawn from ISO 4217; use ${replacement}`);
      assert.ok(!currentCurrencies().includes(code!), code);
    }
    assert.equal(withdrawnCurrencyProblem('EUR'), undefined);
    assert.ok(currentCurrencies().includes('EUR') && currentCurrencies().includes('SLE') && currentCurrencies().includes('ZWG'));
    // Readable: what was stored under HRK is still a currency code (amounts, exports, minor units).
    assert.ok(isCurrencyCode('HRK'));
  });
});
