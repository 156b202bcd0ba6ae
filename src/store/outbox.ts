// The transactional outbox. appendOutbox writes a domain event and one delivery per matching step
// trigger in the CALLER's transaction, so the event exists exactly when its cause committed.
//
// No counter row: an entry's number comes from one sequence (`outbox_position`), which no writer
// locks, and the entry records the id of the transaction that wrote it (`xid`). The feed is read in
// (xid, sequence) order, and only below the oldest transaction still running: every entry there is
// final (its writer has ended), and every entry yet to commit sorts after all of them. So a reader
// never waits, writers never wait for each other, and a cursor never misses an entry nor sees one
// appear behind it. docs/reference/webhooks-and-feed.md ("The pull feed") gives the argument in full.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { OutboxEventType } from '../domain/outbox-event.ts';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

/** The stream of entries without a deal (subscriptions). */
export const PLATFORM_STREAM = 'platform';
export const dealStream = (dealId: string) => `deal:${dealId}`;

export interface OutboxEntryInput {
  id: string;
  type: OutboxEventType;
  occurredAt: Date;
  /** Null for events that belong to no deal; they go to the `platform` stream. */
  dealId: string | null;
  /**
   * The investor whose journey in `dealId` the event is about: the entry then sorts after every
   * earlier entry of that journey (see `journeys.feed_xid`, migration 0009).
   */
  investorUserId?: string;
  /** Steps the event concerns: triggers of these steps (of this deal) that list `type` get a delivery. */
  stepIds: readonly string[];
  data: Record<string, unknown>;
}

/**
 * The channel on which a transaction that writes a deal's feed entries NOTIFYs the deal's id
 * (delivered on commit, to every instance LISTENing on the database): the live stream
 * (operations/live-feed.ts) reads the feed at once instead of at its next poll.
 */
export const FEED_CHANNEL = 'dealflow_feed';

/** A select-list item that NOTIFYs FEED_CHANNEL with `dealId` (nothing when it is null). */
export const feedNotify = (dealId: RawBuilder<unknown>) =>
  sql`(select count(pg_notify(${FEED_CHANNEL}, d)) from (select ${dealId}::text as d) n where d is not null)::int as notified`;

import type { CrossDealFeed, OutboxEntry } from '../domain/feed-entry.ts';

export type { OutboxEntry };

/**
 * The CTEs `entry` (the outbox row) and `deliveries` (one per distinct URL among the matching
 * triggers: the same URL on two steps is one receiver and gets the entry once), for a statement
 * that has computed the entry's feed key as `feedXid`. Moves put them in their one write statement.
 * The key is computed in a subquery kept apart (`offset 0`) so it is known before the sequence
 * number is drawn: a journey's next entry draws its number only once it holds the journey row.
 */
export function outboxCtes(
  entry: OutboxEntryInput,
  feedXid: RawBuilder<unknown>,
  /** The payload as SQL (built from rows the statement writes), and what must exist for the entry to be written. */
  from: { payload: RawBuilder<unknown>; source: RawBuilder<unknown> } = { payload: sql`${JSON.stringify(entry.data)}::jsonb`, source: sql`` },
) {
  const stream = entry.dealId === null ? PLATFORM_STREAM : dealStream(entry.dealId);
  return sql`entry as (
      insert into outbox (id, stream, xid, sequence, type, occurred_at, deal_id, payload)
      select ${entry.id}::uuid, ${stream}::text, k.xid, nextval('outbox_position'), ${entry.type}::text,
        ${entry.occurredAt}::timestamptz, ${entry.dealId}::text, k.payload
      from (select ${feedXid} as xid, ${from.payload} as payload ${from.source} offset 0) k
      returning id, deal_id
    ), deliveries as (
      insert into webhook_deliveries (id, outbox_id, deal_id, event_type, url, secret_id, created_at, next_attempt_at)
      select distinct on (t.url) gen_random_uuid(), entry.id, t.deal_id, ${entry.type}::text, t.url, t.secret_id,
        ${entry.occurredAt}::timestamptz, ${entry.occurredAt}::timestamptz
      from entry join step_triggers t on t.deal_id = entry.deal_id
      where t.step_id = any(${[...entry.stepIds]}::text[]) and ${entry.type}::text = any(t.events)
      order by t.url, t.position
      on conflict (outbox_id, url) do nothing
      returning 1
    )`;
}

