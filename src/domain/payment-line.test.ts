// Matching rules, table by table: finding the reference, judging the amount, units on completion.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unitsFor } from './completion-booking.ts';
import { judgeAmount, lineKeys, type StatementLine } from './payment-line.ts';
import { referenceFromBody } from './payment-reference.ts';
import { findReference } from './remittance.ts';

const REF = referenceFromBody('539007547034112'); // RF19539007547034112
const OTHER = referenceFromBody('123456789012345');

describe('findReference', () => {
  const cases: [string, string[], string[], string | null, 'structured' | 'unstructured' | null][] = [
    ['structured, compact', [REF], [], REF, 'structured'],
    ['structured, grouped and lower case', [REF.toLowerCase().replace(/(.{4})/g, '$1 ')], [], REF, 'structured'],
    ['structured wins over the text', [REF], [`pay ${OTHER}`], REF, 'structured'],
    ['invalid structured, valid text', ['RF00539007547034112'], [`pay ${OTHER}`], OTHER, 'unstructured'],
    ['in text with hyphens', [], [`inv ${REF.slice(0, 4)}-${REF.slice(4, 8)}-${REF.slice(8)}`], REF, 'unstructured'],
    ['in text followed by other numbers', [], [`${REF.replace(/(.{4})/g, '$1 ')} invoice 2026 77`], REF, 'unstructured'],
    ['the first valid of two', [], [`a ${OTHER} b ${REF}`], OTHER, 'unstructured'],
    ['a typo (swapped digits)', [], ['RF19593007547034112'], null, null],
    ['no RF at all', [], ['thank you'], null, null],
    ['a letter for a digit', [], ['RF19 5390 O754 7034 112'], null, null],
    ['second line of several', [], ['first', `second ${REF}`], REF, 'unstructured'],
  ];
  for (const [name, structured, unstructured, reference, source] of cases) {
    it(name, () => {
      const found = findReference(structured, unstructured);
      assert.equal(found.reference, reference);
      assert.equal(found.source, source);
    });
  }
  it('names mistyped references for staff', () => assert.deepEqual(findReference([], ['RF19593007547034112']).rejected, ['RF19593007547034112']));
});

describe('judgeAmount', () => {
  const cases: [string, Parameters<typeof judgeAmount>[0], string, string][] = [
    ['exact', { amount: '25000.00', currency: 'EUR', commitment: '25000', commitmentCurrency: 'EUR', received: '0' }, 'matched', '25000'],
    ['below', { amount: '5000', currency: 'EUR', commitment: '20000', commitmentCurrency: 'EUR', received: '0' }, 'partial', '5000'],
    ['completes earlier lines', { amount: '15000', currency: 'EUR', commitment: '20000.00', commitmentCurrency: 'EUR', received: '5000' }, 'matched', '20000'],
    ['above', { amount: '12000', currency: 'EUR', commitment: '10000', commitmentCurrency: 'EUR', received: '0' }, 'overpaid', '12000'],
    [
      'above with earlier lines',
      { amount: '0.01', currency: 'EUR', commitment: '10000', commitmentCurrency: 'EUR', received: '10000' },
      'overpaid',
      '10000.01',
    ],
    ['another currency', { amount: '25000', currency: 'USD', commitment: '25000', commitmentCurrency: 'EUR', received: '0' }, 'wrong-currency', '0'],
    ['no currency known', { amount: '1', currency: 'USD', commitment: '1', commitmentCurrency: null, received: '0' }, 'matched', '1'],
    ['nothing committed', { amount: '1', currency: 'EUR', commitment: null, commitmentCurrency: 'EUR', received: '0' }, 'overpaid', '1'],
    ['no float error', { amount: '0.1', currency: 'EUR', commitment: '0.3', commitmentCurrency: 'EUR', received: '0.2' }, 'matched', '0.3'],
  ];
  for (const [name, facts, outcome, total] of cases) {
    it(name, () => {
      const judged = judgeAmount(facts);
      assert.equal(judged.outcome, outcome);
      assert.equal(judged.total, total);
    });
  }
});

describe('unitsFor', () => {
  const cases: [string, string, number, string | null][] = [
    ['25000', '100', 0, '250'],
    ['25000', '12.5', 0, '2000'],
    ['25000', '3', 0, null],
    ['25000', '8', 3, '3125'],
    ['1', '8', 3, '0.125'],
    ['1', '8', 2, null],
    ['10', '0.1', 0, '100'],
    ['0', '1', 0, null],
  ];
  for (const [committed, price, decimals, units] of cases) {
    it(`${committed} / ${price} to ${decimals} decimals`, () => {
      const result = unitsFor(committed, price, decimals);
      assert.equal(result.ok ? result.units : null, units);
    });
  }
});

describe('lineKeys', () => {
  const line = (over: Partial<StatementLine> = {}): StatementLine => ({
    direction: 'credit',
    reversal: false,
    amount: '10.00',
    currency: 'EUR',
    bookingDate: '2026-11-20',
    valueDate: '2026-11-20',
    account: 'DE89',
    entryReference: null,
    endToEndId: null,
    debtorName: null,
    debtorAccount: null,
    structuredReferences: [],
    remittance: ['x'],
    bankKey: null,
    entryStatus: 'BOOK',
    ...over,
  });
  it('uses the bank key with the account', () => assert.deepEqual(lineKeys([line({ bankKey: 'B1' })]), ['bank:DE89:B1']));
  it('hashes the fields otherwise; equal lines are told apart by their count; 10.00 is 10', () => {
    const [a, b, c] = lineKeys([line(), line({ amount: '10' }), line({ remittance: ['y'] })]);
    assert.match(a!, /^hash:[0-9a-f]{64}:1$/);
    assert.equal(b, a!.replace(/:1$/, ':2'));
    assert.notEqual(c!.split(':')[1], a!.split(':')[1]);
  });
  it('an entry that is not booked has its status in its key, so the booked entry later is a new line', () => {
    assert.deepEqual(lineKeys([line({ bankKey: 'B1', entryStatus: 'PDNG' }), line({ bankKey: 'B1' })]), ['bank:DE89:B1#PDNG', 'bank:DE89:B1']);
    const [pending, booked] = lineKeys([line({ entryStatus: 'INFO' }), line()]);
    assert.match(pending!, /^hash:[0-9a-f]{64}#INFO:1$/);
    assert.match(booked!, /^hash:[0-9a-f]{64}:1$/);
  });
});
