// One way to open the database: Kysely over embedded PGlite (no DATABASE_URL) or over a `pg` pool.
// Nothing outside store/ knows which one it got.
import { mkdirSync } from 'node:fs';
import { Kysely, type LogEvent, PGliteDialect, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import type { DB } from './schema.ts';
import { acquireDataDirLock } from './data-dir-lock.ts';
import { backupPGlite } from './backup.ts';
import { initCluster, needsCluster, pgliteStartParams } from './pglite-settings.ts';
import { clientClass } from './prepared.ts';
import { parseConsistencyToken } from '../domain/consistency-token.ts';
import { openReplicaSet, type ReplicaStatus } from './replicas.ts';
import { HostSelector, type HostStatus, multiHostClientClass } from './hosts.ts';
import { countStatementError } from '../metrics.ts';
import { instrumentPool } from './pool-metrics.ts';

export type { ReplicaStatus } from './replicas.ts';
export type { HostStatus } from './hosts.ts';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  readonly db: Kysely<DB>;
  readonly kind: DatabaseKind;
  /**
   * LISTENs on `channel`; `onMessage` gets each NOTIFY payload, from this process or any other on
   * the same database. PostgreSQL: one dedicated connection outside the pool, reconnected when lost;
   * `onState(true)` once it listens, `onState(false)` when it is lost (notifications may be missed
   * until then), `onState(true)` when it listens again. Returns the unsubscribe.
   */
  listen(channel: string, onMessage: (payload: string) => void, onState?: (listening: boolean) => void): Promise<() => Promise<void>>;
  /**
   * Where a read outside a write transaction may run: a streaming replica that has replayed past
   * `token` (a consistency token the client sent back), or without one that lags at most
   * DATABASE_REPLICA_MAX_LAG_MS; otherwise (and always without replicas) the primary, `db`.
   */
  reader(token?: string): Kysely<DB>;
  /**
   * The consistency token of writes that have committed: the primary's WAL position now (an LSN,
   * `16/B374D848`). Undefined without replicas, where there is nothing to be consistent with.
   */
  consistencyToken(): Promise<string | undefined>;
  /** Each replica as last seen, for /readyz; empty without replicas. */
  replicaStatus(): ReplicaStatus[];
  /**
   * The hosts of DATABASE_URL as last seen and the one new connections go to (host:port), for
   * /readyz; undefined with one host and no target_session_attrs, and on the embedded database.
   * `primary` is null while no host is known to accept writes.
   */
  hostStatus(): Promise<{ primary: string | null; hosts: HostStatus[] } | undefined>;
  /**
   * The embedded database only: writes a gzipped tar of its data folder to `file`, taken between
   * transactions after a checkpoint, while the service goes on serving (store/backup.ts). Undefined
   * on PostgreSQL, whose backups are pg_basebackup's (docs/operations/README.md).
   */
  backupTo?: (file: string) => Promise<void>;
  /** Closes the pool (or the embedded database) and releases the data folder. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL only: run every statement in this schema (tests give each run its own). */
  schema?: string;
  /** Called for errors of idle pooled connections (a restarted server, say). */
  onPoolError?: (err: Error) => void;
  /** PostgreSQL only: sees the text of every statement the pool sends (tests count round trips). */
  onStatement?: (text: string) => void;
  /** PGlite in memory only: start from this dump of a data folder (PGlite's dumpDataDir), not an empty cluster (tests start from a migrated one). */
  pgliteDump?: Blob;
}

// Handles whose database runs transactions side by side on a pool (PostgreSQL), with the pool's
// size. PGlite has one connection and Kysely's PGlite driver cannot interleave two transactions on it.
const pooled = new WeakMap<object, number>();

/** Whether `db` (a root handle, not a transaction) may run several transactions at once. */
export const runsConcurrentTransactions = (db: Kysely<DB>) => pooled.has(db);

