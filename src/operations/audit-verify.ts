// `dealflow verify`: recomputes the audit log's chains and checks its checkpoints. The full verify
// recomputes every checkpoint's Merkle root from the entries in its range (and the tree the sealer
// kept for proofs). `--deal` must not grow with the platform's other deals: it recomputes the deal's
// chains, checks the checkpoints' own hash chain (one small row each), and proves each of the deal's
// entries into its checkpoint's root with the kept tree (log2 n reads an entry).
import { checkpointHash, entryHash, GENESIS, merkleLevels, verifyInclusion } from '../domain/audit.ts';
import * as audit from '../store/audit.ts';
import * as checkpointStore from '../store/audit-checkpoints.ts';
import type { Db } from '../store/schema.ts';
import { proveInclusion } from './audit-proofs.ts';
import type { Deps } from './deps.ts';

const PAGE = 5000;

export interface VerifyReport {
  ok: boolean;
  /** The first entry or checkpoint that does not match, in words that name it. */
  mismatch?: { chain?: string; seq?: number; checkpoint?: number; detail: string };
  chains: number;
  entries: number;
  checkpoints: number;
  /** With a deal: its entries proved to be in their checkpoints. */
  proved?: number;
  /** Entries (with a deal: its entries) not yet covered by a checkpoint. */
  unsealed: number;
  heads: { chain: string; seq: number; hash: string }[];
}

type Mismatch = NonNullable<VerifyReport['mismatch']>;

/**
 * Recomputes every chain (or a deal's: its journeys and its workflow): each entry's hash from its
 * previous hash and its canonical JSON, the seq without gaps, the heads kept on journeys, workflows
 * and audit_heads, and the events and revisions against the entries. Then the checkpoints: all of
 * them in full, or with a deal, their hash chain and the inclusion of the deal's entries.
 */
export async function verifyAudit(deps: Pick<Deps, 'db'>, options: { dealId?: string } = {}): Promise<VerifyReport> {
  // One snapshot for every read, so heads and entries written meanwhile cannot disagree.
  if (deps.db.isTransaction) return verifyIn(deps.db, options);
  return deps.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute((trx) => verifyIn(trx, options));
}

async function verifyIn(db: Db, options: { dealId?: string }): Promise<VerifyReport> {
  const report: VerifyReport = { ok: true, chains: 0, entries: 0, checkpoints: 0, unsealed: 0, heads: [] };
  const mismatch =
    (await verifyChains(db, options.dealId, report)) ??
    (await audit.findHistoryMismatch(db, options.dealId)) ??
    (options.dealId === undefined ? await verifyCheckpoints(db, report) : await verifyDealInCheckpoints(db, options.dealId, report));
  return mismatch ? { ...report, ok: false, mismatch } : report;
}

async function verifyChains(db: Db, dealId: string | undefined, report: VerifyReport): Promise<Mismatch | undefined> {
  const recorded = await audit.listHeads(db, dealId);
  let previous: audit.StoredAuditEntry | undefined;
  const endChain = (last: audit.StoredAuditEntry): Mismatch | undefined => {
    report.chains++;
    report.heads.push({ chain: last.chain, seq: last.seq, hash: last.hash });
    const head = recorded.get(last.chain);
    recorded.delete(last.chain);
    if (head && (head.seq !== last.seq || head.hash !== last.hash)) {
      return {
        chain: last.chain,
        seq: last.seq,
        detail: `the recorded head is entry ${head.seq} (${head.hash?.slice(0, 12)}…) but the chain ends at entry ${last.seq} (${last.hash.slice(0, 12)}…)`,
      };
    }
    return undefined;
  };
  for (let page = await audit.pageEntriesByChain(db, null, PAGE, dealId); page.length > 0; ) {
    for (const e of page) {
      if (previous && previous.chain !== e.chain) {
        const bad = endChain(previous);
        if (bad) return bad;
        previous = undefined;
      }
      const expectedSeq = (previous?.seq ?? 0) + 1;
      if (e.seq !== expectedSeq)
        return { chain: e.chain, seq: expectedSeq, detail: `entry ${expectedSeq} is missing (entry ${e.seq} follows ${expectedSeq - 1})` };
      const prevHash = previous?.hash ?? GENESIS;
      if (e.prevHash !== prevHash)
        return {
          chain: e.chain,
          seq: e.seq,
          detail: `its previous hash ${e.prevHash.slice(0, 12)}… is not the hash of entry ${e.seq - 1} (${prevHash.slice(0, 12)}…)`,
        };
      const recomputed = entryHash(prevHash, e);
      if (recomputed !== e.hash)
        return {
          chain: e.chain,
          seq: e.seq,
          detail: `its content does not match its hash (stored ${e.hash.slice(0, 12)}…, recomputed ${recomputed.slice(0, 12)}…)`,
        };
      report.entries++;
      previous = e;
    }
    const last = page.at(-1)!;
    page = await audit.pageEntriesByChain(db, { chain: last.chain, seq: last.seq }, PAGE, dealId);
  }
  if (previous) {
    const bad = endChain(previous);
    if (bad) return bad;
  }
  // A head with no entry at all: its whole chain is gone.
  for (const [chain, head] of recorded) return { chain, seq: head.seq, detail: `the recorded head is entry ${head.seq} but the chain has no entry` };
  return undefined;
}

