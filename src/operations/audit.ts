// Checkpoints, verification and the audit reads. The sealer commits a Merkle root over the entries
// after the last checkpoint and below the horizon (the oldest transaction still running: every
// entry there is final, every entry yet to commit sorts after them, as in the outbox feed), so it
// takes no lock a writer waits for. Many sealers may run (every instance, every worker): the
// checkpoint number is the primary key, so only one writes each checkpoint; the others find it taken.
import { checkpointHash, entryHash, GENESIS, inclusionProof, merkleRoot } from '../domain/audit.ts';
import { notFound } from '../domain/errors.ts';
import * as audit from '../store/audit.ts';
import { findDeal } from '../store/deals.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import type { Deps } from './deps.ts';
import { type Periodic, runEvery } from './periodic.ts';

/** Most entries one checkpoint covers (the rest go to the next one, sealed right after). */
const MAX_CHECKPOINT_SIZE = 100_000;
const PAGE = 5000;

/** Seals the next checkpoint; undefined when nothing new is below the horizon, or another sealer won. */
export async function sealCheckpoint(deps: Pick<Deps, 'db' | 'clock'>): Promise<audit.Checkpoint | undefined> {
  const { db } = deps;
  const last = await audit.findLastCheckpoint(db);
  const after = last ? { xid: last.upToXid, position: last.upToPosition } : null;
  const entries = await audit.pageEntriesInOrder(db, after, 'horizon', MAX_CHECKPOINT_SIZE);
  if (entries.length === 0) return undefined;
  const end = entries.at(-1)!;
  const body = {
    number: (last?.number ?? 0) + 1,
    upToXid: end.xid,
    upToPosition: end.position,
    size: entries.length,
    root: merkleRoot(entries.map((e) => e.hash)),
    sealedAt: deps.clock().toISOString(),
  };
  const prevHash = last?.hash ?? GENESIS;
  const checkpoint: audit.Checkpoint = { ...body, prevHash, hash: checkpointHash(prevHash, body) };
  return (await audit.insertCheckpoint(db, checkpoint)) ? checkpoint : undefined;
}

/** Seals until nothing is left below the horizon (a backlog larger than one checkpoint). */
export async function sealAll(deps: Pick<Deps, 'db' | 'clock'>): Promise<audit.Checkpoint[]> {
  const sealed: audit.Checkpoint[] = [];
  for (let c = await sealCheckpoint(deps); c; c = await sealCheckpoint(deps)) sealed.push(c);
  return sealed;
}

/** Runs `sealAll` every `intervalMs` until stopped (in `serve` and in `dealflow worker`). */
export function startSealer(deps: Pick<Deps, 'db' | 'clock'>, intervalMs: number, log: { warn(obj: object, msg: string): void }): Periodic {
  return runEvery(intervalMs, () => sealAll(deps), (err) => log.warn({ err }, 'sealing an audit checkpoint failed'));
}

export interface VerifyReport {
  ok: boolean;
  /** The first entry or checkpoint that does not match, in words that name it. */
  mismatch?: { chain?: string; seq?: number; checkpoint?: number; detail: string };
  chains: number;
  entries: number;
  checkpoints: number;
  /** Entries not yet covered by a checkpoint. */
  unsealed: number;
  heads: { chain: string; seq: number; hash: string }[];
}

/**
 * Recomputes every chain (or a deal's: its journeys and its workflow) and every checkpoint: each
 * entry's hash from its previous hash and its canonical JSON, the seq without gaps, the heads kept
 * on journeys, workflows and audit_heads, each checkpoint's Merkle root over exactly the entries in
 * its range and its link to the checkpoint before.
 */
export async function verifyAudit(deps: Pick<Deps, 'db'>, options: { dealId?: string } = {}): Promise<VerifyReport> {
  // One snapshot for every read, so heads and entries written meanwhile cannot disagree.
  if (deps.db.isTransaction) return verifyIn(deps.db, options);
  return deps.db.transaction().setIsolationLevel('repeatable read').execute((trx) => verifyIn(trx, options));
}

