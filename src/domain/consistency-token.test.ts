import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatConsistencyToken, parseConsistencyToken } from './consistency-token.ts';

test('LSNs parse, compare as numbers and print back as PostgreSQL prints them', () => {
  assert.equal(parseConsistencyToken('0/0'), 0n);
  assert.equal(parseConsistencyToken('16/B374D848'), (0x16n << 32n) | 0xb374d848n);
  assert.ok(parseConsistencyToken('1/0')! > parseConsistencyToken('0/FFFFFFFF')!, 'the high part weighs more');
  for (const bad of ['', '16', '16/', '/1', 'G/1', '1/2/3', '123456789/0', ' 1/0', '1/0 ', '-1/0', '0x1/0']) {
    assert.equal(parseConsistencyToken(bad), undefined, bad);
  }
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (lsn) => parseConsistencyToken(formatConsistencyToken(lsn)) === lsn));
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      (a, b) => parseConsistencyToken(formatConsistencyToken(a))! < parseConsistencyToken(formatConsistencyToken(b))! === a < b,
    ),
  );
});
