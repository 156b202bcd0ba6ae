// Audit checkpoints (migration 0014) and their Merkle trees (migration 0018): what the sealer
// writes, and what the proofs and `verify` read back. The entries themselves are in audit.ts.
import { type Kysely, sql } from 'kysely';
import { entryOrder, type FeedKey } from './audit.ts';
import type { DB } from './schema.ts';

export interface Checkpoint {
  number: number;
  upToXid: string;
  upToPosition: string;
  size: number;
  root: string;
  prevHash: string;
  hash: string;
  sealedAt: string;
}

type CheckpointRow = {
  number: string;
  up_to_xid: string;
  up_to_position: string;
  size: string;
  root: string;
  prev_hash: string;
  hash: string;
  sealed_at: Date | string;
};
const toCheckpoint = (r: CheckpointRow): Checkpoint => ({
  number: Number(r.number),
  upToXid: r.up_to_xid,
  upToPosition: String(r.up_to_position),
  size: Number(r.size),
  root: r.root,
  prevHash: r.prev_hash,
  hash: r.hash,
  sealedAt: new Date(r.sealed_at).toISOString(),
});
const checkpointColumns = sql`number, up_to_xid::text as up_to_xid, up_to_position, size, root, prev_hash, hash, sealed_at`;

export async function findLastCheckpoint(db: Kysely<DB>): Promise<Checkpoint | undefined> {
  const { rows } = await sql<CheckpointRow>`select ${checkpointColumns} from audit_checkpoints order by number desc limit 1`.execute(db);
  return rows[0] && toCheckpoint(rows[0]);
}

/** Checkpoints numbered above `after`, oldest first. */
export async function listCheckpoints(db: Kysely<DB>, after: number, limit: number): Promise<Checkpoint[]> {
  const { rows } = await sql<CheckpointRow>`select ${checkpointColumns} from audit_checkpoints where number > ${after} order by number limit ${limit}`.execute(
    db,
  );
  return rows.map(toCheckpoint);
}

