// The rows of the CSV exports, read in keyset pages (1,000 rows a query, each page starting after
// the last key of the one before), so an export of any size holds a few pages in memory and never
// keeps a transaction or a cursor open while the client reads slowly. Orders match the JSON lists.
import { type Kysely, sql } from 'kysely';
import type { Investor } from '../domain/investor.ts';
import { type FeedPage, listDealFeed, type OutboxEntry } from './outbox.ts';
import { toInvestor } from './investors.ts';
import { likeContaining } from './journeys.ts';
import type { DB } from './schema.ts';
import type { SubscriptionFilter } from './subscriptions.ts';

export const EXPORT_PAGE = 1000;

/**
 * Pages through `fetch` until a short page; `after` is the last row of the previous page. The next
 * page is asked for as soon as a page arrives, so the database reads it while this one is written
 * out: two pages in memory at most, and the export takes the longer of the two, not their sum.
 * Yields whole pages (never an empty one): the CSV is written a page at a time, one string and one
 * socket write per page, where a row at a time cost a write and a stream step per row.
 */
async function* keyset<R>(fetch: (after: R | undefined) => Promise<R[]>, pageSize = EXPORT_PAGE): AsyncGenerator<R[]> {
  let next: Promise<R[]> | undefined = fetch(undefined);
  try {
    while (next) {
      const page: R[] = await next;
      next = page.length < pageSize ? undefined : fetch(page.at(-1));
      // A failed prefetch is thrown when awaited; until then it must not count as unhandled.
      next?.catch(() => {});
      if (page.length > 0) yield page;
    }
  } finally {
    // The client went away: let an outstanding read finish quietly.
    next?.catch(() => {});
  }
}

/** How `ranges` reads one sort order: K is a row's position in it. */
export interface RangeReader<K, R> {
  /** The key of every `pageSize`-th row, in order: where each full page ends. */
  bounds(): Promise<K[]>;
  /** At most `pageSize` rows after `after`, up to and including `upTo` (to the end when undefined), in order. */
  read(after: K | undefined, upTo: K | undefined): Promise<R[]>;
  key(row: R): K;
  same(a: K, b: K): boolean;
}

/**
 * Reads the pages of a sort order several at once. The pages are ranges of the order between
 * bounds found first, in one pass over the order's index (a key per `pageSize` rows), so they
 * cover the order without gaps or overlaps and every row is read once, in order; up to `inFlight`
 * pages are read side by side, on as many connections (PGlite runs them one at a time), while the
 * page before them is written out. A range that gained rows since the bounds were found is read on,
 * a page at a time, up to its bound.
 */
export async function* ranges<K, R>(reader: RangeReader<K, R>, pageSize = EXPORT_PAGE, inFlight = 2): AsyncGenerator<R[]> {
  const readRange = async (after: K | undefined, upTo: K | undefined) => {
    const rows: R[] = [];
    for (let from = after; ; ) {
      const page = await reader.read(from, upTo);
      rows.push(...page);
      if (page.length < pageSize) return rows;
      from = reader.key(page.at(-1)!);
      if (upTo !== undefined && reader.same(from, upTo)) return rows;
    }
  };
  const bounds = await reader.bounds();
  // Range i runs from bound i − 1 (the start when i = 0) to bound i (the end after the last bound).
  const reads: Promise<R[]>[] = [];
  let next = 0;
  const refill = () => {
    for (; next <= bounds.length && reads.length < inFlight; next++) {
      const read = readRange(bounds[next - 1], bounds[next]);
      // A failed read is thrown when awaited in turn; until then it must not count as unhandled.
      read.catch(() => {});
      reads.push(read);
    }
  };
  try {
    refill();
    while (reads.length > 0) {
      const page = await reads.shift()!;
      refill();
      if (page.length > 0) yield page;
    }
  } finally {
    // The client went away: let outstanding reads finish quietly.
    for (const read of reads) read.catch(() => {});
  }
}

/**
 * An investor's captured fields as cells, from the journey row's captured data (a JSON object, its
 * events' data merged, later events winning): text as it is, anything else as its JSON; null stays
 * empty.
 */
