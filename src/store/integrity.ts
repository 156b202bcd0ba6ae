// What `dealflow verify` checks besides the audit chains, after a restore above all: how many rows
// the main tables hold (to compare with what the source had), and that the feed can go on where it
// stopped. The feed orders entries by (xid, sequence) (store/outbox.ts): a database whose
// transaction counter or outbox sequence went back (a logical dump restored into a new cluster, a
// sequence reset) would give new entries places before the ones consumers have read, and they would
// never see them. A restored file copy (PGlite's dump, pg_basebackup) keeps both.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';
import { serverSql } from './audit-checkpoints.ts';

export interface Seal {
  number: number;
  instanceId: string | null;
  system: string;
  timeline: number;
  server: string;
}

export interface IntegrityFacts {
  counts: {
    deals: number;
    investors: number;
    journeys: number;
    events: number;
    outbox: number;
    subscriptions: number;
    auditEntries: number;
    paymentLines: number;
  };
  /** The sum of the journeys' kept event counts (must equal counts.events). */
  journeyEventCount: number;
  /** The largest outbox position written, and the next one the sequence will hand out. */
  outboxMaxPosition: number;
  outboxNextPosition: number;
  /** Whether every outbox entry was written by a transaction older than the database's next one. */
  outboxXidsBehindNext: boolean;
  /** Outbox positions used twice (the unique constraint forbids it; a damaged index would not). */
  duplicatePositions: number;
  /**
   * What the data is and where it runs (migration 0030): the instance id drawn when the database
   * was made, the cluster's system identifier recorded then and the one of the server now (a
   * logical copy into another cluster differs; a physical copy does not), and the server's timeline
   * (a promotion or a point-in-time restore moves it on).
   */
  identity: { instanceId: string; recordedSystem: string; system: string; timeline: number; server: string } | undefined;
  /** Where the newest audit checkpoint was sealed (undefined before the first, or one sealed before migration 0030). */
  lastSeal: Seal | undefined;
  /** The newest checkpoints (at most five) sealed on another server, system or timeline than the one before them, with that one. */
  moves: { from: Seal; to: Seal }[];
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
  instance_id: string | null;
  recorded_system: string | null;
  system_now: string;
  timeline: number;
  server: string;
  last_seal: string | null;
  moves: string | null;
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
      (select count(*) from (select sequence from outbox group by sequence having count(*) > 1) d)::text as duplicate_positions,
      (select instance_id::text from database_identity) as instance_id,
      (select system_identifier from database_identity) as recorded_system,
      (select system_identifier::text from pg_control_system()) as system_now,
      (select timeline_id from pg_control_checkpoint()) as timeline,
      ${serverSql} as server,
      (select row_to_json(c) from (select number, instance_id, system_identifier, timeline, server from audit_checkpoints
        where system_identifier is not null order by number desc limit 1) c)::text as last_seal,
      (select json_agg(m order by (m->'to'->>'number')::bigint)::text from (
        select json_build_object('from', json_build_object('number', p_number, 'instance_id', p_instance, 'system_identifier', p_system, 'timeline', p_timeline, 'server', p_server),
          'to', json_build_object('number', number, 'instance_id', instance_id, 'system_identifier', system_identifier, 'timeline', timeline, 'server', server)) as m
        from (select c.*, lag(number) over w as p_number, lag(instance_id) over w as p_instance, lag(system_identifier) over w as p_system,
            lag(timeline) over w as p_timeline, lag(server) over w as p_server
          from audit_checkpoints c where system_identifier is not null window w as (order by number)) h
        where p_number is not null and (p_system, p_timeline, p_server) is distinct from (system_identifier, timeline, server)
        order by number desc limit 5) t) as moves
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
    identity:
      r.instance_id === null || r.recorded_system === null
        ? undefined
        : { instanceId: r.instance_id, recordedSystem: r.recorded_system, system: r.system_now, timeline: Number(r.timeline), server: r.server },
    lastSeal: r.last_seal === null ? undefined : sealOf(JSON.parse(r.last_seal)),
    moves: ((r.moves === null ? [] : JSON.parse(r.moves)) as { from: SealRow; to: SealRow }[]).map((m) => ({ from: sealOf(m.from), to: sealOf(m.to) })),
  };
}

type SealRow = { number: string | number; instance_id: string | null; system_identifier: string; timeline: number; server: string };

function sealOf(c: SealRow): Seal {
  return { number: Number(c.number), instanceId: c.instance_id, system: c.system_identifier, timeline: Number(c.timeline), server: c.server };
}

/** Makes this server's system identifier the one the database records; true when it changed. */
export async function adoptSystemIdentifier(db: Kysely<DB>): Promise<boolean> {
  const { rows } = await sql<{ one: boolean }>`update database_identity set system_identifier = s.system_identifier::text
    from pg_control_system() s where database_identity.system_identifier <> s.system_identifier::text returning one`.execute(db);
  return rows.length > 0;
}
