// Several PostgreSQL hosts in one DATABASE_URL, in libpq's form
// (`postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write`), for an HA formation
// (pg_auto_failover, Patroni) or a managed service's multi-host endpoint. `pg` connects to one host
// only, so the pool's connections go through a HostSelector:
// - it knows which host took the last connection, and a new connection goes there;
// - with target_session_attrs=read-write (or primary) a new connection that lands on a host in
//   recovery (a standby) or with default_transaction_read_only is closed, the host is forgotten,
//   and the hosts are tried again in order;
// - a connection that fails to open, loses its server, or is refused a write (25006: the host became
//   read-only) forgets the host too, and the connection is dropped, not handed out again;
// - finding a host again tries every host in order, in rounds 100 ms, 200 ms, … up to 2 s apart;
//   the connections waiting meanwhile share one search, each for at most DATABASE_TIMEOUT_MS, and
//   fail with a connection error (a 503) when theirs runs out.
// With one host and no target_session_attrs none of this runs: the pool connects as before.
import pg from 'pg';
import { type HostAddress, type ParsedDatabaseUrl, parseDatabaseUrl } from '../config.ts';

export type { HostAddress, ParsedDatabaseUrl, SessionAttrs } from '../config.ts';

export const hostName = (h: HostAddress) => `${h.host}:${h.port}`;

import type { HostRole, HostStatus } from '../domain/database-status.ts';

export type { HostRole, HostStatus };

/** A connection failure the rest of the store reads as "the database is unavailable" (class 08). */
export class NoWritableHost extends Error {
  readonly code = '08001';
}

/** SQLSTATE 25006: a write on a read-only session (a host that became a standby). */
const READ_ONLY_TRANSACTION = '25006';
const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 2000;
const REFRESH_MS = 1000;

export interface HostSelectorOptions {
  /** How long one probe connection may take to open and answer. */
  probeTimeoutMs: number;
}

export class HostSelector {
  readonly parsed: ParsedDatabaseUrl;
  private readonly options: HostSelectorOptions;
  private current: HostAddress | undefined;
  private search: Promise<HostAddress> | undefined;
  private searchUntil = 0;
  private readonly seen = new Map<string, HostStatus>();
  private closed = false;
  private refreshedAt = 0;
  private refreshing: Promise<void> = Promise.resolve();

  constructor(url: string, options: HostSelectorOptions) {
    this.parsed = parseDatabaseUrl(url);
    this.options = options;
    for (const h of this.parsed.hosts) this.seen.set(hostName(h), { name: hostName(h), role: 'unknown', error: null });
    if (this.parsed.hosts.length === 1 || this.parsed.targetSessionAttrs === 'any') this.current = this.parsed.hosts[0];
  }

  get writesOnly(): boolean {
    return this.parsed.targetSessionAttrs !== 'any';
  }

  /** The host new connections go to; undefined until one is found (or while none accepts writes). */
  get primary(): HostAddress | undefined {
    return this.current;
  }

  status(): HostStatus[] {
    return this.parsed.hosts.map((h) => this.seen.get(hostName(h))!);
  }

