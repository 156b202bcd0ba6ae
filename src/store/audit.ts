// The audit log (migration 0014): appending entries in the writer's transaction, the chain heads,
// and the reads of entries that `verify` and the audit routes need. Checkpoints and their Merkle
// trees are in audit-checkpoints.ts.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type AuditEntry, type AuditEntryType, GENESIS, type HashedEntry, chainEntry } from '../domain/audit.ts';
import { noteJourneyVersionsChanged } from './journey-versions.ts';
import type { DB } from './schema.ts';

/** A chain's last entry: seq 0 and hash null before the first. */
export interface ChainHead {
  seq: number;
  hash: string | null;
}

/**
 * The CTE `audit` inserting one hashed entry, for a statement that also writes the change. `xid` is
 * its feed key (a journey's `feed_xid`, so a journey's entries sort in the order of its moves).
 */
export function auditInsertCte(entry: HashedEntry, dealId: string | null, xid: RawBuilder<unknown>, from: RawBuilder<unknown> = sql``) {
  return sql`audit as (
      insert into audit_log (chain, seq, xid, type, principal, token_id, at, change, deal_id, prev_hash, hash)
      select ${entry.chain}::text, ${entry.seq}::bigint, ${xid}, ${entry.type}::text, ${entry.principal}::text, ${entry.tokenId}::text,
        ${new Date(entry.at)}::timestamptz, ${JSON.stringify(entry.change)}::jsonb, ${dealId}::text, ${entry.prevHash}::text, ${entry.hash}::text
      ${from}
      returning seq
    )`;
}

/**
 * The CTE `audit` inserting several hashed entries (each with its deal), in the given order, for a
 * statement that writes many changes at once (a batch of reconciliation decisions). As
 * auditInsertCte, with one row per entry from arrays, so the statement's text is the same for any
 * number of entries.
 */
export function auditInsertManyCte(entries: readonly { entry: HashedEntry; dealId: string | null }[], xid: RawBuilder<unknown>) {
  const col = <T>(f: (e: { entry: HashedEntry; dealId: string | null }) => T) => entries.map(f);
  return sql`audit as (
      insert into audit_log (chain, seq, xid, type, principal, token_id, at, change, deal_id, prev_hash, hash)
      select a.chain, a.seq, ${xid}, a.type, a.principal, a.token_id, a.at, a.change::jsonb, a.deal_id, a.prev_hash, a.hash
      from unnest(${col((e) => e.entry.chain)}::text[], ${col((e) => String(e.entry.seq))}::bigint[], ${col((e) => e.entry.type)}::text[],
        ${col((e) => e.entry.principal)}::text[], ${col((e) => e.entry.tokenId)}::text[], ${col((e) => e.entry.at)}::timestamptz[],
        ${col((e) => JSON.stringify(e.entry.change))}::text[], ${col((e) => e.dealId)}::text[], ${col((e) => e.entry.prevHash)}::text[],
        ${col((e) => e.entry.hash)}::text[]) with ordinality as a(chain, seq, type, principal, token_id, at, change, deal_id, prev_hash, hash, n)
      order by a.n
      returning seq
    )`;
}

export const toHead = (seq: number | string | null | undefined, hash: string | null | undefined): ChainHead => ({ seq: Number(seq ?? 0), hash: hash ?? null });

/**
 * Appends an entry to a journey's chain on a path that has not read the head yet (an edit-request
 * decision, a booking): locks the journey row (the caller may hold it already), then writes the
 * entry and the new head in one statement. Undefined when the journey does not exist.
 */
export async function appendToJourneyChain(
  db: Kysely<DB>,
  key: { dealId: string; investorUserId: string },
  entry: Omit<AuditEntry, 'seq'>,
): Promise<HashedEntry | undefined> {
  const { rows } = await sql<{ audit_seq: string; audit_head: string | null }>`
    select audit_seq, audit_head from journeys where deal_id = ${key.dealId} and investor_user_id = ${key.investorUserId} for update`.execute(db);
  if (!rows[0]) return undefined;
  const hashed = chainEntry(toHead(rows[0].audit_seq, rows[0].audit_head), entry);
  noteJourneyVersionsChanged(key.dealId);
  await sql`with moved as (
      update journeys set audit_seq = ${hashed.seq}, audit_head = ${hashed.hash}, feed_xid = greatest(pg_current_xact_id(), feed_xid)
      where deal_id = ${key.dealId} and investor_user_id = ${key.investorUserId}
      returning feed_xid
    ), ${auditInsertCte(hashed, key.dealId, sql`(select feed_xid from moved)`)}
    select 1`.execute(db);
  return hashed;
}