/**
 * The CTEs `entries` and `entry_deliveries`: several entries about no journey (`investorUserId`
 * unset), numbered in the given order, each with its deliveries as outboxCtes writes them. For a
 * statement that writes a batch of changes and their entries at once; its text is the same for any
 * number of entries.
 */
export function outboxManyCtes(entries: readonly OutboxEntryInput[], xid: RawBuilder<unknown>) {
  if (entries.some((e) => e.investorUserId !== undefined)) throw new Error('outboxManyCtes writes entries about no journey only');
  const col = <T>(f: (e: OutboxEntryInput) => T) => entries.map(f);
  return sql`entries as (
      insert into outbox (id, stream, xid, sequence, type, occurred_at, deal_id, payload)
      select e.id, e.stream, ${xid}, nextval('outbox_position'), e.type, e.occurred_at, e.deal_id, e.payload::jsonb
      from unnest(${col((e) => e.id)}::uuid[], ${col((e) => (e.dealId === null ? PLATFORM_STREAM : dealStream(e.dealId)))}::text[],
        ${col((e) => e.type)}::text[], ${col((e) => e.occurredAt)}::timestamptz[], ${col((e) => e.dealId)}::text[],
        ${col((e) => JSON.stringify(e.data))}::text[]) with ordinality as e(id, stream, type, occurred_at, deal_id, payload, n)
      order by e.n
      returning id, deal_id, type, occurred_at
    ), entry_steps as (
      select s.id, s.step_id from unnest(${col((e) => e.id)}::uuid[], ${col((e) => JSON.stringify(e.stepIds))}::text[]) as x(id, steps)
        cross join lateral (select x.id, jsonb_array_elements_text(x.steps::jsonb) as step_id) s
    ), entry_deliveries as (
      insert into webhook_deliveries (id, outbox_id, deal_id, event_type, url, secret_id, created_at, next_attempt_at)
      select distinct on (entries.id, t.url) gen_random_uuid(), entries.id, t.deal_id, entries.type, t.url, t.secret_id,
        entries.occurred_at, entries.occurred_at
      from entries join entry_steps s on s.id = entries.id
        join step_triggers t on t.deal_id = entries.deal_id and t.step_id = s.step_id and entries.type = any(t.events)
      order by entries.id, t.url, t.position
      on conflict (outbox_id, url) do nothing
      returning 1
    )`;
}

/** Appends entries about no journey, and their deliveries, in one statement (the caller's transaction). */
export async function appendOutboxMany(db: Kysely<DB>, entries: readonly OutboxEntryInput[]): Promise<void> {
  if (!db.isTransaction) throw new Error("appendOutboxMany must run inside the caller's transaction");
  if (entries.length === 0) return;
  await sql`${prepared('outbox-append-many')}
    with ${outboxManyCtes(entries, sql`pg_current_xact_id()`)}
    select (select count(*) from entry_deliveries)::int as deliveries, ${feedNotify(sql`(select min(deal_id) from entries)`)}`.execute(db);
}

/**
 * Appends an entry and its deliveries in one statement. `db` must be the caller's open
 * transaction: this never opens one, and refuses to run outside one, because an entry written
 * apart from its cause could survive the cause's rollback (or be lost after its commit). An entry
 * about a journey takes the journey row's lock until commit (only that journey's writers wait).
 */
export async function appendOutbox(db: Kysely<DB>, entry: OutboxEntryInput): Promise<{ deliveries: number }> {
  if (!db.isTransaction) throw new Error("appendOutbox must run inside the caller's transaction");
  const journey = entry.dealId !== null && entry.investorUserId !== undefined;
  const { rows } = await sql<{ deliveries: number }>`${prepared('outbox-append')}
    with journey as (
      update journeys set feed_xid = greatest(pg_current_xact_id(), feed_xid)
      where ${journey} and deal_id = ${entry.dealId ?? ''} and investor_user_id = ${entry.investorUserId ?? ''}
      returning feed_xid
    ), ${outboxCtes(entry, sql`coalesce((select feed_xid from journey), pg_current_xact_id())`)}
    select (select count(*) from deliveries)::int as deliveries, (select count(*) from entry)::int as entries,
      ${feedNotify(sql`(select deal_id from entry)`)}`.execute(db);
  return { deliveries: rows[0]!.deliveries };
}

