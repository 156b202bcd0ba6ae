// The live stream's reader: for each open stream, what it follows after the stream's cursor, in
// feed order: a deal's feed entries, or the edit-request entries of every deal (the console's
// Inbox). The same reads as the pull feed (store/outbox.ts), so a stream never misses an entry nor
// repeats one, and a reconnect that names its last entry goes on from there.
//
// When to read: a transaction that writes a deal's entries NOTIFYs the deal's id
// (store/outbox.ts `FEED_CHANNEL`), delivered on commit to every instance LISTENing on the
// database, so a move made through another instance reaches this one's streams at once; it wakes
// the streams of that deal and every edit-request stream (the payload does not say the entries'
// types). An entry joins the feed only once every older transaction has ended (the feed's
// horizon), so a read just after a notification can come too early: each stream also reads on a
// short poll, which is what covers a notification lost while the LISTEN connection was down, and
// PGlite without one.
import { AppError, notFound } from '../domain/errors.ts';
import { findDeal } from '../store/deals.ts';
import type { CrossDealFeed } from '../domain/feed-entry.ts';
import { FEED_CHANNEL, latestCrossDealSequence, listCrossDealFeed, listDealFeed, listDealFeedLatest, type OutboxEntry } from '../store/outbox.ts';
import type { Deps } from './deps.ts';
import { unknownCursor } from './list-deal-events.ts';

export type Listen = (channel: string, onMessage: (payload: string) => void) => Promise<() => Promise<void>>;

export interface LiveFeedOptions {
  /** LISTEN on the database (Database.listen); without it the streams rely on their poll. */
  listen?: Listen;
  /** How often each open stream reads the feed besides notifications. */
  pollMs?: number;
  /** Entries read per statement; a stream writes one page and waits for the socket to drain before the next. */
  pageSize?: number;
}

/** What a stream follows: one deal's feed, or a feed of every deal for staff's Inbox (its edit requests, its approvals). */
export type LiveFollow = { kind: 'deal'; dealId: string } | { kind: CrossDealFeed };

const crossDealFeeds: CrossDealFeed[] = ['edit-requests', 'approvals'];

const keyOf = (follow: LiveFollow) => (follow.kind === 'deal' ? `deal:${follow.dealId}` : follow.kind);

/** One page of what `follow` follows after the entry numbered `after`. */
const pageOf = (deps: Pick<Deps, 'db'>, follow: LiveFollow, after: number, limit: number) =>
  follow.kind === 'deal' ? listDealFeed(deps.db, follow.dealId, after, limit) : listCrossDealFeed(deps.db, follow.kind, after, limit);

/** One open stream, as the feed sees it: where it is, and how it takes entries. */
export interface LiveSubscriber {
  follow: LiveFollow;
  /** Called with each page of entries, in feed order; resolves when the client has taken them (the socket drained). */
  deliver: (entries: OutboxEntry[]) => Promise<void>;
  /** Called when the stream must end (shutdown, or a read failed). */
  end: (reason: 'closing' | 'failed') => void;
}

export interface LiveFeed {
  /** The cursor a stream starts from: `after` when it names an entry of what it follows, else the newest entry (nothing is replayed). */
  startCursor(follow: LiveFollow, after: number | undefined): Promise<number>;
  subscribe(subscriber: LiveSubscriber, cursor: number): () => void;
  /** Open streams, for tests and metrics. */
  readonly size: number;
  close(): Promise<void>;
}

interface Stream {
  subscriber: LiveSubscriber;
  cursor: number;
  reading: boolean;
  again: boolean;
  closed: boolean;
  /** Notifications received, and reads left before the poll takes over (see `wake`). */
  wakes: number;
  retries: number;
  waking: boolean;
}

