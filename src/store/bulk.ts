// Bulk writes for seeding: investors, journeys and events (each its own revision 1, as a move
// leaves it: migration 0042), many rows per statement. Used by `dealflow seed --investors N --deals M` (benchmark data sets, which have no
// feed entries); the demo deal's journeys, like every move of the service, go through applyMoves.
import { type Kysely, sql } from 'kysely';
import { type HashedEntry, moveEntry } from '../domain/audit.ts';
import type { Investor } from '../domain/investor.ts';
import { listJourneysEvents, type StoredEvent } from './events.ts';
import { investorColumns } from './investors.ts';
import { noteJourneyVersionsChanged } from './journey-versions.ts';
import type { DB } from './schema.ts';

/** Rows per INSERT: well under PostgreSQL's 65,535 bind parameters at 9 columns. */
const BATCH = 1000;

async function inBatches<T>(rows: T[], write: (batch: T[]) => Promise<unknown>) {
  for (let i = 0; i < rows.length; i += BATCH) await write(rows.slice(i, i + BATCH));
}

export async function insertInvestors(db: Kysely<DB>, investors: Investor[], now: Date): Promise<void> {
  await inBatches(investors, (batch) =>
    db
      .insertInto('investors')
      .values(batch.map((investor) => ({ id: investor.id, ...investorColumns(investor, now), created_at: now })))
      .onConflict((oc) => oc.column('id').doNothing())
      .execute(),
  );
}

export interface SeededJourney {
  dealId: string;
  investorUserId: string;
  paymentReference: string;
  /** Oldest first, seq 1…n, each starting where the previous ended. */
  events: StoredEvent[];
}

/** The audit chain of a seeded journey: one `journey.moved` entry per event, as a move writes it. */
function seededChain(j: SeededJourney): HashedEntry[] {
  const chain: HashedEntry[] = [];
  for (const e of j.events) {
    chain.push(moveEntry(chain.at(-1) ?? { seq: 0, hash: null }, e, { principal: e.createdByUserId, tokenId: null }));
  }
  return chain;
}

/** Writes journeys (current step, event count, reference, captured data, visited steps), their events, revision 1 of each, and their audit chains. */
export async function insertJourneys(db: Kysely<DB>, journeys: SeededJourney[]): Promise<void> {
  const withEvents = journeys.filter((j) => j.events.length > 0);
  const chains = new Map(withEvents.map((j) => [j, seededChain(j)]));
  for (const j of withEvents) noteJourneyVersionsChanged(j.dealId);
  await inBatches(withEvents, (batch) =>
    db
      .insertInto('journeys')
      .values(
        batch.map((j) => ({
          deal_id: j.dealId,
          investor_user_id: j.investorUserId,
          current_step_id: j.events.at(-1)!.toStepId,
          event_count: j.events.length,
          payment_reference: j.paymentReference,
          started_at: new Date(j.events[0]!.createdAt),
          moved_at: new Date(j.events.at(-1)!.createdAt),
          audit_seq: String(j.events.length),
          audit_head: chains.get(j)!.at(-1)!.hash,
          captured: JSON.stringify(Object.assign({}, ...j.events.map((e) => e.data))),
          visited: [...new Set(j.events.map((e) => e.toStepId))],
          // Seeded journeys are on the version in force (as a move would record).
          workflow_version: sql<number>`(select version from workflows where deal_id = ${j.dealId})`,
        })),
      )
      .execute(),
  );
  const events = withEvents.flatMap((j) => j.events);
  await inBatches(events, (batch) =>
    db
      .insertInto('workflow_events')
      .values(
        batch.map((e) => ({
          id: e.id,
          deal_id: e.dealId,
          investor_user_id: e.investorUserId,
          seq: e.seq,
          from_step_id: e.fromStepId,
          to_step_id: e.toStepId,
          data: JSON.stringify(e.data),
          created_by_user_id: e.createdByUserId,
          created_at: new Date(e.createdAt),
          workflow_version: sql<number>`(select version from workflows where deal_id = ${e.dealId})`,
        })),
      )
      .execute(),
  );
  // No revision rows: an event never edited is its own revision 1 (migration 0042), as a move writes it.
  await insertAuditEntries(db, [...chains.values()].flat());
}

/** Writes hashed audit entries as they are (a seeded journey's chain), in batches. */
async function insertAuditEntries(db: Kysely<DB>, entries: HashedEntry[]): Promise<void> {
  await inBatches(entries, (batch) =>
    sql`insert into audit_log (chain, seq, xid, type, principal, token_id, at, change, deal_id, prev_hash, hash)
      select e.chain, e.seq, pg_current_xact_id(), e.type, e.principal, e.token_id, e.at, e.change, e.deal_id, e.prev_hash, e.hash
      from jsonb_to_recordset(${JSON.stringify(
        batch.map((a) => ({
          chain: a.chain,
          seq: a.seq,
          type: a.type,
          principal: a.principal,
          token_id: a.tokenId,
          at: a.at,
          change: a.change,
          deal_id: a.change.dealId,
          prev_hash: a.prevHash,
          hash: a.hash,
        })),
      )}::jsonb) as e(chain text, seq bigint, type text, principal text, token_id text, at timestamptz, change jsonb, deal_id text, prev_hash text, hash text)
      order by e.chain, e.seq`.execute(db),
  );
}

/**
 * The audit chains of a deal's journeys whose events were written without them (`bench --scale`
 * generates events in SQL): the same entries `insertJourneys` writes for `dealflow seed --investors`, one
 * `journey.moved` per event, and each journey's head, read and written `journeysPerBatch` journeys
 * at a time. The funnel then takes them in from the log as it takes any move.
 */
export async function auditSeededJourneys(db: Kysely<DB>, dealId: string, journeysPerBatch = 2000): Promise<number> {
  let after = '';
  let written = 0;
  for (;;) {
    const investors = (
      await db
        .selectFrom('journeys')
        .select('investor_user_id')
        .where('deal_id', '=', dealId)
        .where('event_count', '>', 0)
        .where('audit_seq', '=', '0')
        .where('investor_user_id', '>', after)
        .orderBy('investor_user_id')
        .limit(journeysPerBatch)
        .execute()
    ).map((r) => r.investor_user_id);
    if (investors.length === 0) return written;
    const byInvestor = await listJourneysEvents(db, dealId, investors);
    const chains = investors.map((id) => ({ id, chain: seededChain({ dealId, investorUserId: id, paymentReference: '', events: byInvestor.get(id)! }) }));
    await insertAuditEntries(
      db,
      chains.flatMap((c) => c.chain),
    );
    noteJourneyVersionsChanged(dealId);
    await sql`update journeys j set audit_seq = h.seq, audit_head = h.hash
      from unnest(${chains.map((c) => c.id)}::text[], ${chains.map((c) => c.chain.length)}::bigint[], ${chains.map((c) => c.chain.at(-1)?.hash ?? null)}::text[]) as h(investor_user_id, seq, hash)
      where j.deal_id = ${dealId} and j.investor_user_id = h.investor_user_id`.execute(db);
    written += chains.reduce((n, c) => n + c.chain.length, 0);
    after = investors.at(-1)!;
  }
}