/** Walks the checkpoints in order, checking each one's link to the one before and its own hash. */
async function walkCheckpoints(
  db: Db,
  each: (c: checkpointStore.Checkpoint, previous: audit.FeedKey | null) => Promise<Mismatch | undefined>,
): Promise<Mismatch | undefined> {
  let prevKey: audit.FeedKey | null = null;
  let prevHash = GENESIS;
  for (let after = 0; ; ) {
    const checkpoints = await checkpointStore.listCheckpoints(db, after, 1000);
    if (checkpoints.length === 0) return undefined;
    for (const c of checkpoints) {
      if (c.number !== after + 1) return { checkpoint: after + 1, detail: `checkpoint ${after + 1} is missing` };
      if (c.prevHash !== prevHash) return { checkpoint: c.number, detail: 'its previous hash is not the hash of the checkpoint before' };
      const { prevHash: _p, hash, ...body } = c;
      if (checkpointHash(prevHash, body) !== hash) return { checkpoint: c.number, detail: 'its content does not match its hash' };
      const bad = await each(c, prevKey);
      if (bad) return bad;
      prevKey = { xid: c.upToXid, position: c.upToPosition };
      prevHash = c.hash;
      after = c.number;
    }
  }
}

/** With a kept tree: the first position sealed but gone, or present but not sealed, in words. */
function differingLeaf(kept: { position: string }[], now: { position: string }[]): string {
  if (kept.length === 0) return '';
  const nowPositions = new Set(now.map((l) => l.position));
  const gone = kept.find((l) => !nowPositions.has(l.position));
  if (gone) return `: position ${gone.position}, sealed, is not in the log`;
  const keptPositions = new Set(kept.map((l) => l.position));
  const extra = now.find((l) => !keptPositions.has(l.position));
  return extra ? `: position ${extra.position} sorts into it but was not sealed` : '';
}

/** Every checkpoint covers exactly the entries after the one before, up to its bound, and its kept tree is theirs. */
async function verifyCheckpoints(db: Db, report: VerifyReport): Promise<Mismatch | undefined> {
  let last: audit.FeedKey | null = null;
  const bad = await walkCheckpoints(db, async (c, previous) => {
    const leaves = await checkpointStore.checkpointLeaves(db, previous, c);
    // The tree kept for inclusion proofs (none on checkpoints sealed before it was kept, until filled in).
    const kept = await checkpointStore.readCheckpointTree(db, c.number);
    if (leaves.length !== c.size) {
      const which = leaves.length < c.size ? 'removed' : 'added';
      return {
        checkpoint: c.number,
        detail: `it covers ${c.size} entries, but ${leaves.length} are in its range now (an entry was ${which}${differingLeaf(kept.leaves, leaves)})`,
      };
    }
    const levels = merkleLevels(leaves.map((l) => l.hash));
    if (levels.at(-1)![0] !== c.root)
      return { checkpoint: c.number, detail: 'the Merkle root of the entries in its range is not its root (an entry was changed or reordered)' };
    if (kept.leaves.length > 0) {
      const nodes = levels.slice(1).flatMap((hashes, l) => hashes.map((hash, index) => `${l + 1}/${index}/${hash}`));
      const same =
        kept.leaves.length === leaves.length &&
        kept.leaves.every((k, i) => k.position === leaves[i]!.position && k.entryHash === leaves[i]!.hash) &&
        kept.nodes.length === nodes.length &&
        kept.nodes.every((n, i) => `${n.level}/${n.index}/${n.hash}` === nodes[i]);
      if (!same) return { checkpoint: c.number, detail: 'the Merkle tree kept for its inclusion proofs is not the tree of its entries' };
    }
    report.checkpoints++;
    last = { xid: c.upToXid, position: c.upToPosition };
    return undefined;
  });
  if (bad) return bad;
  report.unsealed = await audit.countEntriesAfter(db, last);
  return undefined;
}

/** The checkpoints' hash chain, then each of the deal's entries proved into its checkpoint, and none of its sealed entries gone. */
async function verifyDealInCheckpoints(db: Db, dealId: string, report: VerifyReport): Promise<Mismatch | undefined> {
  const bad = await walkCheckpoints(db, async () => {
    report.checkpoints++;
    return undefined;
  });
  if (bad) return bad;
  report.proved = 0;
  for (let after: audit.FeedKey | null = null; ; ) {
    const page = await audit.pageDealEntriesInOrder(db, dealId, after, PAGE);
    if (page.length === 0) break;
    const proofs = await proveInclusion(db, page);
    for (const e of page) {
      const proof = proofs.get(e.position);
      if (!proof) {
        const covering = await checkpointStore.findCheckpointCovering(db, e);
        if (covering)
          return {
            chain: e.chain,
            seq: e.seq,
            checkpoint: covering.number,
            detail: `it sorts into checkpoint ${covering.number}, which does not hold it (an entry was added or moved)`,
          };
        report.unsealed++;
        continue;
      }
      if (proof.entryHash !== e.hash) {
        return {
          chain: e.chain,
          seq: e.seq,
          checkpoint: proof.checkpoint,
          detail: `checkpoint ${proof.checkpoint} holds it with hash ${proof.entryHash.slice(0, 12)}…, not ${e.hash.slice(0, 12)}… (it was rewritten after sealing)`,
        };
      }
      if (!verifyInclusion(e.hash, proof.leafIndex, proof.treeSize, proof.path, proof.root)) {
        return {
          chain: e.chain,
          seq: e.seq,
          checkpoint: proof.checkpoint,
          detail: `its inclusion proof does not lead to the root of checkpoint ${proof.checkpoint}`,
        };
      }
      report.proved++;
    }
    const last = page.at(-1)!;
    after = { xid: last.xid, position: last.position };
  }
  const gone = await checkpointStore.findDealLeafWithoutEntry(db, dealId);
  if (gone)
    return {
      checkpoint: gone.checkpoint,
      detail: `its leaf ${gone.index} (position ${gone.position}, an entry of this deal) has no entry in the log any more (an entry was removed)`,
    };
  return undefined;
}
