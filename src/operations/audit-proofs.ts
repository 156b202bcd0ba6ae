// Inclusion proofs from the trees the sealer keeps (migration 0018): an entry's proof reads its leaf
// and the log2(n) sibling nodes above it, for a whole page of entries in two queries, instead of
// every hash of its checkpoint. A checkpoint without a tree yet (sealed before the trees existed, or
// by an instance not yet upgraded, until a sealer fills it in) is rebuilt from its entries, once per
// call.
import { leafHashOf, merkleLevels, proofNodes } from '../domain/audit.ts';
import * as checkpointStore from '../store/audit-checkpoints.ts';
import type { Db } from '../store/schema.ts';

export interface InclusionProof {
  checkpoint: number;
  treeSize: number;
  leafIndex: number;
  root: string;
  path: string[];
}

/** A checkpoint's tree as the sealer writes it, from its entries in order. */
export function buildTree(entries: { xid: string; position: string; hash: string; dealId: string | null }[]): {
  root: string;
  tree: checkpointStore.CheckpointTree;
} {
  const levels = merkleLevels(entries.map((e) => e.hash));
  return {
    root: levels.at(-1)![0]!,
    tree: { leaves: entries.map((e) => ({ xid: e.xid, position: e.position, entryHash: e.hash, dealId: e.dealId })), levels: levels.slice(1) },
  };
}

/** The entries a checkpoint covers, in order: from the bound of the checkpoint before it to its own. */
export async function checkpointEntries(db: Db, c: checkpointStore.Checkpoint) {
  const before = c.number > 1 ? await checkpointStore.findCheckpoint(db, c.number - 1) : undefined;
  return checkpointStore.checkpointLeaves(db, before ? { xid: before.upToXid, position: before.upToPosition } : null, c);
}

/**
 * The proof of each entry (by position) that its checkpoint holds it: null while no checkpoint
 * covers it yet, or when the covering checkpoint's tree does not hold it (only after a change
 * behind the service's back; `verify` names it). `entryHash` is the entry hash the tree holds.
 */
export async function proveInclusion(
  db: Db,
  entries: { xid: string; position: string }[],
): Promise<Map<string, (InclusionProof & { entryHash: string }) | null>> {
  const result = new Map<string, (InclusionProof & { entryHash: string }) | null>();
  const leaves = await checkpointStore.findLeaves(
    db,
    entries.map((e) => e.position),
  );
  const checkpoints = new Map<number, checkpointStore.Checkpoint | undefined>();
  const checkpoint = async (number: number) => {
    if (!checkpoints.has(number)) checkpoints.set(number, await checkpointStore.findCheckpoint(db, number));
    return checkpoints.get(number);
  };

  // Entries with a leaf: their sibling nodes, all in one read.
  const withLeaf: { position: string; leaf: checkpointStore.TreeLeaf; c: checkpointStore.Checkpoint }[] = [];
  for (const e of entries) {
    const leaf = leaves.get(e.position);
    const c = leaf && (await checkpoint(leaf.checkpoint));
    if (leaf && c) withLeaf.push({ position: e.position, leaf, c });
  }
  const wanted = withLeaf.flatMap(({ leaf, c }) => proofNodes(leaf.index, c.size).map((n) => ({ checkpoint: c.number, ...n })));
  const stored = await checkpointStore.findTreeHashes(db, wanted);
  for (const { position, leaf, c } of withLeaf) {
    const path = proofNodes(leaf.index, c.size).map(({ level, index }) => {
      const node = stored.get(`${c.number}/${level}/${index}`);
      if (!node) return '';
      return level === 0 ? leafHashOf(node.hash) : node.hash;
    });
    result.set(position, { checkpoint: c.number, treeSize: c.size, leafIndex: leaf.index, root: c.root, path, entryHash: leaf.entryHash });
  }

  // Entries without one: not sealed yet, or in a checkpoint that has no tree yet (rebuilt here).
  const rebuilt = new Map<number, { levels: string[][]; index: Map<string, number>; hashes: string[] } | null>();
  for (const e of entries) {
    if (result.has(e.position)) continue;
    const c = await checkpointStore.findCheckpointCovering(db, e);
    if (!c) {
      result.set(e.position, null);
      continue;
    }
    if (!rebuilt.has(c.number)) {
      const hasTree = await checkpointStore.hasCheckpointTree(db, c.number);
      const covered = hasTree ? undefined : await checkpointEntries(db, c);
      const hashes = covered?.map((l) => l.hash) ?? [];
      rebuilt.set(c.number, covered ? { levels: merkleLevels(hashes), hashes, index: new Map(covered.map((l, i) => [l.position, i])) } : null);
    }
    const tree = rebuilt.get(c.number);
    const index = tree?.index.get(e.position);
    if (!tree || index === undefined) {
      result.set(e.position, null);
      continue;
    }
    const path = proofNodes(index, tree.hashes.length).map(({ level, index: i }) => tree.levels[level]![i]!);
    result.set(e.position, { checkpoint: c.number, treeSize: c.size, leafIndex: index, root: c.root, path, entryHash: tree.hashes[index]! });
  }
  return result;
}