async function verifyIn(db: Kysely<DB>, options: { dealId?: string }): Promise<VerifyReport> {
  const report: VerifyReport = { ok: true, chains: 0, entries: 0, checkpoints: 0, unsealed: 0, heads: [] };
  const fail = (mismatch: NonNullable<VerifyReport['mismatch']>) => ({ ...report, ok: false, mismatch });
  const recorded = await audit.listHeads(db, options.dealId);

  let previous: audit.StoredAuditEntry | undefined;
  const endChain = (last: audit.StoredAuditEntry) => {
    report.chains++;
    report.heads.push({ chain: last.chain, seq: last.seq, hash: last.hash });
    const head = recorded.get(last.chain);
    recorded.delete(last.chain);
    if (head && (head.seq !== last.seq || head.hash !== last.hash)) {
      return `the recorded head is entry ${head.seq} (${head.hash?.slice(0, 12)}…) but the chain ends at entry ${last.seq} (${last.hash.slice(0, 12)}…)`;
    }
    return undefined;
  };
  for (let page = await audit.pageEntriesByChain(db, null, PAGE, options.dealId); page.length > 0; ) {
    for (const e of page) {
      if (previous && previous.chain !== e.chain) {
        const bad = endChain(previous);
        if (bad) return fail({ chain: previous.chain, seq: previous.seq, detail: bad });
        previous = undefined;
      }
      const expectedSeq = (previous?.seq ?? 0) + 1;
      if (e.seq !== expectedSeq) return fail({ chain: e.chain, seq: expectedSeq, detail: `entry ${expectedSeq} is missing (entry ${e.seq} follows ${expectedSeq - 1})` });
      const prevHash = previous?.hash ?? GENESIS;
      if (e.prevHash !== prevHash) return fail({ chain: e.chain, seq: e.seq, detail: `its previous hash ${e.prevHash.slice(0, 12)}… is not the hash of entry ${e.seq - 1} (${prevHash.slice(0, 12)}…)` });
      const recomputed = entryHash(prevHash, e);
      if (recomputed !== e.hash) return fail({ chain: e.chain, seq: e.seq, detail: `its content does not match its hash (stored ${e.hash.slice(0, 12)}…, recomputed ${recomputed.slice(0, 12)}…)` });
      report.entries++;
      previous = e;
    }
    const last = page.at(-1)!;
    page = await audit.pageEntriesByChain(db, { chain: last.chain, seq: last.seq }, PAGE, options.dealId);
  }
  if (previous) {
    const bad = endChain(previous);
    if (bad) return fail({ chain: previous.chain, seq: previous.seq, detail: bad });
  }
  // A head with no entry at all: its whole chain is gone.
  for (const [chain, head] of recorded) return fail({ chain, seq: head.seq, detail: `the recorded head is entry ${head.seq} but the chain has no entry` });
  // The events and revisions say what the entries recorded (a superuser's change to them shows here).
  const history = await audit.findHistoryMismatch(db, options.dealId);
  if (history) return fail(history);

  // Checkpoints: each covers exactly the entries after the one before, up to its bound.
  let prevKey: audit.FeedKey | null = null;
  let prevHash = GENESIS;
  for (let after = 0; ; ) {
    const checkpoints = await audit.listCheckpoints(db, after, 100);
    if (checkpoints.length === 0) break;
    for (const c of checkpoints) {
      if (c.number !== after + 1) return fail({ checkpoint: after + 1, detail: `checkpoint ${after + 1} is missing` });
      if (c.prevHash !== prevHash) return fail({ checkpoint: c.number, detail: 'its previous hash is not the hash of the checkpoint before' });
      const { prevHash: _p, hash, ...body } = c;
      if (checkpointHash(prevHash, body) !== hash) return fail({ checkpoint: c.number, detail: 'its content does not match its hash' });
      const leaves = await audit.checkpointLeaves(db, prevKey, c);
      if (leaves.hashes.length !== c.size) {
        return fail({ checkpoint: c.number, detail: `it covers ${c.size} entries, but ${leaves.hashes.length} are in its range now (an entry was ${leaves.hashes.length < c.size ? 'removed' : 'added'})` });
      }
      if (merkleRoot(leaves.hashes) !== c.root) return fail({ checkpoint: c.number, detail: 'the Merkle root of the entries in its range is not its root (an entry was changed or reordered)' });
      report.checkpoints++;
      prevKey = { xid: c.upToXid, position: c.upToPosition };
      prevHash = c.hash;
      after = c.number;
    }
  }
  report.unsealed = await audit.countEntriesAfter(db, prevKey);
  return report;
}

/** GET /audit/checkpoints: the roots, oldest first, to anchor elsewhere. */
export async function listAuditCheckpoints(deps: Pick<Deps, 'db'>, query: { limit: number; page: number }) {
  const total = await audit.countCheckpoints(deps.db);
  const checkpoints = await audit.listCheckpoints(deps.db, (query.page - 1) * query.limit, query.limit);
  return { output: checkpoints, page: query.page, totalPages: Math.ceil(total / query.limit) };
}

/**
 * GET /deals/deal/{dealId}/audit: a page of the deal's entries in checkpoint order, each with its
 * hashes and, once sealed, its checkpoint and the RFC 9162 inclusion proof within it.
 */
export async function getDealAudit(deps: Pick<Deps, 'db'>, dealId: string, query: { limit: number; page: number }) {
  const { db } = deps;
  if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
  const { total, entries } = await audit.pageDealEntries(db, dealId, (query.page - 1) * query.limit, query.limit);
  const trees = new Map<number, { checkpoint: audit.Checkpoint; positions: Map<string, number>; hashes: string[] }>();
  const output = [];
  for (const e of entries) {
    const checkpoint = await audit.findCheckpointCovering(db, { xid: e.xid, position: e.position });
    let proof = null;
    if (checkpoint) {
      let tree = trees.get(checkpoint.number);
      if (!tree) {
        const before = checkpoint.number > 1 ? await audit.findCheckpoint(db, checkpoint.number - 1) : undefined;
        const leaves = await audit.checkpointLeaves(db, before ? { xid: before.upToXid, position: before.upToPosition } : null, checkpoint);
        tree = { checkpoint, hashes: leaves.hashes, positions: new Map(leaves.positions.map((p, i) => [p, i])) };
        trees.set(checkpoint.number, tree);
      }
      const index = tree.positions.get(e.position)!;
      proof = { checkpoint: checkpoint.number, treeSize: checkpoint.size, leafIndex: index, root: checkpoint.root, path: inclusionProof(tree.hashes, index) };
    }
    output.push({
      chain: e.chain, seq: e.seq, position: Number(e.position), type: e.type, principal: e.principal, tokenId: e.tokenId, at: e.at,
      change: e.change, prevHash: e.prevHash, hash: e.hash, inclusion: proof,
    });
  }
  return { output, page: query.page, totalPages: Math.ceil(total / query.limit) };
}