/** Appends to a deal's workflow chain; the caller holds the workflow row (FOR UPDATE). */
export async function appendToWorkflowChain(db: Kysely<DB>, dealId: string, entry: Omit<AuditEntry, 'seq'>): Promise<HashedEntry> {
  const { rows } = await sql<{ audit_seq: string; audit_head: string | null }>`
    select audit_seq, audit_head from workflows where deal_id = ${dealId} for update`.execute(db);
  if (!rows[0]) throw new Error(`no workflow row for deal ${dealId} to chain the audit entry to`);
  const hashed = chainEntry(toHead(rows[0].audit_seq, rows[0].audit_head), entry);
  await sql`with head as (
      update workflows set audit_seq = ${hashed.seq}, audit_head = ${hashed.hash} where deal_id = ${dealId}
    ), ${auditInsertCte(hashed, dealId, sql`pg_current_xact_id()`)}
    select 1`.execute(db);
  return hashed;
}

/** Appends to a chain whose head lives in audit_heads (token changes, erasures): rare writes. */
export async function appendToChain(db: Kysely<DB>, entry: Omit<AuditEntry, 'seq'>, dealId: string | null = null): Promise<HashedEntry> {
  await sql`insert into audit_heads (chain, seq, hash) values (${entry.chain}, 0, ${GENESIS}) on conflict (chain) do nothing`.execute(db);
  const { rows } = await sql<{ seq: string; hash: string }>`select seq, hash from audit_heads where chain = ${entry.chain} for update`.execute(db);
  const head = toHead(rows[0]!.seq, rows[0]!.seq === '0' ? null : rows[0]!.hash);
  const hashed = chainEntry(head, entry);
  await sql`with head as (
      update audit_heads set seq = ${hashed.seq}, hash = ${hashed.hash} where chain = ${entry.chain}
    ), ${auditInsertCte(hashed, dealId, sql`pg_current_xact_id()`)}
    select 1`.execute(db);
  return hashed;
}

export interface StoredAuditEntry extends HashedEntry {
  dealId: string | null;
  xid: string;
  position: string;
}

type EntryRow = {
  chain: string;
  seq: string;
  xid: string;
  position: string;
  type: string;
  principal: string;
  token_id: string | null;
  at: Date | string;
  change: Record<string, unknown>;
  deal_id: string | null;
  prev_hash: string;
  hash: string;
};
const entryColumns = sql`chain, seq, xid::text as xid, position, type, principal, token_id, at, change, deal_id, prev_hash, hash`;
/**
 * Checkpoint order, on the table's xid8 column: a bare `xid` in ORDER BY names the text the select
 * list makes of it, and text puts 10093 before 9908.
 */
export const entryOrder = sql`audit_log.xid, audit_log.position`;

const toEntry = (r: EntryRow): StoredAuditEntry => ({
  chain: r.chain,
  seq: Number(r.seq),
  type: r.type as AuditEntryType,
  principal: r.principal,
  tokenId: r.token_id,
  at: new Date(r.at).toISOString(),
  change: r.change,
  prevHash: r.prev_hash,
  hash: r.hash,
  dealId: r.deal_id,
  xid: r.xid,
  position: String(r.position),
});

/** Entries in (chain, seq) order after the given key, optionally only a deal's. */
export async function pageEntriesByChain(
  db: Kysely<DB>,
  after: { chain: string; seq: number } | null,
  limit: number,
  dealId?: string,
): Promise<StoredAuditEntry[]> {
  const { rows } = await sql<EntryRow>`select ${entryColumns} from audit_log
    where ${after ? sql`(chain, seq) > (${after.chain}, ${after.seq}::bigint)` : sql`true`}
      and ${dealId === undefined ? sql`true` : sql`(deal_id = ${dealId} or chain = ${`workflow:${dealId}`})`}
    order by chain, seq limit ${limit}`.execute(db);
  return rows.map(toEntry);
}

export interface FeedKey {
  xid: string;
  position: string;
}

/** Entries in checkpoint order ((xid, position)) strictly after `after` and at most `upTo` (or below the horizon). */
export async function pageEntriesInOrder(db: Kysely<DB>, after: FeedKey | null, upTo: FeedKey | 'horizon', limit: number): Promise<StoredAuditEntry[]> {
  const lower = after ? sql`(xid, position) > (${after.xid}::xid8, ${after.position}::bigint)` : sql`true`;
  const upper = upTo === 'horizon' ? sql`xid < pg_snapshot_xmin(pg_current_snapshot())` : sql`(xid, position) <= (${upTo.xid}::xid8, ${upTo.position}::bigint)`;
  const { rows } = await sql<EntryRow>`select ${entryColumns} from audit_log where ${lower} and ${upper}
    order by ${entryOrder} limit ${limit}`.execute(db);
  return rows.map(toEntry);
}

/** The heads recorded on journeys, workflows and audit_heads (what the chains must end with). */
export async function listHeads(db: Kysely<DB>, dealId?: string): Promise<Map<string, ChainHead>> {
  const deal = (column: RawBuilder<unknown>) => (dealId === undefined ? sql`true` : sql`${column} = ${dealId}`);
  const { rows } = await sql<{ chain: string; seq: string; hash: string | null }>`
    select 'journey:' || deal_id || '/' || investor_user_id as chain, audit_seq as seq, audit_head as hash from journeys where audit_seq > 0 and ${deal(sql`deal_id`)}
    union all select 'workflow:' || deal_id, audit_seq, audit_head from workflows where audit_seq > 0 and ${deal(sql`deal_id`)}
    union all select chain, seq, hash from audit_heads where seq > 0 and ${dealId === undefined ? sql`true` : sql`false`}`.execute(db);
  return new Map(rows.map((r) => [r.chain, toHead(r.seq, r.hash)]));
}

