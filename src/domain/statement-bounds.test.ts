// The bounds of a statement's text: each element's ISO 20022 maximum, counted in characters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textMaximumOf, textTooLong } from './statement-bounds.ts';

test('text maxima by element, and lengths counted in characters (code points)', () => {
  const cases: [string, string, boolean][] = [
    ['Nm', 'N'.repeat(140), true],
    ['Nm', 'N'.repeat(141), false],
    ['Nm', '😀'.repeat(140), true], // 280 UTF-16 units, 140 characters
    ['Nm', '😀'.repeat(141), false],
    ['EndToEndId', 'E'.repeat(35), true],
    ['EndToEndId', 'E'.repeat(36), false],
    ['IBAN', 'D'.repeat(35), false],
    ['AddtlNtryInf', 'A'.repeat(500), true],
    ['SomethingElse', 'x'.repeat(2048), true],
    ['SomethingElse', 'x'.repeat(2049), false],
  ];
  for (const [element, text, fits] of cases) {
    assert.equal(textTooLong(text, textMaximumOf(element)) === undefined, fits, `${element} of ${text.length} units`);
  }
  assert.equal(textTooLong('N'.repeat(141), textMaximumOf('Nm')), '141 characters, more than Max140Text allows (140)');
});
