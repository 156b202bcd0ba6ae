import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { chainEntry, entryHash, GENESIS, inclusionProof, leafHashOf, merkleLevels, merkleRoot, proofNodes, verifyInclusion } from './audit.ts';

const h = (s: string) => createHash('sha256').update(s).digest('hex');

test('RFC 9162 tree hash: one leaf, two leaves, and the empty tree', () => {
  const leaf = (x: string) =>
    createHash('sha256')
      .update(Buffer.concat([Buffer.from([0]), Buffer.from(x, 'hex')]))
      .digest();
  assert.equal(merkleRoot([]), h(''));
  assert.equal(merkleRoot([h('a')]), leaf(h('a')).toString('hex'));
  const two = createHash('sha256')
    .update(Buffer.concat([Buffer.from([1]), leaf(h('a')), leaf(h('b'))]))
    .digest('hex');
  assert.equal(merkleRoot([h('a'), h('b')]), two);
});

test('every inclusion proof of trees of 1 to 33 leaves checks, and fails for another leaf or index', () => {
  for (let n = 1; n <= 33; n++) {
    const leaves = Array.from({ length: n }, (_, i) => h(`entry ${i}`));
    const root = merkleRoot(leaves);
    for (let i = 0; i < n; i++) {
      const proof = inclusionProof(leaves, i);
      assert.ok(verifyInclusion(leaves[i]!, i, n, proof, root), `n=${n} i=${i}`);
      assert.ok(!verifyInclusion(h('other'), i, n, proof, root));
      if (n > 1) assert.ok(!verifyInclusion(leaves[i]!, (i + 1) % n, n, proof, root));
    }
  }
});

test('the tree kept level by level has the RFC 9162 root, and its nodes give the RFC 9162 proofs', () => {
  for (let n = 1; n <= 70; n++) {
    const leaves = Array.from({ length: n }, (_, i) => h(`entry ${i}`));
    const levels = merkleLevels(leaves);
    assert.deepEqual(levels.at(-1), [merkleRoot(leaves)], `root of ${n}`);
    assert.deepEqual(levels[0], leaves.map(leafHashOf));
    for (let i = 0; i < n; i++) {
      const path = proofNodes(i, n).map(({ level, index }) => levels[level]![index]!);
      assert.deepEqual(path, inclusionProof(leaves, i), `n=${n} i=${i}`);
    }
  }
});

test('an entry chains to the head; its hash covers every field', () => {
  const base = {
    chain: 'journey:d/i',
    type: 'journey.moved' as const,
    principal: 'u',
    tokenId: 't',
    at: '2026-01-01T00:00:00.000Z',
    change: { amount: '1.00' },
  };
  const first = chainEntry({ seq: 0, hash: null }, base);
  assert.equal(first.seq, 1);
  assert.equal(first.prevHash, GENESIS);
  const second = chainEntry(first, base);
  assert.equal(second.prevHash, first.hash);
  assert.notEqual(entryHash(first.prevHash, { ...first, change: { amount: '1.01' } }), first.hash);
  assert.notEqual(entryHash(first.prevHash, { ...first, tokenId: null }), first.hash);
  // Key order does not matter (RFC 8785), values do.
  assert.equal(entryHash(GENESIS, { ...first, change: { b: '2', a: '1' } }), entryHash(GENESIS, { ...first, change: { a: '1', b: '2' } }));
});