/** A page of a deal's entries in checkpoint order, and how many there are. */
export async function pageDealEntries(db: Kysely<DB>, dealId: string, offset: number, limit: number): Promise<{ total: number; entries: StoredAuditEntry[] }> {
  const { rows } = await sql<EntryRow & { total: string }>`select ${entryColumns}, count(*) over () as total from audit_log
    where deal_id = ${dealId} order by ${entryOrder} offset ${offset} limit ${limit}`.execute(db);
  if (rows.length > 0) return { total: Number(rows[0]!.total), entries: rows.map(toEntry) };
  const { rows: counted } = await sql<{ n: string }>`select count(*) as n from audit_log where deal_id = ${dealId}`.execute(db);
  return { total: Number(counted[0]!.n), entries: [] };
}

/** How many entries sort after `after` (all when null): those no checkpoint covers yet. */
export async function countEntriesAfter(db: Kysely<DB>, after: FeedKey | null): Promise<number> {
  const lower = after ? sql`(xid, position) > (${after.xid}::xid8, ${after.position}::bigint)` : sql`true`;
  const { rows } = await sql<{ n: string }>`select count(*) as n from audit_log where ${lower}`.execute(db);
  return Number(rows[0]!.n);
}

/**
 * The first entry whose recorded change disagrees with the event history it describes: a move
 * whose event (step, seq) or revision 1 differs, an edit whose revision (the n-th edit of an event
 * is its revision n + 1) differs, or an event whose current data is not its newest revision.
 * Revisions are read through `all_event_revisions` (migration 0042): an event never edited and
 * stored without its revision 1 row is its own revision 1, so its data is checked against the move's
 * entry directly. Undefined when they all agree.
 */
export async function findHistoryMismatch(db: Kysely<DB>, dealId?: string): Promise<{ chain: string; seq: number; detail: string } | undefined> {
  const deal = (column: RawBuilder<unknown>) => (dealId === undefined ? sql`true` : sql`${column} = ${dealId}`);
  const { rows } = await sql<{ chain: string; seq: string; detail: string }>`
    with moved as (
      select a.chain, a.seq, 'its event or the event''s first revision no longer says what the move recorded' as detail
      from audit_log a
      left join workflow_events e on e.id::text = a.change->>'eventId'
      left join all_event_revisions r on r.event_id = e.id and r.revision = 1
      where a.type = 'journey.moved' and ${deal(sql`a.deal_id`)}
        and (e.id is null or e.to_step_id is distinct from a.change->>'toStepId' or e.seq::text is distinct from a.change->>'seq'
          or r.data is distinct from a.change->'data')
    ), edits as (
      select a.chain, a.seq, a.change, row_number() over (partition by a.change->>'eventId' order by a.xid, a.position) + 1 as revision
      from audit_log a where a.type = 'event.edited' and ${deal(sql`a.deal_id`)}
    ), edited as (
      select ed.chain, ed.seq, 'the event''s revision ' || ed.revision || ' no longer says what the edit recorded' as detail
      from edits ed left join event_revisions r on r.event_id::text = ed.change->>'eventId' and r.revision = ed.revision
      where r.data is distinct from ed.change->'newData'
    ), cached as (
      select a.chain, a.seq, 'the event''s current data is not its newest revision' as detail
      from audit_log a join workflow_events e on e.id::text = a.change->>'eventId'
      where a.type = 'journey.moved' and ${deal(sql`a.deal_id`)}
        and e.data is distinct from (select r.data from all_event_revisions r where r.event_id = e.id order by r.revision desc limit 1)
    )
    -- The cache follows the revisions: a revision changed is reported as such before the cache that no longer matches it.
    select chain, seq, detail from (select *, 0 as rank from moved union all select chain, seq, detail, 0 from edited union all select *, 1 from cached) m
    order by rank, chain, seq limit 1`.execute(db);
  return rows[0] && { chain: rows[0].chain, seq: Number(rows[0].seq), detail: rows[0].detail };
}

/** A page of the deal's entries in checkpoint order after `after` (for `verify --deal`). */
export async function pageDealEntriesInOrder(db: Kysely<DB>, dealId: string, after: FeedKey | null, limit: number): Promise<StoredAuditEntry[]> {
  const lower = after ? sql`(xid, position) > (${after.xid}::xid8, ${after.position}::bigint)` : sql`true`;
  const { rows } = await sql<EntryRow>`select ${entryColumns} from audit_log where deal_id = ${dealId} and ${lower}
    order by ${entryOrder} limit ${limit}`.execute(db);
  return rows.map(toEntry);
}
