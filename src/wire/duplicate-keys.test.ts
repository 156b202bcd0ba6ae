// The duplicate-name scanner against a reference: for any JSON value, its text has no duplicate;
// the same text with one object's member repeated (under any spelling of its name) has exactly
// that duplicate.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { findDuplicateKey } from './duplicate-keys.ts';

test('no duplicate in any JSON.stringify output, whatever the nesting, strings and escapes', () => {
  fc.assert(
    fc.property(fc.json({ maxDepth: 5 }), (text) => {
      assert.equal(findDuplicateKey(text), undefined);
    }),
    { numRuns: 500 },
  );
});

/** An escaped spelling of a name: every character as \uXXXX. */
const escaped = (name: string) => `"${[...name].map((ch) => (ch.length === 1 ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : ch)).join('')}"`;

test('a member repeated in some object is found, under any spelling, at any depth', () => {
  const nested = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), tie('object'), fc.array(tie('value'), { maxLength: 3 })),
    object: fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 }),
  }));
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ maxLength: 6 }), nested.value, { minKeys: 1, maxKeys: 4 }),
      fc.nat(),
      fc.boolean(),
      fc.boolean(),
      (object, pick, escapeKey, wrap) => {
        const names = Object.keys(object);
        const name = names[pick % names.length]!;
        const inner = JSON.stringify(object);
        const repeated = `${inner.slice(0, -1)},${escapeKey ? escaped(name) : JSON.stringify(name)}:null}`;
        const text = wrap ? `{"outer":[1,{"x":${repeated}}]}` : repeated;
        assert.deepEqual(findDuplicateKey(text)?.key, name);
      },
    ),
    { numRuns: 500 },
  );
});

test('names that differ only after unescaping or in case are told apart correctly', () => {
  assert.equal(findDuplicateKey('{"a":1,"A":2}'), undefined);
  assert.deepEqual(findDuplicateKey('{"a":1,"\\u0061":2}'), { key: 'a', path: '' });
  assert.deepEqual(findDuplicateKey('{"d":{"k":"\\"k\\":","k":2}}'), { key: 'k', path: 'd' });
  assert.equal(findDuplicateKey('[{"a":1},{"a":1}]'), undefined, 'the same name in two objects is fine');
  assert.equal(findDuplicateKey('{"a":{"a":{"a":1}}}'), undefined);
  assert.equal(findDuplicateKey('{"a":"}","b":"{"}'), undefined);
});