type FeedRow = { id: string; type: string; occurred_at: Date; deal_id: string | null; sequence: string; payload: unknown };

export const toOutboxEntry = (row: FeedRow): OutboxEntry => ({
  id: row.id,
  type: row.type,
  timestamp: row.occurred_at.toISOString(),
  dealId: row.deal_id,
  sequence: Number(row.sequence),
  data: row.payload,
});

export type FeedPage = { found: true; entries: OutboxEntry[]; hasMore: boolean } | { found: false };

/** A deal's entries after the entry numbered `after` (0: from the start), in feed order. */
export const listDealFeed = (db: Kysely<DB>, dealId: string, after: number, limit: number) => listStreamFeed(db, dealStream(dealId), after, limit);

/** The entries without a deal (subscriptions) after the entry numbered `after`, in feed order. */
export const listPlatformFeed = (db: Kysely<DB>, after: number, limit: number) => listStreamFeed(db, PLATFORM_STREAM, after, limit);

/**
 * The feed's horizon on an entry aliased `o`: written by a transaction older than every one still
 * running, so every entry that sorts before it has committed (docs/reference/webhooks-and-feed.md).
 */
const below = sql`o.xid < pg_snapshot_xmin(pg_current_snapshot())`;

/**
 * One page of a stream, in one statement that takes no lock. `after` must be the number of an entry
 * of the stream that the feed has shown (else `found: false`): the page continues after that
 * entry's place in (xid, sequence) order. Reading one more than `limit` tells if more follow.
 */
async function listStreamFeed(db: Kysely<DB>, stream: string, after: number, limit: number): Promise<FeedPage> {
  type Row = { found: boolean } & { [K in keyof FeedRow]: FeedRow[K] | null };
  const columns = sql`e.id, e.type, e.occurred_at, e.deal_id, e.sequence, e.payload`;
  const { rows } =
    after === 0
      ? await sql<Row>`${prepared('feed-first')}
          select true as found, ${columns} from (select 1) one left join lateral (
            select o.id, o.type, o.occurred_at, o.deal_id, o.sequence, o.payload from outbox o
            where o.stream = ${stream} and ${below}
            order by o.xid, o.sequence limit ${limit + 1}) e on true`.execute(db)
      : await sql<Row>`${prepared('feed-after')}
          select (c.sequence is not null) as found, ${columns} from (select 1) one
          left join (select o.xid, o.sequence from outbox o where o.stream = ${stream} and o.sequence = ${after} and ${below}) c on true
          left join lateral (
            select o.id, o.type, o.occurred_at, o.deal_id, o.sequence, o.payload from outbox o
            where o.stream = ${stream} and (o.xid, o.sequence) > (c.xid, c.sequence) and ${below}
            order by o.xid, o.sequence limit ${limit + 1}) e on true`.execute(db);
  if (!rows[0]!.found) return { found: false };
  const entries = rows.filter((r) => r.id !== null).map((r) => toOutboxEntry(r as FeedRow));
  return { found: true, entries: entries.slice(0, limit), hasMore: entries.length > limit };
}

/**
 * The entries of each cross-deal feed, on an outbox row aliased `o`: the predicates of the partial
 * indexes of migrations 0028 (edit requests) and 0048 (approvals), word for word, so the planner
 * uses them.
 */
const entriesOf = (feed: CrossDealFeed) =>
  feed === 'approvals'
    ? sql`o.type in ('approval.proposed', 'approval.decided')`
    : sql`o.type in ('edit-request.created', 'edit-request.approved', 'edit-request.rejected')`;

/**
 * Every deal's entries of `feed` after the entry numbered `after` (0: from the start), in feed
 * order: the same (xid, sequence) order and horizon as a deal's feed, so a cursor never misses one
 * nor sees one appear behind it. `after` must be the number of an entry of that feed the feed has
 * shown (else `found: false`).
 */