/**
 * How many transactions of one batch (bulk moves, move imports, a statement's credits) run side by
 * side on `db`: the pool less two connections for the requests that arrive meanwhile, at most 8
 * (past that the two cores, not the round trips, are what a move waits for); 1 on PGlite.
 */
export const batchConcurrency = (db: Kysely<DB>) => Math.max(1, Math.min(8, (pooled.get(db) ?? 1) - 2));

// Both drivers hand out numeric and int8 as strings and timestamptz as Date; the store converts once.
const INT8 = 20;
const NUMERIC = 1700;

/** Kysely's log, for the statement-error counter of /metrics only (a successful statement is not logged). */
const countErrors = (event: LogEvent) => {
  if (event.level === 'error') countStatementError(event.error);
};

type DatabaseConfig = Pick<Config, 'databaseUrl' | 'dataDir' | 'databaseTimeoutMs' | 'databasePoolSize'> &
  Partial<Pick<Config, 'databaseReplicaUrls' | 'databaseReplicaMaxLagMs'>>;

export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, config, options);
  return openPGlite(config.dataDir, options.pgliteDump);
}

function openPostgres(url: string, config: DatabaseConfig, options: OpenOptions): Database {
  const timeout = config.databaseTimeoutMs;
  const settings = [`-c statement_timeout=${timeout}`, `-c lock_timeout=${timeout}`];
  if (options.schema) settings.push(`-c search_path=${options.schema}`);
  // Several hosts, or target_session_attrs: connections go to the host that takes writes (hosts.ts).
  const selector = new HostSelector(url, { probeTimeoutMs: Math.min(timeout, 2000) });
  const multiHost = selector.parsed.hosts.length > 1 || selector.writesOnly;
  const connectTo = selector.parsed.urlFor(selector.parsed.hosts[0]!);
  const clientOf = (Base: typeof pg.Client) => (multiHost ? multiHostClientClass(Base, selector, timeout) : Base);
  const pool = new pg.Pool({
    connectionString: connectTo,
    max: config.databasePoolSize,
    // No unbounded waits: a full pool or a dead server fails the request after `timeout`.
    connectionTimeoutMillis: timeout,
    idleTimeoutMillis: 30_000,
    query_timeout: timeout + 1000,
    keepAlive: true,
    options: settings.join(' '),
    // Names the hot statements (prepared.ts), so PostgreSQL parses them once per connection.
    Client: clientOf(clientClass(options.onStatement)),
  });
  // An idle client whose server went away emits 'error'; unhandled, it would crash the process.
  pool.on('error', (err) => options.onPoolError?.(err));
  // pg-pool listens for that only while a client is idle: one checked out (between a transaction's
  // statements, or between acquiring and querying) whose server ends it would emit 'error' to no
  // one. Its statement fails anyway, and pg-pool drops a client that is no longer queryable.
  pool.on('connect', (client) => client.on('error', (err) => options.onPoolError?.(err)));
  const untrack = instrumentPool(pool, 'primary', config.databasePoolSize);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: countErrors });
  pooled.set(db, config.databasePoolSize);
  const listeners = new Set<{ stop(): Promise<void> }>();
  const replicaUrls = config.databaseReplicaUrls ?? [];
  const replicas =
    replicaUrls.length > 0
      ? openReplicaSet(db, replicaUrls, {
          maxLagMs: config.databaseReplicaMaxLagMs ?? 1000,
          poolSize: config.databasePoolSize,
          timeoutMs: timeout,
          schema: options.schema,
        })
      : undefined;
  return {
    db,
    kind: 'postgres',
    reader: (token) => replicas?.reader(token === undefined ? undefined : parseConsistencyToken(token)) ?? db,
    async consistencyToken() {
      if (!replicas) return undefined;
      const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(db);
      return rows[0]!.lsn;
    },
    replicaStatus: () => replicas?.status() ?? [],
    async hostStatus() {
      if (!multiHost) return undefined;
      const hosts = await selector.refresh();
      const primary = selector.primary;
      return { primary: primary ? `${primary.host}:${primary.port}` : null, hosts };
    },
    async listen(channel, onMessage, onState) {
      const listener = listenPostgres(connectTo, clientOf(pg.Client), options.schema, channel, onMessage, onState ?? (() => {}), options.onPoolError);
      try {
        await listener.ready;
      } catch (err) {
        await listener.stop();
        throw err;
      }
      listeners.add(listener);
      return async () => {
        listeners.delete(listener);
        await listener.stop();
      };
    },
    async close() {
      await Promise.all([...listeners].map((l) => l.stop()));
      await replicas?.close();
      await db.destroy();
      selector.close();
      untrack();
    },
  };
}

