// The value rules of step fields by kind (product.md, "Workflows and the jump", rule 4): a table per
// kind whose rule is ours to state, and properties of the number rule.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Big from 'big.js';
import fc from 'fast-check';
import { isDecimalNumber, NUMBER_MAX_DIGITS, valueProblem } from './field-value.ts';
import type { FieldKind } from './workflow.ts';

const fits = (kind: FieldKind, value: string) => valueProblem({ kind, options: kind === 'choice' ? ['yes', 'no'] : null }, value) === undefined;

describe('number', () => {
  const thirty = '123456789012345678901234567890';
  const accepted = [
    '0',
    '12',
    '-3.5',
    '0.25',
    '1.50',
    '-0.5',
    '100',
    '0.0',
    thirty,
    `-${thirty}`,
    `0.${'0'.repeat(28)}1`,
    `${thirty.slice(0, 15)}.${thirty.slice(15)}`,
  ];
  const refused: [string, string][] = [
    ['', 'empty'],
    [' ', 'blank'],
    [' 12', 'leading space'],
    ['12 ', 'trailing space'],
    ['12\n', 'trailing line feed'],
    ['1e3', 'exponent'],
    ['1E3', 'exponent, upper case'],
    ['1.5e-3', 'exponent after a fraction'],
    ['1,000', 'thousands separator'],
    ['1 000', 'space as a separator'],
    ['1_000', 'underscore as a separator'],
    ['1,5', 'decimal comma'],
    ['+1', 'plus sign'],
    ['--1', 'two minus signs'],
    ['-', 'a sign alone'],
    ['.5', 'no digit before the point'],
    ['5.', 'no digit after the point'],
    ['1.2.3', 'two points'],
    ['01', 'leading zero'],
    ['-01', 'leading zero, negative'],
    ['00', 'two zeros'],
    ['-0', 'negative zero'],
    ['-0.00', 'negative zero with a fraction'],
    ['0x10', 'hexadecimal'],
    ['NaN', 'not a number'],
    ['Infinity', 'infinity'],
    ['١٢', 'digits of another script'],
    ['１２', 'full-width digits'],
    [`${thirty}1`, '31 digits'],
    [`${thirty}.5`, '31 digits with a fraction'],
    [`0.${'0'.repeat(29)}1`, '31 digits after a leading zero'],
  ];

  test('accepts decimal strings of at most 30 digits', () => {
    for (const value of accepted) assert.equal(valueProblem({ kind: 'number', options: null }, value), undefined, value);
  });

  test('refuses everything else, saying the rule', () => {
    for (const [value, why] of refused) {
      const problem = valueProblem({ kind: 'number', options: null }, value);
      assert.match(problem ?? '', /^must be a decimal number such as "12", "-3\.5" or "0\.25": at most 30 digits/, `${why}: ${JSON.stringify(value)}`);
    }
  });

  test('a number is not an amount: negative values are numbers only', () => {
    assert.ok(fits('number', '-3.5'));
    assert.ok(!fits('amount', '-3.5'));
    assert.ok(fits('amount', '25000.00') && fits('number', '25000.00'));
  });

  test('property: every decimal of at most 30 digits is accepted, and it is the exact value it spells', () => {
    const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
    const decimal = fc
      .tuple(fc.boolean(), fc.integer({ min: 1, max: NUMBER_MAX_DIGITS }), digits(1, NUMBER_MAX_DIGITS), digits(0, NUMBER_MAX_DIGITS))
      .map(([negative, budget, whole, fraction]) => {
        const integer = whole.replace(/^0+(?=\d)/, '').slice(0, budget);
        const rest = fraction.slice(0, NUMBER_MAX_DIGITS - integer.length);
        const unsigned = rest === '' ? integer : `${integer}.${rest}`;
        return negative && /[1-9]/.test(unsigned) ? `-${unsigned}` : unsigned;
      });
    fc.assert(
      fc.property(decimal, (value) => {
        assert.ok(isDecimalNumber(value), value);
        // Exact: read as a decimal and written back, the value keeps every digit (Big never rounds here).
        const exact = new Big(value);
        assert.equal(exact.toFixed(value.split('.')[1]?.length ?? 0), value);
      }),
    );
  });

  test('property: an exponent, a separator or a 31st digit is always refused', () => {
    const accepted = fc.stringMatching(/^-?[1-9][0-9]{0,20}(\.[0-9]{1,8})?$/);
    fc.assert(
      fc.property(accepted, fc.constantFrom('e3', 'E-2', ',000', ' 000', '_000'), (value, tail) => {
        assert.ok(isDecimalNumber(value), value);
        assert.ok(!isDecimalNumber(value + tail), value + tail);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9][0-9]{30,40}$/), fc.boolean(), (value, negative) => {
        assert.ok(!isDecimalNumber(negative ? `-${value}` : value), value);
        assert.ok(!isDecimalNumber(`${value.slice(0, 1)}.${value.slice(1)}`), value);
      }),
    );
  });
});

describe('the other kinds, as a number sees them', () => {
  test('a number value is text, and an amount only when not negative', () => {
    const cases: [FieldKind, string, boolean][] = [
      ['text', '-3.5', true],
      ['amount', '12', true],
      ['amount', '-12', false],
      ['amount', '1e3', false],
      ['currency', '12', false],
      ['date', '12', false],
      ['email', '12', false],
      ['choice', '12', false],
      ['number', 'yes', false],
    ];
    for (const [kind, value, expected] of cases) assert.equal(fits(kind, value), expected, `${kind} ${value}`);
  });
});