export async function listCrossDealFeed(db: Kysely<DB>, feed: CrossDealFeed, after: number, limit: number): Promise<FeedPage> {
  type Row = { found: boolean } & { [K in keyof FeedRow]: FeedRow[K] | null };
  const columns = sql`e.id, e.type, e.occurred_at, e.deal_id, e.sequence, e.payload`;
  const entry = entriesOf(feed);
  const { rows } =
    after === 0
      ? await sql<Row>`${prepared(`${feed}-feed-first`)}
          select true as found, ${columns} from (select 1) one left join lateral (
            select o.id, o.type, o.occurred_at, o.deal_id, o.sequence, o.payload from outbox o
            where ${entry} and ${below}
            order by o.xid, o.sequence limit ${limit + 1}) e on true`.execute(db)
      : await sql<Row>`${prepared(`${feed}-feed-after`)}
          select (c.sequence is not null) as found, ${columns} from (select 1) one
          left join (select o.xid, o.sequence from outbox o where ${entry} and o.sequence = ${after} and ${below}) c on true
          left join lateral (
            select o.id, o.type, o.occurred_at, o.deal_id, o.sequence, o.payload from outbox o
            where ${entry} and (o.xid, o.sequence) > (c.xid, c.sequence) and ${below}
            order by o.xid, o.sequence limit ${limit + 1}) e on true`.execute(db);
  if (!rows[0]!.found) return { found: false };
  const entries = rows.filter((r) => r.id !== null).map((r) => toOutboxEntry(r as FeedRow));
  return { found: true, entries: entries.slice(0, limit), hasMore: entries.length > limit };
}

/** The number of the newest entry of `feed` (any deal) that the feed shows, 0 when there is none. */
export async function latestCrossDealSequence(db: Kysely<DB>, feed: CrossDealFeed): Promise<number> {
  const { rows } = await sql<{ sequence: string }>`select o.sequence from outbox o
    where ${entriesOf(feed)} and ${below} order by o.xid desc, o.sequence desc limit 1`.execute(db);
  return rows[0] ? Number(rows[0].sequence) : 0;
}

export type LatestFeedPage = { found: true; entries: (OutboxEntry & { investorName: string | null })[]; hasMore: boolean } | { found: false };

/**
 * A deal's entries newest first: the `limit` last ones, or those before the entry numbered
 * `before` (0: from the newest). The same (xid, sequence) order and horizon as the feed, read
 * backwards on its index, so a page never reads more than `limit + 1` entries however long the
 * feed is, and an entry that commits later appears above the first page, never between pages. Each
 * entry carries the full name of the investor it is about (null when it names none).
 */
export async function listDealFeedLatest(db: Kysely<DB>, dealId: string, before: number, limit: number): Promise<LatestFeedPage> {
  type Row = { found: boolean } & { [K in keyof FeedRow]: FeedRow[K] | null } & { investor_name: string | null };
  const stream = dealStream(dealId);
  const columns = sql`e.id, e.type, e.occurred_at, e.deal_id, e.sequence, e.payload, e.investor_name`;
  const entries = (bound: RawBuilder<unknown>) => sql`left join lateral (
      select o.id, o.type, o.occurred_at, o.deal_id, o.sequence, o.payload, i.full_name as investor_name from outbox o
      left join investors i on i.id = o.payload->>'investorUserId'
      where o.stream = ${stream} and ${below} ${bound}
      order by o.xid desc, o.sequence desc limit ${limit + 1}) e on true`;
  const { rows } =
    before === 0
      ? await sql<Row>`select true as found, ${columns} from (select 1) one ${entries(sql``)}`.execute(db)
      : await sql<Row>`select (c.sequence is not null) as found, ${columns} from (select 1) one
          left join (select o.xid, o.sequence from outbox o where o.stream = ${stream} and o.sequence = ${before} and ${below}) c on true
          ${entries(sql`and (o.xid, o.sequence) < (c.xid, c.sequence)`)}`.execute(db);
  if (!rows[0]!.found) return { found: false };
  const found = rows.filter((r) => r.id !== null).map((r) => ({ ...toOutboxEntry(r as FeedRow), investorName: r.investor_name }));
  return { found: true, entries: found.slice(0, limit), hasMore: found.length > limit };
}