export async function countCheckpoints(db: Kysely<DB>): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from audit_checkpoints`.execute(db);
  return Number(rows[0]!.n);
}

/** The checkpoint covering an entry: the first whose bound is at or after the entry's key. */
export async function findCheckpointCovering(db: Kysely<DB>, key: FeedKey): Promise<Checkpoint | undefined> {
  const { rows } = await sql<CheckpointRow>`select ${checkpointColumns} from audit_checkpoints
    where (up_to_xid, up_to_position) >= (${key.xid}::xid8, ${key.position}::bigint) order by number limit 1`.execute(db);
  return rows[0] && toCheckpoint(rows[0]);
}

/** The server as its clients reach it: address and port (`local` over a socket or embedded). */
export const serverSql = sql<string>`coalesce(host(inet_server_addr()), 'local') || ':' || coalesce(inet_server_port()::text, '-')`;

/** Inserts a checkpoint; false when another sealer wrote that number first. */
export async function insertCheckpoint(db: Kysely<DB>, c: Checkpoint): Promise<boolean> {
  // Where it was sealed (migration 0030): the database's instance, the cluster, and its timeline,
  // which a promotion or a point-in-time restore moves on. Not part of the checkpoint's hash.
  const { rows } = await sql<{ number: string }>`insert into audit_checkpoints (number, up_to_xid, up_to_position, size, root, prev_hash, hash, sealed_at,
      instance_id, system_identifier, timeline, server)
    select ${c.number}, ${c.upToXid}::xid8, ${c.upToPosition}::bigint, ${c.size}, ${c.root}, ${c.prevHash}, ${c.hash}, ${new Date(c.sealedAt)}::timestamptz,
      (select instance_id from database_identity), s.system_identifier::text, k.timeline_id, ${serverSql}
    from pg_control_system() s, pg_control_checkpoint() k
    on conflict (number) do nothing returning number`.execute(db);
  return rows.length === 1;
}

/** The entries a checkpoint covers, in order (its Merkle leaves): after `previous`, up to its bound. */
export async function checkpointLeaves(
  db: Kysely<DB>,
  previous: FeedKey | null,
  c: Checkpoint,
): Promise<{ xid: string; position: string; hash: string; dealId: string | null }[]> {
  const lower = previous ? sql`(xid, position) > (${previous.xid}::xid8, ${previous.position}::bigint)` : sql`true`;
  const { rows } = await sql<{
    xid: string;
    position: string;
    hash: string;
    deal_id: string | null;
  }>`select xid::text as xid, position, hash, deal_id from audit_log
    where ${lower} and (xid, position) <= (${c.upToXid}::xid8, ${c.upToPosition}::bigint) order by ${entryOrder}`.execute(db);
  return rows.map((r) => ({ xid: r.xid, position: String(r.position), hash: r.hash, dealId: r.deal_id }));
}

export async function findCheckpoint(db: Kysely<DB>, number: number): Promise<Checkpoint | undefined> {
  const { rows } = await sql<CheckpointRow>`select ${checkpointColumns} from audit_checkpoints where number = ${number}`.execute(db);
  return rows[0] && toCheckpoint(rows[0]);
}

/** A checkpoint's Merkle tree as the sealer keeps it (migration 0018): its leaves in order, and levels 1 and up. */
export interface CheckpointTree {
  leaves: { xid: string; position: string; entryHash: string; dealId: string | null }[];
  /** merkleLevels without level 0: levels[0] is level 1. */
  levels: string[][];
}

const TREE_CHUNK = 10_000;

/** Writes a checkpoint's tree (inside the caller's transaction; nothing when it is there already). */
export async function insertCheckpointTree(db: Kysely<DB>, checkpoint: number, tree: CheckpointTree): Promise<void> {
  for (let from = 0; from < tree.leaves.length; from += TREE_CHUNK) {
    const chunk = tree.leaves.slice(from, from + TREE_CHUNK);
    await sql`insert into audit_tree_leaves (checkpoint, index, xid, position, entry_hash, deal_id)
      select ${checkpoint}::bigint, ${from}::bigint + l.n - 1, l.xid, l.position, l.entry_hash, l.deal_id
      from unnest(${chunk.map((l) => l.xid)}::xid8[], ${chunk.map((l) => l.position)}::bigint[], ${chunk.map((l) => l.entryHash)}::text[],
        ${chunk.map((l) => l.dealId)}::text[]) with ordinality as l(xid, position, entry_hash, deal_id, n)
      on conflict do nothing`.execute(db);
  }
  const nodes = tree.levels.flatMap((hashes, l) => hashes.map((hash, index) => ({ level: l + 1, index, hash })));
  for (let from = 0; from < nodes.length; from += TREE_CHUNK) {
    const chunk = nodes.slice(from, from + TREE_CHUNK);
    await sql`insert into audit_tree_nodes (checkpoint, level, index, hash)
      select ${checkpoint}::bigint, n.level, n.index, n.hash
      from unnest(${chunk.map((n) => n.level)}::smallint[], ${chunk.map((n) => n.index)}::bigint[], ${chunk.map((n) => n.hash)}::text[]) as n(level, index, hash)
      on conflict do nothing`.execute(db);
  }
}

/** Checkpoints numbered in (after, upTo] that have no tree yet (sealed before migration 0018, or by an older instance). */
export async function listCheckpointsWithoutTree(db: Kysely<DB>, after: number, upTo: number, limit: number): Promise<Checkpoint[]> {
  const { rows } = await sql<CheckpointRow>`select ${checkpointColumns} from audit_checkpoints c
    where number > ${after} and number <= ${upTo} and not exists (select 1 from audit_tree_leaves l where l.checkpoint = c.number)
    order by number limit ${limit}`.execute(db);
  return rows.map(toCheckpoint);
}

export async function hasCheckpointTree(db: Kysely<DB>, checkpoint: number): Promise<boolean> {
  const { rows } = await sql`select 1 from audit_tree_leaves where checkpoint = ${checkpoint} limit 1`.execute(db);
  return rows.length > 0;
}

export interface TreeLeaf {
  checkpoint: number;
  index: number;
  position: string;
  entryHash: string;
}

/** The leaves of these entries (by position), where a tree holds them. */
export async function findLeaves(db: Kysely<DB>, positions: string[]): Promise<Map<string, TreeLeaf>> {
  if (positions.length === 0) return new Map();
  const { rows } = await sql<{ checkpoint: string; index: string; position: string; entry_hash: string }>`
    select checkpoint, index, position, entry_hash from audit_tree_leaves where position = any(${positions}::bigint[])`.execute(db);
  return new Map(
    rows.map((r) => [String(r.position), { checkpoint: Number(r.checkpoint), index: Number(r.index), position: String(r.position), entryHash: r.entry_hash }]),
  );
}

/**
 * Stored tree hashes at these coordinates, keyed `checkpoint/level/index`; level 0 is a leaf
 * (SHA-256(0x00 ‖ entry hash), computed by the caller from the entry hash returned here).
 */
export async function findTreeHashes(
  db: Kysely<DB>,
  wanted: { checkpoint: number; level: number; index: number }[],
): Promise<Map<string, { level: number; hash: string }>> {
  if (wanted.length === 0) return new Map();
  const { rows } = await sql<{ checkpoint: string; level: number; index: string; hash: string }>`
    with w as (select * from unnest(${wanted.map((w) => w.checkpoint)}::bigint[], ${wanted.map((w) => w.level)}::smallint[], ${wanted.map((w) => w.index)}::bigint[])
      as w(checkpoint, level, index))
    select l.checkpoint, 0::int as level, l.index, l.entry_hash as hash from w join audit_tree_leaves l on l.checkpoint = w.checkpoint and l.index = w.index where w.level = 0
    union all
    select n.checkpoint, n.level::int, n.index, n.hash from w join audit_tree_nodes n on n.checkpoint = w.checkpoint and n.level = w.level and n.index = w.index where w.level > 0`.execute(
    db,
  );
  return new Map(rows.map((r) => [`${r.checkpoint}/${r.level}/${r.index}`, { level: Number(r.level), hash: r.hash }]));
}

/** A checkpoint's stored tree, in order (for the full verify to compare with the one it recomputes). */
export async function readCheckpointTree(
  db: Kysely<DB>,
  checkpoint: number,
): Promise<{ leaves: { position: string; entryHash: string }[]; nodes: { level: number; index: number; hash: string }[] }> {
  const leaves = await sql<{
    position: string;
    entry_hash: string;
  }>`select position, entry_hash from audit_tree_leaves where checkpoint = ${checkpoint} order by index`.execute(db);
  const nodes = await sql<{
    level: number;
    index: string;
    hash: string;
  }>`select level, index, hash from audit_tree_nodes where checkpoint = ${checkpoint} order by level, index`.execute(db);
  return {
    leaves: leaves.rows.map((r) => ({ position: String(r.position), entryHash: r.entry_hash })),
    nodes: nodes.rows.map((r) => ({ level: Number(r.level), index: Number(r.index), hash: r.hash })),
  };
}

/** A leaf of the deal whose entry is no longer in the log (deleted behind the service's back), if any. */
export async function findDealLeafWithoutEntry(db: Kysely<DB>, dealId: string): Promise<TreeLeaf | undefined> {
  const { rows } = await sql<{ checkpoint: string; index: string; position: string; entry_hash: string }>`
    select l.checkpoint, l.index, l.position, l.entry_hash from audit_tree_leaves l
    where l.deal_id = ${dealId} and not exists (select 1 from audit_log a where a.xid = l.xid and a.position = l.position)
    order by l.position limit 1`.execute(db);
  const r = rows[0];
  return r && { checkpoint: Number(r.checkpoint), index: Number(r.index), position: String(r.position), entryHash: r.entry_hash };
}
