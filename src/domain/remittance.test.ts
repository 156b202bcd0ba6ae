// Reading a reference out of free text: the whole grouped run, never a valid prefix of it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatReference, referenceFromBody } from './payment-reference.ts';
import { findReference, groupedReferences } from './remittance.ts';

describe('groupedReferences', () => {
  const cases: [string, string, string[]][] = [
    ['printed in groups of four', 'payment RF18 5390 0754 7034 112', ['RF18539007547034112']],
    ['check digits apart', 'RF 18 5390 0754 7034 112', ['RF18539007547034112']],
    ['hyphens', 'RF18-5390-0754-7034-112', ['RF18539007547034112']],
    ['written together', 'ref RF18539007547034112 thanks', ['RF18539007547034112']],
    ['the last group shorter ends it: the numbers after are not read', 'RF18 5390 0754 7034 112 invoice 2026 77', ['RF18539007547034112']],
    ['a longer group ends it', 'RF18-5390-07547034112 2026', ['RF18539007547034112']],
    // One in 97 prefixes of a mistyped reference passes the check digits: RF399070 does.
    ['a mistyped reference is read whole, not as its valid prefix', 'payment RF39 9070 5171 9131 941', ['RF39907051719131941']],
    ['two references', 'a RF18 5390 b rf 77 12', ['RF185390', 'RF7712']],
    ['none', 'thank you, 2026 77', []],
  ];
  for (const [name, text, expected] of cases) it(name, () => assert.deepEqual(groupedReferences(text), expected));

  it('the mistyped reference of the walkthrough is refused, and named for staff', () => {
    assert.equal(findReference([], ['RF399070']).reference, 'RF399070', 'its prefix is a valid reference');
    const found = findReference([], ['payment RF39 9070 5171 9131 941']);
    assert.equal(found.reference, null);
    assert.deepEqual(found.rejected, ['RF39907051719131941']);
  });
});

describe('any valid reference printed in groups of four inside text is found whole', () => {
  // Text around it that holds no "RF" followed by digits, and does not continue the last group with digits.
  const text = fc.string({ unit: fc.constantFrom(...'abcxyzRFrf0123456789 -.,:/'.split('')), maxLength: 30 });
  const before = text.filter((t) => !/rf[\s-]*\d/i.test(t) && !/rf[\s-]*$/i.test(t));
  const after = text.filter((t) => !/^[\s-]*\d/.test(t) && !/rf[\s-]*\d/i.test(t));
  it('property', () => {
    fc.assert(
      fc.property(before, fc.stringMatching(/^[1-9]\d{0,20}$/), after, fc.boolean(), (head, body, tail, apart) => {
        const reference = referenceFromBody(body);
        const printed = apart ? `RF ${formatReference(reference).slice(2)}` : formatReference(reference);
        const found = findReference([], [`${head} ${printed} ${tail}`]);
        assert.equal(found.reference, reference);
      }),
      { numRuns: 500 },
    );
  });
});