function capturedText(captured: string | null): Record<string, string> {
  const cells: Record<string, string> = {};
  for (const [key, value] of Object.entries(JSON.parse(captured ?? '{}') as Record<string, unknown>)) {
    if (value !== null) cells[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return cells;
}

export interface JourneyExportRow {
  investorUserId: string;
  fullName: string;
  email: string | null;
  currentStepId: string;
  movedAt: Date;
  paymentReference: string;
  /** Every field captured by the investor's events, later events winning. */
  captured: Record<string, string>;
}

/**
 * One row per investor with a journey in the deal, by full name then id (all-investor-workflows),
 * filtered as the JSON list: `query`, a case-insensitive part of the full name or e-mail, is looked
 * up in deal_investor_search (its trigram index holds the deal) by each page's read and bound.
 * Pages are ranges of the (deal, full name, id) index read two at a time; each row's captured fields
 * are kept on its journey row (migration 0021), written out as text and parsed here.
 */
export function exportJourneys(db: Kysely<DB>, dealId: string, query?: string): AsyncGenerator<JourneyExportRow[]> {
  type Row = {
    investor_user_id: string;
    full_name: string;
    email: string | null;
    current_step_id: string;
    moved_at: Date;
    payment_reference: string;
    captured: string | null;
  };
  const search = query
    ? sql`and j.investor_user_id in (select s.investor_user_id from deal_investor_search s
          where s.deal_id = ${dealId} and s.search ilike ${likeContaining(query)}
            and (s.full_name ilike ${likeContaining(query)} or s.email ilike ${likeContaining(query)}))`
    : sql``;
  type Key = { fullName: string; investorUserId: string };
  const journeys = (after: Key | undefined, upTo: Key | undefined) => sql`
      where j.deal_id = ${dealId} and j.event_count > 0 ${search}
        ${after ? sql`and (j.investor_full_name, j.investor_user_id) > (${after.fullName}, ${after.investorUserId})` : sql``}
        ${upTo ? sql`and (j.investor_full_name, j.investor_user_id) <= (${upTo.fullName}, ${upTo.investorUserId})` : sql``}
      order by j.investor_full_name, j.investor_user_id`;
  // The limit also keeps the plan a walk of the index: the planner cannot estimate a range of row
  // values, and without a limit it hashed the whole directory to read 1,000 rows.
  const readJourneys = async (after: Key | undefined, upTo: Key | undefined): Promise<JourneyExportRow[]> => {
    const { rows } = await sql<Row>`
      select j.investor_user_id, j.investor_full_name as full_name, i.email, j.current_step_id, j.moved_at, j.payment_reference,
        j.captured::text as captured
      from journeys j join investors i on i.id = j.investor_user_id ${journeys(after, upTo)}
      limit ${EXPORT_PAGE}`.execute(db);
    return rows.map((r) => ({
      investorUserId: r.investor_user_id,
      fullName: r.full_name,
      email: r.email,
      currentStepId: r.current_step_id,
      movedAt: r.moved_at,
      paymentReference: r.payment_reference,
      captured: capturedText(r.captured),
    }));
  };
  return ranges<Key, JourneyExportRow>({
    // One pass over the deal's (full name, id) index, whatever plan the statistics of a table that
    // has just grown lead to; a bound found per page from the page before did as many passes as
    // pages when the planner, misled, sorted the rest of the deal for each.
    async bounds() {
      const { rows } = await sql<{ full_name: string; investor_user_id: string }>`
        select full_name, investor_user_id from (
          select j.investor_full_name as full_name, j.investor_user_id,
            row_number() over (order by j.investor_full_name, j.investor_user_id) as n
          from journeys j where j.deal_id = ${dealId} and j.event_count > 0 ${search}) k
        where n % ${EXPORT_PAGE} = 0
        order by n`.execute(db);
      return rows.map((r) => ({ fullName: r.full_name, investorUserId: r.investor_user_id }));
    },
    read: readJourneys,
    key: (row) => row,
    same: (a, b) => a.fullName === b.fullName && a.investorUserId === b.investorUserId,
  });
}

/**
 * Rows of the payment-references export a query: byte order of the id is no index's order, so each
 * page is a top-N sort of the deal's journeys. Its rows are two short strings; 10,000 of them is
 * still a small, fixed amount of memory, and a tenth of the sorts.
 */
const REFERENCES_PAGE = 10 * EXPORT_PAGE;

/** The deal's payment references by investor id in byte order (all-payment-refernces). */
export function exportPaymentReferences(db: Kysely<DB>, dealId: string) {
  return keyset(async (after: { investorUserId: string; paymentReference: string } | undefined) => {
    const rows = await db
      .selectFrom('journeys')
      .select(['investor_user_id', 'payment_reference'])
      .where('deal_id', '=', dealId)
      .where('event_count', '>', 0)
      .$if(after !== undefined, (qb) => qb.where(sql<boolean>`investor_user_id collate "C" > ${after!.investorUserId}`))
      .orderBy(sql`investor_user_id collate "C"`)
      .limit(REFERENCES_PAGE)
      .execute();
    return rows.map((r) => ({ investorUserId: r.investor_user_id, paymentReference: r.payment_reference }));
  }, REFERENCES_PAGE);
}

export interface ActiveInvestorExportRow {
  investor: Investor;
  fullName: string;
  dealsCompletedCount: string;
  dealsInProgressCount: string;
  dealsTotal: string;
}

/**
 * Active investors with a journey, by full name then id, with their deal counts (all-transactions),
 * filtered as the JSON list by `nameOrEmail`. Reads the counts kept by the journey triggers
 * (investor_deal_counts, migration 0011): a page is one range of its (full_name, id) index where
 * active, and the page's directory rows are read by primary key; counting every investor's
 * journeys again for each page made a 100,000-row export take nearly a minute.
 */
export function exportActiveInvestors(db: Kysely<DB>, nameOrEmail?: string): AsyncGenerator<ActiveInvestorExportRow[]> {
  type Row = {
    id: string;
    remote_id: string;
    data_source: string;
    team_user_id: string | null;
    kyc_check_level: number | null;
    contact: unknown;
    full_name: string;
    completed: number;
    in_progress: number;
    deals_total: number;
  };
  const search = nameOrEmail
    ? sql`and c.search ilike ${likeContaining(nameOrEmail)} and (c.full_name ilike ${likeContaining(nameOrEmail)} or c.email ilike ${likeContaining(nameOrEmail)})`
    : sql``;
  return keyset(async (after: ActiveInvestorExportRow | undefined) => {
    const { rows } = await sql<Row>`
      select i.id, i.remote_id, i.data_source, i.team_user_id, i.kyc_check_level, i.contact, c.full_name,
        c.completed, c.in_progress, c.total as deals_total
      from (select investor_user_id, full_name, completed, in_progress, total from investor_deal_counts c
            where c.active ${search}
              ${after ? sql`and (c.full_name, c.investor_user_id) > (${after.fullName}, ${after.investor.id})` : sql``}
            order by c.full_name, c.investor_user_id
            limit ${EXPORT_PAGE}) c
      join investors i on i.id = c.investor_user_id
      order by c.full_name, c.investor_user_id`.execute(db);
    return rows.map((r) => ({
      investor: toInvestor(r as Parameters<typeof toInvestor>[0]),
      fullName: r.full_name,
      dealsCompletedCount: String(r.completed),
      dealsInProgressCount: String(r.in_progress),
      dealsTotal: String(r.deals_total),
    }));
  });
}

export interface SubscriptionExportRow {
  id: string;
  asset_id: string;
  investor_id: string;
  units: string;
  price_per_unit: string;
  total: string;
  fee: string;
  currency: string;
  funding_source: string;
  invoice_date: string;
  settlement_date: string;
  source: string | null;
  source_id: string | null;
  description: string | null;
  created_by_user_id: string;
  created_at: Date;
}

/** Subscriptions oldest first, filtered as the JSON list; amounts exactly as stored (decimal text). */
export function exportSubscriptions(db: Kysely<DB>, filter: SubscriptionFilter): AsyncGenerator<SubscriptionExportRow[]> {
  return keyset(async (after: SubscriptionExportRow | undefined) => {
    const { rows } = await sql<SubscriptionExportRow>`
      select s.id, s.asset_id::text as asset_id, s.investor_id, s.units::text as units, s.price_per_unit::text as price_per_unit,
        s.total::text as total, s.fee::text as fee, a.currency, s.funding_source, s.invoice_date::text as invoice_date,
        s.settlement_date::text as settlement_date, s.source, s.source_id, s.description, s.created_by_user_id, s.created_at
      from subscriptions s join assets a on a.id = s.asset_id
      where true
        ${filter.investorId !== undefined ? sql`and s.investor_id = ${filter.investorId}` : sql``}
        ${filter.assetId !== undefined ? sql`and s.asset_id = ${String(filter.assetId)}` : sql``}
        ${filter.source !== undefined ? sql`and s.source = ${filter.source}` : sql``}
        ${filter.sourceId !== undefined ? sql`and s.source_id = ${filter.sourceId}` : sql``}
        ${after ? sql`and (s.created_at, s.id) > (${after.created_at}, ${after.id}::uuid)` : sql``}
      order by s.created_at, s.id
      limit ${EXPORT_PAGE}`.execute(db);
    return rows;
  });
}

/**
 * A deal's feed after the entry numbered `after`, in feed order, in pages read through the
 * feed's own query (store/outbox.ts), so the export keeps the feed's promises. Undefined when
 * `after` names no entry of this feed (checked before the first row is sent).
 */
export async function exportDealFeed(db: Kysely<DB>, dealId: string, after: number): Promise<AsyncGenerator<OutboxEntry[]> | undefined> {
  const first = await listDealFeed(db, dealId, after, EXPORT_PAGE);
  if (!first.found) return undefined;
  return (async function* () {
    let page: FeedPage = first;
    while (page.found) {
      if (page.entries.length > 0) yield page.entries;
      if (!page.hasMore) return;
      page = await listDealFeed(db, dealId, page.entries.at(-1)!.sequence, EXPORT_PAGE);
    }
  })();
}
