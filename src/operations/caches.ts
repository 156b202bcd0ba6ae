// In-process caches of what nearly every request reads and rarely changes: API-key lookups and
// workflow structures. Each entry lives at most a short TTL. Changes are pushed:
//
// - The operation that changes a cached thing (revoking a token, re-applying a workflow) sends
//   `NOTIFY dealflow_invalidations` in its transaction; PostgreSQL delivers it on commit to every
//   instance LISTENing on the same database (`connectCaches`), which drops the entry. Once committed
//   the operation also drops it from every cache of its own process at once. So revocation takes
//   effect immediately in the process that revoked and within milliseconds in the others.
// - A notification can be missed while an instance's LISTEN connection is down: the cache is then
//   switched off (every read goes to the database) until the connection is back, and the TTL bounds
//   whatever slips through anyway.
// - A read that raced with an invalidation (it read the database before the change committed and
//   would store the old value after the invalidation arrived) is not stored: every invalidation
//   bumps a generation, and `set` only stores when the generation is the one the read started in.
// On PGlite one process holds the database, so the in-process clearing is all there is to it.
//
// The journey versions a read has seen (JourneyVersions, below) follow the same rules on another
// channel: the feed's, which the journeys' triggers notify for every change of a version.
import { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';
import type { Database } from '../store/database.ts';
import { notify } from '../store/notify.ts';
import { FEED_CHANNEL } from '../store/outbox.ts';
import type { Db } from '../store/schema.ts';

export const INVALIDATIONS_CHANNEL = 'dealflow_invalidations';

export type Invalidation = { kind: 'token'; tokenId: string } | { kind: 'workflow'; dealId: string };

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/** A small map with a TTL, a size bound (oldest out first) and the generation guard above. */
export class TtlCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  #generation = 0;
  #enabled = true;

  constructor(ttlMs: number, maxEntries: number) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  /** Taken before reading the database; hand it back to `set`. */
  get generation(): number {
    return this.#generation;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, now: number, generation: number): void {
    if (!this.#enabled || generation !== this.#generation) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: now + this.#ttlMs });
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  deleteWhere(match: (key: string, value: V) => boolean): void {
    this.#generation++;
    for (const [key, entry] of this.#entries) if (match(key, entry.value)) this.#entries.delete(key);
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }

  /** Off: nothing is stored (reads all go to the database) until switched on again. */
  setEnabled(enabled: boolean): void {
    if (enabled === this.#enabled) return;
    this.#enabled = enabled;
    this.clear();
  }
}

/** The kept journey versions' bound: journeys (a key and a short version string each, some 100 bytes). */
export const JOURNEY_VERSIONS = 100_000;
/** Deals whose last drop is remembered (the guard of reads in flight); past it, everything is dropped. */
const DROPPED_DEALS = 10_000;

/**
 * The journey versions (journeys.audit_seq, a journey's ETag) this instance has read, by deal
 * and investor, so that a request naming the current one is answered 304 without a database read
 * (operations/journeys.ts). A version is kept until its deal is dropped: by the NOTIFY of any
 * transaction that changes a version of the deal, from any instance (the journeys' triggers,
 * migration 0058; `connectCaches`), and, in this process, once the transaction that changed it has
 * ended, before its answer is sent (store/journey-versions.ts). Off (nothing kept) until the
 * LISTEN of the feed channel is up, and whenever it is down.
 *
 * The guard of a read in flight: `generation` is taken before the read and handed to `set`, which
 * stores nothing when the deal was dropped (or everything was) since. A drop is O(1): the deal's
 * drop is numbered, and a kept version read before it is stale (found and deleted by `get`).
 */
export class JourneyVersions {
  readonly #kept: LRUCache<string, { version: string; generation: number }>;
  /** The generation at each deal's last drop. */
  readonly #dropped = new Map<string, number>();
  readonly #maxDroppedDeals: number;
  #generation = 0;
  /** Reads that began before it store nothing (set by `clear`). */
  #floor = 0;
  #enabled = false;

  constructor(options: { maxEntries?: number; maxDroppedDeals?: number } = {}) {
    this.#kept = new LRUCache({ max: options.maxEntries ?? JOURNEY_VERSIONS });
    this.#maxDroppedDeals = options.maxDroppedDeals ?? DROPPED_DEALS;
  }

  /** Taken before reading the database; hand it back to `set`. */
  get generation(): number {
    return this.#generation;
  }

  get(dealId: string, investorUserId: string): string | undefined {
    const key = `${dealId} ${investorUserId}`;
    const kept = this.#kept.get(key);
    if (kept === undefined) return undefined;
    if (kept.generation < (this.#dropped.get(dealId) ?? 0)) {
      this.#kept.delete(key);
      return undefined;
    }
    return kept.version;
  }

  /** Keeps `version`, read by a read that began at `generation`, unless the deal was dropped since. Version 0 (no events) is never kept. */
  set(dealId: string, investorUserId: string, version: string, generation: number): void {
    if (!this.#enabled || version === '0' || generation < this.#floor || generation < (this.#dropped.get(dealId) ?? 0)) return;
    this.#kept.set(`${dealId} ${investorUserId}`, { version, generation });
  }

  /** Forgets the deal's versions, and those that reads in flight would keep. */
  drop(dealId: string): void {
    if (this.#dropped.size >= this.#maxDroppedDeals && !this.#dropped.has(dealId)) {
      this.clear();
      return;
    }
    this.#dropped.set(dealId, ++this.#generation);
  }

  clear(): void {
    this.#floor = ++this.#generation;
    this.#dropped.clear();
    this.#kept.clear();
  }

  /** Off: nothing is kept until switched on again. */
  setEnabled(enabled: boolean): void {
    if (enabled === this.#enabled) return;
    this.#enabled = enabled;
    this.clear();
  }
}

export interface CachedToken {
  tokenId: string;
  /** What authentication returns for it (a Principal). */
  principal: unknown;
  /** When the token's last use was recorded (at most once a minute, see store/tokens.ts). */
  lastUsedAt: number | null;
}

export interface CacheOptions {
  tokenTtlMs?: number;
  workflowTtlMs?: number;
}

const local = new Set<Caches>();

/** The kept bodies' bound, in UTF-16 code units (about bytes for the ASCII of JSON ids and steps). */
export const BODIES_BYTES = 32 * 1024 * 1024;

export class Caches {
  readonly tokens: TtlCache<CachedToken>;
  /** Workflow structures by deal id (a CachedWorkflow of workflows.ts). */
  readonly workflows: TtlCache<unknown>;
  /**
   * Response bodies of hot reads (a journey) by resource and version: a version's body never
   * changes (a write makes a new version), so nothing is invalidated; the least recently used
   * bodies go when the total passes BODIES_BYTES.
   */
  readonly bodies = new LRUCache<string, string>({ maxSize: BODIES_BYTES, sizeCalculation: (body, key) => body.length + key.length });
  /** Journey versions read, for getInvestorJourney's 304 without a database read. */
  readonly journeyVersions = new JourneyVersions();
  /** Emits 'invalidated' after applying an invalidation, and 'journeys-dropped' (tests wait on them). */
  readonly events = new EventEmitter();

  constructor(options: CacheOptions = {}) {
    this.tokens = new TtlCache(options.tokenTtlMs ?? 10_000, 10_000);
    this.workflows = new TtlCache(options.workflowTtlMs ?? 30_000, 1_000);
    local.add(this);
  }

  apply(message: Invalidation): void {
    switch (message.kind) {
      case 'token':
        this.tokens.deleteWhere((_, entry) => entry.tokenId === message.tokenId);
        break;
      case 'workflow':
        this.workflows.deleteWhere((dealId) => dealId === message.dealId);
        break;
      default:
        message satisfies never;
    }
    this.events.emit('invalidated', message);
  }

  /** Forgets the kept journey versions of these deals: changed by a transaction of this process ('local'), or notified ('feed'). */
  dropJourneyVersions(dealIds: Iterable<string>, from: 'local' | 'feed'): void {
    for (const dealId of dealIds) this.journeyVersions.drop(dealId);
    if (this.events.listenerCount('journeys-dropped') > 0) this.events.emit('journeys-dropped', { dealIds: [...dealIds], from });
  }

  setEnabled(enabled: boolean): void {
    this.tokens.setEnabled(enabled);
    this.workflows.setEnabled(enabled);
  }

  /** Stops receiving this process's invalidations. */
  close(): void {
    local.delete(this);
  }
}

/**
 * Tells every instance to drop `message`: call it in the transaction that makes the change (the
 * NOTIFY is delivered on commit, to this instance's listener too), then `invalidateLocally` once the
 * change has committed, so this process does not wait for its own notification.
 */
export async function publishInvalidation(db: Db, message: Invalidation): Promise<void> {
  await notify(db, INVALIDATIONS_CHANNEL, JSON.stringify(message));
}

/** Drops `message` from every cache of this process, at once. */
export function invalidateLocally(message: Invalidation): void {
  for (const caches of local) caches.apply(message);
}

/**
 * LISTENs for the invalidations of every instance, and for the feed's notifications (a deal whose
 * journey versions changed: `caches.journeyVersions` is on only while that LISTEN is up); returns
 * the unsubscribe.
 */
export async function connectCaches(database: Database, caches: Caches): Promise<() => Promise<void>> {
  const unlistenFeed = await database.listen(
    FEED_CHANNEL,
    (dealId) => caches.dropJourneyVersions([dealId], 'feed'),
    (listening) => caches.journeyVersions.setEnabled(listening),
  );
  const unlistenInvalidations = await database
    .listen(
      INVALIDATIONS_CHANNEL,
      (payload) => {
        let message: Invalidation;
        try {
          message = JSON.parse(payload) as Invalidation;
        } catch {
          return; // not ours
        }
        caches.apply(message);
      },
      // While the connection is down notifications are lost: no caching until it listens again.
      (listening) => caches.setEnabled(listening),
    )
    .catch(async (err: unknown) => {
      await unlistenFeed();
      throw err;
    });
  return async () => {
    await unlistenInvalidations();
    await unlistenFeed();
    caches.journeyVersions.setEnabled(false);
  };
}
