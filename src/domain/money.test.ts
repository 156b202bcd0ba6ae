import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { checkTotal, decimalOf, exactProduct, numberOf, toCents } from './money.ts';

describe('decimalOf', () => {
  test('gives the decimal the client wrote, without exponents', () => {
    const cases: [number, string][] = [
      [0.1, '0.1'],
      [1000.1, '1000.1'],
      [123456789012.34, '123456789012.34'],
      [0.00000001, '0.00000001'],
      [1e21, '1000000000000000000000'],
      [0, '0'],
      [999999999999999, '999999999999999'],
    ];
    for (const [input, expected] of cases) assert.equal(decimalOf(input), expected, String(input));
  });

  test('refuses what cannot be exact', () => {
    assert.throws(() => decimalOf(Number.NaN), RangeError);
    assert.throws(() => decimalOf(Number.POSITIVE_INFINITY), RangeError);
    // biome-ignore lint/correctness/noPrecisionLoss: the test is that such a literal, already rounded, is refused
    assert.throws(() => decimalOf(9007199254740993), RangeError); // arrives as 9007199254740992: 16 digits
    assert.throws(() => decimalOf(0.1 + 0.2), RangeError); // 0.30000000000000004
  });

  test('round-trips every decimal of at most 15 significant digits', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 999_999_999_999_999n }), fc.integer({ min: 0, max: 20 }), (mantissa, scale) => {
        const decimal = shift(String(mantissa), scale);
        assert.equal(decimalOf(Number(decimal)), normalize(decimal));
        assert.equal(String(numberOf(decimal)), String(Number(decimal)));
      }),
    );
  });
});

describe('numberOf', () => {
  test('returns the same number for a stored decimal with trailing zeros', () => {
    assert.equal(numberOf('1000.10'), 1000.1);
    assert.equal(JSON.stringify(numberOf('1000.10')), '1000.1');
    assert.equal(numberOf('0.00000001'), 1e-8);
    assert.equal(numberOf('123456789012.34'), 123456789012.34);
  });
  test('refuses a decimal a double cannot hold', () => {
    assert.throws(() => numberOf('9007199254740993'), RangeError);
    assert.throws(() => numberOf('0.12345678901234567'), RangeError);
  });
});

describe('checkTotal', () => {
  test('the product is exact, not floating point', () => {
    assert.equal(exactProduct('0.1', '3'), '0.3');
    assert.equal(exactProduct('1000.1', '3'), '3000.3');
    assert.equal(exactProduct('0.00000001', '0.00000001'), '0.0000000000000001');
  });

  test('cents round half-up', () => {
    assert.equal(toCents('0.125'), '0.13');
    assert.equal(toCents('0.124999'), '0.12');
    assert.equal(toCents('7'), '7.00');
  });

  const cases: [total: string, units: string, price: string, ok: boolean, expected: string][] = [
    ['0.3', '3', '0.1', true, '0.30'], // 0.1 × 3 is 0.30000000000000004 in doubles
    ['3000.3', '3', '1000.1', true, '3000.30'],
    ['0.13', '1', '0.125', true, '0.13'], // half-up at the tie
    ['0.12', '1', '0.125', false, '0.13'], // the other side of the tie is not
    ['0.125', '1', '0.125', true, '0.13'], // the exact product
    ['1', '3', '0.333333', true, '1.00'], // 0.999999 to the cent
    ['0.999999', '3', '0.333333', true, '1.00'],
    ['1.01', '3', '0.333333', false, '1.00'],
    ['0.99', '3', '0.333333', false, '1.00'],
    ['1234567890123.4', '10', '123456789012.34', true, '1234567890123.40'],
    ['1234567890123.41', '10', '123456789012.34', false, '1234567890123.40'],
  ];
  for (const [total, units, price, ok, expected] of cases) {
    test(`${units} × ${price} against ${total}: ${ok ? 'accepted' : 'refused'}`, () => {
      const result = checkTotal(total, units, price);
      assert.equal(result.ok, ok);
      assert.equal(result.expected, expected);
    });
  }

  test('the stated expected total is always accepted', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: 100_000_000 }), (u, p) => {
        const units = shift(String(u), 3);
        const price = shift(String(p), 4);
        const { expected } = checkTotal('0', units, price);
        assert.ok(checkTotal(expected, units, price).ok, `${units} × ${price} → ${expected}`);
      }),
    );
  });
});

/** `digits` divided by 10^scale, as decimal text. */
function shift(digits: string, scale: number): string {
  if (scale === 0) return digits;
  const padded = digits.padStart(scale + 1, '0');
  return normalize(`${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`);
}

function normalize(decimal: string): string {
  if (!decimal.includes('.')) return decimal.replace(/^0+(?=\d)/, '');
  return decimal
    .replace(/^0+(?=\d)/, '')
    .replace(/0+$/, '')
    .replace(/\.$/, '');
}