/**
 * A connection of its own that LISTENs (a pooled one would be handed to other queries). When it
 * fails it reports `onState(false)` and reconnects after a second, until stopped.
 */
function listenPostgres(
  url: string,
  Client: typeof pg.Client,
  schema: string | undefined,
  channel: string,
  onMessage: (payload: string) => void,
  onState: (listening: boolean) => void,
  onError: ((err: Error) => void) | undefined,
) {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const current = new Client({ connectionString: url, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
    client = current;
    const lost = (err?: Error) => {
      if (stopped || client !== current) return;
      if (err) onError?.(err);
      client = undefined;
      current.removeAllListeners('end');
      current.end().catch(() => {});
      onState(false);
      retry = setTimeout(() => connect().catch(() => lost()), 1000);
      retry.unref();
    };
    current.on('error', lost);
    current.on('end', () => lost());
    current.on('notification', (n) => {
      if (n.channel === channel && n.payload !== undefined) onMessage(n.payload);
    });
    try {
      await current.connect();
      await current.query(`listen ${pg.escapeIdentifier(channel)}`);
      onState(true);
    } catch (err) {
      lost(err as Error);
      throw err;
    }
  };
  const ready = connect();
  ready.catch(() => {}); // lost() retries; the first failure is also reported through `ready`
  return {
    ready,
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}

/** The options every PGlite of ours opens with (the service's, and a restore's). */
export async function pgliteOptions() {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { btree_gin } = await import('@electric-sql/pglite/contrib/btree_gin');
  return {
    PGlite,
    options: {
      parsers: { [INT8]: (v: string) => v, [NUMERIC]: (v: string) => v },
      extensions: { pg_trgm, btree_gin },
      // Buffers sized for one embedded instance, not a server (pglite-settings.ts).
      startParams: pgliteStartParams(PGlite.defaultStartParams),
    },
  };
}

async function openPGlite(dataDir: string, dump?: Blob): Promise<Database> {
  const { PGlite, options } = await pgliteOptions();
  const inMemory = dataDir.startsWith('memory://');
  if (dump && !inMemory) throw new Error('a PGlite dump is loaded into memory:// only');
  let release = () => {};
  if (!inMemory) {
    mkdirSync(dataDir, { recursive: true });
    release = await acquireDataDirLock(dataDir);
  }
  try {
    if (!inMemory && needsCluster(dataDir)) await initCluster(dataDir);
    const pglite = await PGlite.create(dataDir, dump ? { ...options, loadDataDir: dump } : options);
    const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }), log: countErrors });
    return {
      db,
      kind: 'pglite',
      // No replicas: config refuses DATABASE_REPLICA_URLS without DATABASE_URL.
      reader: () => db,
      consistencyToken: async () => undefined,
      replicaStatus: () => [],
      hostStatus: async () => undefined,
      // One process holds the folder, so every NOTIFY comes from this process (delivered before
      // the COMMIT's query resolves); the LISTEN is never down.
      listen: async (channel, onMessage, onState) => {
        const unlisten = await pglite.listen(channel, onMessage);
        onState?.(true);
        return () => unlisten();
      },
      ...(inMemory ? {} : { backupTo: (file: string) => backupPGlite(pglite, dataDir, file) }),
      close: async () => {
        await db.destroy();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
