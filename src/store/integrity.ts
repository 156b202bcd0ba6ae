// What `dealflow verify` checks besides the audit chains, after a restore above all: how many rows
// the main tables hold (to compare with what the source had), and that the feed can go on where it
// stopped. The feed orders entries by (xid, sequence) (store/outbox.ts): a database whose
// transaction counter or outbox sequence went back (a logical dump restored into a new cluster, a
// sequence reset) would give new entries places before the ones consumers have read, and they would
// never see them. A restored file copy (PGlite's dump, pg_basebackup) keeps both.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

export interface IntegrityFacts {
  counts: { deals: number; investors: number; journeys: number; events: number; outbox: number; subscriptions: number; auditEntries: number; paymentLines: number };
  /** The sum of the journeys' kept event counts (must equal counts.events). */
  journeyEventCount: number;
  /** The largest outbox position written, and the next one the sequence will hand out. */
  outboxMaxPosition: number;
  outboxNextPosition: number;
  /** Whether every outbox entry was written by a transaction older than the database's next one. */
  outboxXidsBehindNext: boolean;
  /** Outbox positions used twice (the unique constraint forbids it; a damaged index would not). */
  duplicatePositions: number;
}

interface Row {
  deals: string;
  investors: string;
  journeys: string;
  events: string;
  outbox: string;
  subscriptions: string;
  audit_entries: string;
  payment_lines: string;
  journey_events: string | null;
  outbox_max: string | null;
  outbox_last: string;
  outbox_called: boolean;
  xids_behind: boolean;
  duplicate_positions: string;
}

export async function readIntegrityFacts(db: Kysely<DB>): Promise<IntegrityFacts> {
  const { rows } = await sql<Row>`
    select
      (select count(*) from deals)::text as deals,
      (select count(*) from investors)::text as investors,
      (select count(*) from journeys)::text as journeys,
      (select count(*) from workflow_events)::text as events,
      (select count(*) from outbox)::text as outbox,
      (select count(*) from subscriptions)::text as subscriptions,
      (select count(*) from audit_log)::text as audit_entries,
      (select count(*) from payment_lines)::text as payment_lines,
      (select sum(event_count) from journeys)::text as journey_events,
      (select max(sequence) from outbox)::text as outbox_max,
      (select last_value::text from outbox_position) as outbox_last,
      (select is_called from outbox_position) as outbox_called,
      coalesce((select max(xid) < pg_snapshot_xmax(pg_current_snapshot()) from outbox), true) as xids_behind,
      (select count(*) from (select sequence from outbox group by sequence having count(*) > 1) d)::text as duplicate_positions
  `.execute(db);
  const r = rows[0]!;
  const last = Number(r.outbox_last);
  return {
    counts: {
      deals: Number(r.deals),
      investors: Number(r.investors),
      journeys: Number(r.journeys),
      events: Number(r.events),
      outbox: Number(r.outbox),
      subscriptions: Number(r.subscriptions),
      auditEntries: Number(r.audit_entries),
      paymentLines: Number(r.payment_lines),
    },
    journeyEventCount: Number(r.journey_events ?? 0),
    outboxMaxPosition: Number(r.outbox_max ?? 0),
    outboxNextPosition: r.outbox_called ? last + 1 : last,
    outboxXidsBehindNext: r.xids_behind,
    duplicatePositions: Number(r.duplicate_positions),
  };
}
