// The live stream's reader: for each open stream, the deal's feed entries after the stream's
// cursor, in feed order (the same reads as the pull feed, store/outbox.ts, so a stream never misses
// an entry nor repeats one, and a reconnect that names its last entry goes on from there).
//
// When to read: a transaction that writes a deal's entries NOTIFYs the deal's id
// (store/outbox.ts `FEED_CHANNEL`), delivered on commit to every instance LISTENing on the
// database, so a move made through another instance reaches this one's streams at once. An entry
// joins the feed only once every older transaction has ended (the feed's horizon), so a read just
// after a notification can come too early: each stream also reads on a short poll, which is what
// covers a notification lost while the LISTEN connection was down, and PGlite without one.
import { AppError, notFound } from '../domain/errors.ts';
import { findDeal } from '../store/deals.ts';
import { FEED_CHANNEL, listDealFeed, listDealFeedLatest, type OutboxEntry } from '../store/outbox.ts';
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

/** One open stream, as the feed sees it: where it is, and how it takes entries. */
export interface LiveSubscriber {
  dealId: string;
  /** Called with each page of entries, in feed order; resolves when the client has taken them (the socket drained). */
  deliver: (entries: OutboxEntry[]) => Promise<void>;
  /** Called when the stream must end (shutdown, or a read failed). */
  end: (reason: 'closing' | 'failed') => void;
}

export interface LiveFeed {
  /** The cursor a stream starts from: `after` when it names an entry of the deal's feed, else the newest entry (nothing is replayed). */
  startCursor(dealId: string, after: number | undefined): Promise<number>;
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
}

export async function createLiveFeed(deps: Pick<Deps, 'db'>, options: LiveFeedOptions = {}): Promise<LiveFeed> {
  const pollMs = options.pollMs ?? 500;
  const pageSize = options.pageSize ?? 100;
  const byDeal = new Map<string, Set<Stream>>();
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
          const page = await listDealFeed(deps.db, stream.subscriber.dealId, stream.cursor, pageSize);
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
  // 100 ms for a few seconds, and the poll goes on after that.
  const notified = (dealId: string) => {
    for (const stream of byDeal.get(dealId) ?? []) {
      const attempt = (left: number) =>
        void read(stream).then((n) => {
          if (n === 0 && left > 0 && !stream.closed) setTimeout(() => attempt(left - 1), 100).unref();
        });
      attempt(30);
    }
  };

  const unlisten = options.listen ? await options.listen(FEED_CHANNEL, notified) : undefined;
  const timer = setInterval(() => {
    for (const streams of byDeal.values()) for (const stream of streams) void read(stream);
  }, pollMs);
  timer.unref();

  return {
    async startCursor(dealId, after) {
      if (!(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
      if (after !== undefined && after !== 0) {
        const page = await listDealFeed(deps.db, dealId, after, 1);
        if (!page.found) throw unknownCursor(after, 'reconnect without Last-Event-ID to follow from now');
        return after;
      }
      if (after === 0) return 0;
      const latest = await listDealFeedLatest(deps.db, dealId, 0, 1);
      return latest.found ? (latest.entries[0]?.sequence ?? 0) : 0;
    },
    subscribe(subscriber, cursor) {
      if (closed) throw new AppError('database-unavailable', 'The service is shutting down');
      const stream: Stream = { subscriber, cursor, reading: false, again: false, closed: false };
      let streams = byDeal.get(subscriber.dealId);
      if (!streams) byDeal.set(subscriber.dealId, (streams = new Set()));
      streams.add(stream);
      void read(stream);
      return () => {
        stream.closed = true;
        const set = byDeal.get(subscriber.dealId);
        set?.delete(stream);
        if (set?.size === 0) byDeal.delete(subscriber.dealId);
      };
    },
    get size() {
      let n = 0;
      for (const set of byDeal.values()) n += set.size;
      return n;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      for (const set of byDeal.values()) for (const stream of set) {
        stream.closed = true;
        stream.subscriber.end('closing');
      }
      byDeal.clear();
      await unlisten?.();
    },
  };
}
