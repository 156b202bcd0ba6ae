// Reads from PostgreSQL streaming replicas (docs/guides/postgresql-and-replicas.md).
//
// A watcher asks the primary for its WAL position and every replica for what it has replayed
// (pg_last_wal_replay_lsn()), every POLL_MS. From that it knows, for each replica, the newest WAL
// position it has replayed and since when it has been that far behind: its lag is the time since
// the primary stood where the replica stands now (0 when it has replayed everything the primary
// had written at the last look). `reader(token)` then picks:
// - with a consistency token (the commit LSN of a write the client saw): a replica known to have
//   replayed past it, else the primary. What is known is at most POLL_MS old and a replica only
//   moves forward, so the rule errs towards the primary, never towards stale data;
// - without one: a replica lagging at most DATABASE_REPLICA_MAX_LAG_MS, else the primary.
// A replica whose watcher query fails is down and skipped until it answers again. Replicas that
// qualify take turns.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { formatConsistencyToken as formatLsn, parseConsistencyToken as parseLsn } from '../domain/consistency-token.ts';
import { instrumentPool } from './pool-metrics.ts';
import type { DB } from './schema.ts';

const POLL_MS = 100;
/** How far back the primary's positions are remembered; a replica further behind is "lagging more". */
const HISTORY_MS = 60_000;

import type { ReplicaState, ReplicaStatus } from '../domain/database-status.ts';

export type { ReplicaState, ReplicaStatus };

interface Replica {
  name: string;
  db: Kysely<DB>;
  replayLsn?: bigint;
  /** When the primary was last seen at or behind replayLsn: the replica has everything up to then. */
  caughtUpAt?: number;
  down: boolean;
  error?: string;
  /** Stops reporting the replica's pool on /metrics. */
  untrack: () => void;
}

export interface ReplicaSet {
  reader(token: bigint | undefined): Kysely<DB> | undefined;
  status(): ReplicaStatus[];
  /** Resolves after the first look at every replica (tests, and a service that starts reading at once). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function openReplicaSet(
  primary: Kysely<DB>,
  urls: string[],
  options: { maxLagMs: number; poolSize: number; timeoutMs: number; schema?: string | undefined; now?: () => number },
): ReplicaSet {
  const now = options.now ?? Date.now;
  const replicas: Replica[] = urls.map((url) => {
    const parsed = new URL(url);
    const timeout = options.timeoutMs;
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize,
      // A replica that does not answer is given up quickly: the primary can serve instead.
      connectionTimeoutMillis: Math.min(timeout, 1000),
      idleTimeoutMillis: 30_000,
      query_timeout: timeout + 1000,
      keepAlive: true,
      options: [`-c statement_timeout=${timeout}`, ...(options.schema ? [`-c search_path=${options.schema}`] : [])].join(' '),
    });
    // A connection lost, idle or checked out (pg-pool listens only to idle ones): its statement
    // fails, and the watcher notices the replica is down.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const name = `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
    return {
      name,
      db: new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }),
      down: false,
      untrack: instrumentPool(pool, `replica:${name}`, options.poolSize),
    };
  });
  const history: { at: number; lsn: bigint }[] = [];
  let turn = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const look = async () => {
    try {
      const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(primary);
      history.push({ at: now(), lsn: parseLsn(rows[0]!.lsn)! });
      while (history.length > 1 && history[0]!.at < now() - HISTORY_MS) history.shift();
    } catch {
      // The primary does not answer: nothing new is known; lags grow with time.
    }
    await Promise.all(
      replicas.map(async (replica) => {
        try {
          const { rows } = await sql<{ lsn: string | null }>`select pg_last_wal_replay_lsn()::text as lsn`.execute(replica.db);
          if (rows[0]?.lsn == null) throw new Error('not a streaming replica (pg_last_wal_replay_lsn() is null)');
          const replayed = parseLsn(rows[0].lsn)!;
          replica.replayLsn = replayed;
          for (let i = history.length - 1; i >= 0; i--) {
            if (history[i]!.lsn <= replayed) {
              replica.caughtUpAt = Math.max(replica.caughtUpAt ?? 0, history[i]!.at);
              break;
            }
          }
          replica.down = false;
          replica.error = undefined;
        } catch (err) {
          replica.down = true;
          replica.error = (err as Error).message;
        }
      }),
    );
  };
  const loop = async () => {
    await look();
    if (!stopped) {
      timer = setTimeout(() => void loop(), POLL_MS);
      timer.unref();
    }
  };
  const ready = loop();

  const lagOf = (replica: Replica) => (replica.caughtUpAt === undefined ? undefined : Math.max(0, now() - replica.caughtUpAt));
  return {
    ready,
    reader(token) {
      const usable = replicas.filter((r) => {
        if (r.down || r.replayLsn === undefined) return false;
        if (token !== undefined) return r.replayLsn >= token;
        const lag = lagOf(r);
        return lag !== undefined && lag <= options.maxLagMs;
      });
      if (usable.length === 0) return undefined;
      return usable[turn++ % usable.length]!.db;
    },
    status: () =>
      replicas.map((r) => {
        const lag = lagOf(r);
        const state: ReplicaState = r.down ? 'down' : r.replayLsn === undefined ? 'starting' : lag === undefined || lag > options.maxLagMs ? 'lagging' : 'up';
        return {
          name: r.name,
          state,
          lagMs: r.down ? null : (lag ?? null),
          replayLsn: r.replayLsn === undefined ? null : formatLsn(r.replayLsn),
          error: r.error ?? null,
          servesReads: state === 'up',
        };
      }),
    async close() {
      stopped = true;
      clearTimeout(timer);
      await ready.catch(() => {});
      await Promise.all(replicas.map((r) => r.db.destroy().catch(() => {})));
      for (const r of replicas) r.untrack();
    },
  };
}
