// Property tests of the RF creditor references (ISO 11649, MOD 97-10): every reference we generate
// validates, and the typing mistakes a check digit pair exists to catch (one character changed, two
// adjacent different characters swapped) never validate.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { checkDigits, checkReference, formatReference, newPaymentReference, normalizeReference, referenceFromBody } from './payment-reference.ts';

const digit = fc.integer({ min: 0, max: 9 });
/** Bodies of every length the format allows, leading zeros included. */
const body = fc.array(digit, { minLength: 1, maxLength: 21 }).map((ds) => ds.join(''));
/** References as the service makes them: from a stream of random digits. */
const generated = fc.infiniteStream(digit).map((digits) => {
  const it = digits[Symbol.iterator]();
  return newPaymentReference(() => it.next().value as number);
});
const anyReference = fc.oneof(generated, body.map(referenceFromBody));
/** Every character someone could type in its place: digits, letters of both cases, a few others. */
const typed = fc.oneof(fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-./ '), fc.string({ minLength: 1, maxLength: 1 }));

describe('payment references (RF, ISO 11649)', () => {
  test('known references: the ISO 11649 example and its grouped, lower-case form', () => {
    assert.equal(referenceFromBody('539007547034'), 'RF18539007547034');
    assert.equal(checkDigits('539007547034'), '18');
    assert.equal(checkReference('RF18539007547034'), 'valid');
    assert.equal(checkReference(normalizeReference('rf18 5390 0754 7034')), 'valid');
    assert.equal(checkReference('RF19539007547034'), 'bad-check-digits');
    assert.equal(checkReference('RF18'), 'malformed');
    assert.equal(checkReference('RF18 539007547034'), 'malformed', 'checkReference expects a normalized reference');
    assert.equal(formatReference('RF18539007547034'), 'RF18 5390 0754 7034');
  });

  test('every generated reference validates and has the fixed printed length', () => {
    fc.assert(
      fc.property(generated, (reference) => {
        assert.match(reference, /^RF\d{2}[1-9]\d{14}$/);
        assert.equal(checkReference(reference), 'valid');
      }),
      { numRuns: 2000 },
    );
  });

  test('every reference built from any body of 1 to 21 digits validates, also grouped and in lower case', () => {
    fc.assert(
      fc.property(body, (b) => {
        const reference = referenceFromBody(b);
        assert.equal(checkReference(reference), 'valid');
        assert.equal(checkReference(normalizeReference(formatReference(reference).toLowerCase())), 'valid');
      }),
      { numRuns: 2000 },
    );
  });

  test('any single-character change fails validation', () => {
    fc.assert(
      fc.property(anyReference, fc.nat(), typed, (reference, at, replacement) => {
        const i = at % reference.length;
        fc.pre(replacement !== reference[i]);
        const changed = reference.slice(0, i) + replacement + reference.slice(i + 1);
        assert.notEqual(checkReference(changed), 'valid', `${reference} → ${changed}`);
      }),
      { numRuns: 5000 },
    );
  });

  test('any swap of two adjacent different characters fails validation', () => {
    fc.assert(
      fc.property(anyReference, fc.nat(), (reference, at) => {
        const i = at % (reference.length - 1);
        fc.pre(reference[i] !== reference[i + 1]);
        const swapped = reference.slice(0, i) + reference[i + 1] + reference[i] + reference.slice(i + 2);
        assert.notEqual(checkReference(swapped), 'valid', `${reference} → ${swapped}`);
      }),
      { numRuns: 5000 },
    );
  });

  test('exhaustively, for sampled references: every digit substitution and every adjacent swap is caught', () => {
    fc.assert(
      fc.property(anyReference, (reference) => {
        for (let i = 2; i < reference.length; i++) {
          for (const d of '0123456789') {
            if (d === reference[i]) continue;
            assert.notEqual(checkReference(reference.slice(0, i) + d + reference.slice(i + 1)), 'valid');
          }
        }
        for (let i = 0; i + 1 < reference.length; i++) {
          if (reference[i] === reference[i + 1]) continue;
          const swapped = reference.slice(0, i) + reference[i + 1] + reference[i] + reference.slice(i + 2);
          assert.notEqual(checkReference(swapped), 'valid');
        }
      }),
      { numRuns: 300 },
    );
  });
});