  /**
   * The host to connect to now. When none is known, waits (until `deadline`) for the one search
   * that all callers share; a caller that arrives later extends it to its own deadline.
   */
  async choose(deadline: number): Promise<HostAddress> {
    if (this.current) return this.current;
    this.searchUntil = Math.max(this.searchUntil, deadline);
    if (!this.search) {
      const search = this.find();
      this.search = search;
      search.then(
        () => (this.search = undefined),
        () => (this.search = undefined),
      );
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.noHost()), Math.max(0, deadline - Date.now()));
    });
    try {
      return await Promise.race([this.search, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A connection to `host` failed or found it unusable: the next connection searches again. */
  forget(host: HostAddress, role: HostRole, error: string): void {
    this.seen.set(hostName(host), { name: hostName(host), role, error });
    if (this.current && hostName(this.current) === hostName(host) && this.parsed.hosts.length > 1) this.current = undefined;
  }

  /** A connection to `host` opened and passed the checks. */
  confirm(host: HostAddress): void {
    this.seen.set(hostName(host), { name: hostName(host), role: this.writesOnly ? 'primary' : 'unknown', error: null });
    this.current ??= host;
  }

  /**
   * Asks every host its role again (each with a connection of its own, all at once), at most once
   * a second, for /readyz: between searches the roles of hosts other than the primary are not
   * otherwise kept up to date.
   */
  async refresh(): Promise<HostStatus[]> {
    if (Date.now() - this.refreshedAt >= REFRESH_MS) {
      this.refreshedAt = Date.now();
      this.refreshing = Promise.all(this.parsed.hosts.map((h) => this.probe(h, this.options.probeTimeoutMs))).then(() => {});
    }
    await this.refreshing;
    return this.status();
  }

  close(): void {
    this.closed = true;
  }

  /** Rounds over every host, in order, until one accepts writes or the last waiter's deadline passes. */
  private async find(): Promise<HostAddress> {
    let pause = BACKOFF_MIN_MS;
    for (;;) {
      for (const host of this.parsed.hosts) {
        if (this.closed) throw new NoWritableHost('the pool is closed');
        const left = this.searchUntil - Date.now();
        if (left <= 0) throw this.noHost();
        const role = await this.probe(host, Math.min(left, this.options.probeTimeoutMs));
        if (role === 'primary' || (!this.writesOnly && role !== 'unreachable')) {
          this.current = host;
          return host;
        }
      }
      if (this.searchUntil - Date.now() <= pause) throw this.noHost();
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(BACKOFF_MAX_MS, pause * 2);
    }
  }

  private noHost(): NoWritableHost {
    const seen = this.status().map((s) => `${s.name} ${s.role}${s.error ? ` (${s.error})` : ''}`);
    return new NoWritableHost(`no host of DATABASE_URL ${this.writesOnly ? 'accepts writes' : 'answers'}: ${seen.join('; ')}`);
  }

  /** Opens a connection of its own to `host` and asks whether it is in recovery or read-only. */
  private async probe(host: HostAddress, timeoutMs: number): Promise<HostRole> {
    const client = new pg.Client({
      connectionString: this.parsed.urlFor(host),
      connectionTimeoutMillis: Math.max(1, timeoutMs),
      query_timeout: Math.max(1, timeoutMs),
    });
    client.on('error', () => {});
    try {
      await client.connect();
      const { rows } = await client.query<{ recovery: boolean; read_only: string }>(
        `select pg_is_in_recovery() as recovery, current_setting('transaction_read_only') as read_only`,
      );
      const role: HostRole = rows[0]!.recovery ? 'standby' : rows[0]!.read_only === 'on' ? 'read-only' : 'primary';
      if (role !== 'primary' && this.writesOnly) this.forget(host, role, role === 'standby' ? 'in recovery' : 'read-only');
      else this.seen.set(hostName(host), { name: hostName(host), role, error: null });
      return role;
    } catch (err) {
      this.forget(host, 'unreachable', (err as Error).message);
      return 'unreachable';
    } finally {
      await client.end().catch(() => {});
    }
  }
}

const connectionLost = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P') || /^E[A-Z]+$/.test(code))) return true;
  const message = err instanceof Error ? err.message : '';
  return message.includes('Connection terminated') || message.includes('connection error');
};

/**
 * `Base` (a pg.Client class) that connects to the host `selector` chooses, checks it accepts
 * writes when DATABASE_URL asks for that, and ends itself when the host goes away or turns
 * read-only under it, so the pool drops it. `timeoutMs` bounds the search for a host.
 */
export function multiHostClientClass(Base: typeof pg.Client, selector: HostSelector, timeoutMs: number): typeof pg.Client {
  class MultiHostClient extends Base {
    private chosen: HostAddress | undefined;

    // pg-pool connects with a callback; a client of its own (the LISTEN connection) with the promise.
    override connect(callback?: any): any {
      if (callback) {
        this.connectToChosen().then(
          () => callback(undefined),
          (err: Error) => callback(err),
        );
        return undefined;
      }
      return this.connectToChosen().then(() => this);
    }

    private async connectToChosen(): Promise<void> {
      const self = this as unknown as {
        host: string;
        port: number;
        connectionParameters: { host: string; port: number };
        connection: { stream: { destroyed?: boolean } };
      };
      const host = await selector.choose(Date.now() + timeoutMs);
      // The pool gave up on this connection while the search ran (its connect timeout destroyed the socket).
      if (self.connection.stream.destroyed) throw new Error('timeout exceeded when trying to connect');
      this.chosen = host;
      self.host = host.host;
      self.port = host.port;
      self.connectionParameters.host = host.host;
      self.connectionParameters.port = host.port;
      try {
        await new Promise<void>((resolve, reject) => super.connect((err: Error | undefined) => (err ? reject(err) : resolve())));
      } catch (err) {
        selector.forget(host, 'unreachable', (err as Error).message);
        throw err;
      }
      if (selector.writesOnly) {
        let role: HostRole = 'primary';
        try {
          const { rows } = await super.query(`select pg_is_in_recovery() as recovery, current_setting('transaction_read_only') as read_only`);
          if (rows[0].recovery) role = 'standby';
          else if (rows[0].read_only === 'on') role = 'read-only';
        } catch (err) {
          selector.forget(host, 'unreachable', (err as Error).message);
          await this.end().catch(() => {});
          throw err;
        }
        if (role !== 'primary') {
          selector.forget(host, role, role === 'standby' ? 'in recovery' : 'read-only');
          await this.end().catch(() => {});
          throw new NoWritableHost(`${hostName(host)} does not accept writes (${role === 'standby' ? 'in recovery' : 'read-only'})`);
        }
      }
      selector.confirm(host);
      // An idle connection whose server went away: the next connection searches again.
      this.on('error', (err: Error) => selector.forget(host, 'unreachable', err.message));
    }

    override query(config: any, values?: any, callback?: any): any {
      const result: any = (super.query as (...args: unknown[]) => unknown)(config, values, callback);
      // The callback form (pg-pool never uses it; Kysely neither) is left as it is.
      if (result && typeof result.then === 'function') {
        return result.catch((err: unknown) => {
          this.dropOn(err);
          throw err;
        });
      }
      return result;
    }

    private dropOn(err: unknown) {
      const host = this.chosen;
      if (!host) return;
      const readOnly = (err as { code?: unknown } | null)?.code === READ_ONLY_TRANSACTION;
      if (!readOnly && !connectionLost(err)) return;
      // Without target_session_attrs a read-only host is as good as any (libpq's `any`).
      if (readOnly && !selector.writesOnly) return;
      selector.forget(host, readOnly ? 'read-only' : 'unreachable', (err as Error).message);
      // An ended client is not pooled again (pg-pool drops it on release).
      this.end().catch(() => {});
    }
  }
  return MultiHostClient as unknown as typeof pg.Client;
}