export async function createLiveFeed(deps: Pick<Deps, 'db'>, options: LiveFeedOptions = {}): Promise<LiveFeed> {
  const pollMs = options.pollMs ?? 500;
  const pageSize = options.pageSize ?? 100;
  const byKey = new Map<string, Set<Stream>>();
  let closed = false;

  /** Reads and delivers what follows the stream's cursor; resolves with how many entries it delivered. */
  const read = async (stream: Stream): Promise<number> => {
    if (stream.reading) {
      stream.again = true;
      return 0;
    }
    stream.reading = true;
    let delivered = 0;
    try {
      do {
        stream.again = false;
        for (;;) {
          if (stream.closed) return delivered;
          const page = await pageOf(deps, stream.subscriber.follow, stream.cursor, pageSize);
          if (!page.found || page.entries.length === 0) break;
          await stream.subscriber.deliver(page.entries);
          stream.cursor = page.entries.at(-1)!.sequence;
          delivered += page.entries.length;
          if (!page.hasMore) break;
        }
      } while (stream.again && !stream.closed);
    } catch {
      if (!stream.closed) stream.subscriber.end('failed');
    } finally {
      stream.reading = false;
    }
    return delivered;
  };

  // A notification arrives on commit, but the entry joins the feed only once every older
  // transaction (of the whole database) has ended: a read that finds nothing tries again every
  // 100 ms for a few seconds, and the poll goes on after that. One such run per stream, however
  // many notifications come (a bulk move sends many; every deal's wake the edit-request streams):
  // each one restarts its count, and a read that delivered goes on only if another came meanwhile.
  const wake = (stream: Stream) => {
    stream.wakes += 1;
    stream.retries = 30;
    if (stream.waking) return;
    stream.waking = true;
    const attempt = () => {
      const wakes = stream.wakes;
      void read(stream).then((n) => {
        if (!stream.closed && (n === 0 || stream.wakes !== wakes) && stream.retries-- > 0) setTimeout(attempt, 100).unref();
        else stream.waking = false;
      });
    };
    attempt();
  };
  const notified = (dealId: string) => {
    for (const key of [keyOf({ kind: 'deal', dealId }), ...crossDealFeeds]) for (const stream of byKey.get(key) ?? []) wake(stream);
  };

  const unlisten = options.listen ? await options.listen(FEED_CHANNEL, notified) : undefined;
  const timer = setInterval(() => {
    for (const streams of byKey.values()) for (const stream of streams) void read(stream);
  }, pollMs);
  timer.unref();

  return {
    async startCursor(follow, after) {
      if (follow.kind === 'deal' && !(await findDeal(deps.db, follow.dealId))) throw notFound('deal', follow.dealId);
      if (after !== undefined && after !== 0) {
        const page = await pageOf(deps, follow, after, 1);
        if (!page.found) throw unknownCursor(after, 'reconnect without Last-Event-ID to follow from now');
        return after;
      }
      if (after === 0) return 0;
      if (follow.kind !== 'deal') return latestCrossDealSequence(deps.db, follow.kind);
      const latest = await listDealFeedLatest(deps.db, follow.dealId, 0, 1);
      return latest.found ? (latest.entries[0]?.sequence ?? 0) : 0;
    },
    subscribe(subscriber, cursor) {
      if (closed) throw new AppError('database-unavailable', 'The service is shutting down');
      const stream: Stream = { subscriber, cursor, reading: false, again: false, closed: false, wakes: 0, retries: 0, waking: false };
      const key = keyOf(subscriber.follow);
      let streams = byKey.get(key);
      if (!streams) {
        streams = new Set();
        byKey.set(key, streams);
      }
      streams.add(stream);
      void read(stream);
      return () => {
        stream.closed = true;
        const set = byKey.get(key);
        set?.delete(stream);
        if (set?.size === 0) byKey.delete(key);
      };
    },
    get size() {
      let n = 0;
      for (const set of byKey.values()) n += set.size;
      return n;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      for (const set of byKey.values())
        for (const stream of set) {
          stream.closed = true;
          stream.subscriber.end('closing');
        }
      byKey.clear();
      await unlisten?.();
    },
  };
}
