// Checkpoints and the audit reads (verification: audit-verify.ts). The sealer commits a Merkle root over the entries
// after the last checkpoint and below the horizon (the oldest transaction still running: every
// entry there is final, every entry yet to commit sorts after them, as in the outbox feed), so it
// takes no lock a writer waits for. Many sealers may run (every instance, every worker): the
// checkpoint number is the primary key, so only one writes each checkpoint; the others find it taken.
import { checkpointHash, GENESIS } from '../domain/audit.ts';
import { notFound } from '../domain/errors.ts';
import * as audit from '../store/audit.ts';
import * as checkpointStore from '../store/audit-checkpoints.ts';
import { findDeal } from '../store/deals.ts';
import type { Db } from '../store/schema.ts';
import { buildTree, checkpointEntries, proveInclusion } from './audit-proofs.ts';
import type { Deps } from './deps.ts';
import { type Periodic, runEvery } from './periodic.ts';

/** Most entries one checkpoint covers (the rest go to the next one, sealed right after). */
const MAX_CHECKPOINT_SIZE = 100_000;
/** Trees of older checkpoints one sealer tick fills in (each up to MAX_CHECKPOINT_SIZE leaves). */
const TREES_PER_CALL = 5;

/**
 * Seals the next checkpoint, with its Merkle tree (one transaction: a checkpoint never shows without
 * it); undefined when nothing new is below the horizon, or another sealer won.
 */
export async function sealCheckpoint(deps: Pick<Deps, 'db' | 'clock'>): Promise<checkpointStore.Checkpoint | undefined> {
  const { db } = deps;
  const last = await checkpointStore.findLastCheckpoint(db);
  const after = last ? { xid: last.upToXid, position: last.upToPosition } : null;
  const entries = await audit.pageEntriesInOrder(db, after, 'horizon', MAX_CHECKPOINT_SIZE);
  if (entries.length === 0) return undefined;
  const end = entries.at(-1)!;
  const { root, tree } = buildTree(entries);
  const body = {
    number: (last?.number ?? 0) + 1,
    upToXid: end.xid,
    upToPosition: end.position,
    size: entries.length,
    root,
    sealedAt: deps.clock().toISOString(),
  };
  const prevHash = last?.hash ?? GENESIS;
  const checkpoint: checkpointStore.Checkpoint = { ...body, prevHash, hash: checkpointHash(prevHash, body) };
  const write = async (trx: Db) => {
    if (!(await checkpointStore.insertCheckpoint(trx, checkpoint))) return undefined;
    await checkpointStore.insertCheckpointTree(trx, checkpoint.number, tree);
    return checkpoint;
  };
  return inOneTransaction(db, write);
}

const inOneTransaction = <T>(db: Db, work: (trx: Db) => Promise<T>) => (db.isTransaction ? work(db) : db.transaction().execute(work));

/**
 * Writes the trees of checkpoints numbered above `after` that have none (sealed before trees were
 * kept, or by an instance not yet upgraded), a few per call, each only when its entries still
 * give its root. Returns the number to continue after.
 */
export async function fillCheckpointTrees(deps: Pick<Deps, 'db'>, after: number, log?: { warn(obj: object, msg: string): void }): Promise<number> {
  const { db } = deps;
  const last = await checkpointStore.findLastCheckpoint(db);
  if (!last) return after;
  const missing = await checkpointStore.listCheckpointsWithoutTree(db, after, last.number, TREES_PER_CALL);
  for (const c of missing) {
    const entries = await checkpointEntries(db, c);
    const { root, tree } = buildTree(entries);
    if (entries.length !== c.size || root !== c.root) {
      log?.warn({ checkpoint: c.number }, 'not keeping a tree for an audit checkpoint whose entries no longer give its root (run dealflow verify)');
      continue;
    }
    await inOneTransaction(db, (trx) => checkpointStore.insertCheckpointTree(trx, c.number, tree));
  }
  return missing.length === TREES_PER_CALL ? missing.at(-1)!.number : last.number;
}

/** Seals until nothing is left below the horizon (a backlog larger than one checkpoint). */
export async function sealAll(deps: Pick<Deps, 'db' | 'clock'>): Promise<checkpointStore.Checkpoint[]> {
  const sealed: checkpointStore.Checkpoint[] = [];
  for (let c = await sealCheckpoint(deps); c; c = await sealCheckpoint(deps)) sealed.push(c);
  return sealed;
}

/**
 * Runs `sealAll` every `intervalMs` until stopped (in `serve` and in `dealflow worker`), then fills
 * in the trees older checkpoints lack: the first tick looks at every checkpoint, later ones only
 * at those sealed since (any instance that is not upgraded yet may still seal one without).
 */
export function startSealer(deps: Pick<Deps, 'db' | 'clock'>, intervalMs: number, log: { warn(obj: object, msg: string): void }): Periodic {
  let treesAfter = 0;
  const seal = async () => {
    await sealAll(deps);
    treesAfter = await fillCheckpointTrees(deps, treesAfter, log);
  };
  return runEvery(intervalMs, seal, (err) => log.warn({ err }, 'sealing an audit checkpoint failed'));
}

/** GET /audit/checkpoints: the roots, oldest first, to anchor elsewhere. */
export async function listAuditCheckpoints(deps: Pick<Deps, 'db'>, query: { limit: number; page: number }) {
  const total = await checkpointStore.countCheckpoints(deps.db);
  const checkpoints = await checkpointStore.listCheckpoints(deps.db, (query.page - 1) * query.limit, query.limit);
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
  const proofs = await proveInclusion(db, entries);
  const output = entries.map((e) => {
    const proof = proofs.get(e.position);
    return {
      chain: e.chain,
      seq: e.seq,
      position: Number(e.position),
      type: e.type,
      principal: e.principal,
      tokenId: e.tokenId,
      at: e.at,
      change: e.change,
      prevHash: e.prevHash,
      hash: e.hash,
      inclusion: proof ? { checkpoint: proof.checkpoint, treeSize: proof.treeSize, leafIndex: proof.leafIndex, root: proof.root, path: proof.path } : null,
    };
  });
  return { output, page: query.page, totalPages: Math.ceil(total / query.limit) };
}
