// DATABASE_URL and DATABASE_REPLICA_URLS, for config.ts: one or several hosts in libpq's form
// (store/hosts.ts connects to the one that takes writes), checked at start.
import { ConfigError, type Env } from './config-env.ts';

// Several hosts in one DATABASE_URL, libpq's form (store/hosts.ts connects to the one that takes writes).
export type SessionAttrs = 'any' | 'read-write' | 'primary';

export interface HostAddress {
  host: string;
  port: number;
}

export interface ParsedDatabaseUrl {
  hosts: HostAddress[];
  targetSessionAttrs: SessionAttrs;
  /** The URL for one host: `urlFor(hosts[i])` is a single-host URL `pg` understands. */
  urlFor(host: HostAddress): string;
}

const URL_FORM = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/;
const ATTRS: Record<string, SessionAttrs> = { any: 'any', 'read-write': 'read-write', primary: 'primary' };

/**
 * Splits a libpq URL into its hosts: `h1:5432,h2:5433`, `[::1]:5432`, a host without a port takes
 * 5432. target_session_attrs may be any, read-write or primary (the others libpq knows,
 * read-only, standby and prefer-standby, are for readers: DATABASE_REPLICA_URLS does that here);
 * it is taken out of the URLs handed to `pg`. Throws an Error that says what is wrong.
 */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const match = URL_FORM.exec(url);
  if (!match) throw new Error('is not a postgres:// URL');
  const [, scheme, auth = '', hostList = '', rest = ''] = match;
  const parts = hostList.split(',');
  const hosts = parts.map((part) => {
    const m = /^(\[[^\]]+\]|[^:[\]]*)(?::(\d+))?$/.exec(part);
    // One empty host is libpq's default (a Unix socket, or ?host=); in a list every host is named.
    if (!m || (m[1] === '' && parts.length > 1)) throw new Error(`"${part}" is not a host or host:port`);
    const port = m[2] === undefined ? 5432 : Number(m[2]);
    if (port < 1 || port > 65535) throw new Error(`port ${m[2]} is out of range`);
    return { host: m[1]!, port };
  });
  const queryAt = rest.indexOf('?');
  const path = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const params = new URLSearchParams(queryAt < 0 ? '' : rest.slice(queryAt + 1));
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!(attrs in ATTRS)) {
    throw new Error(`target_session_attrs must be any, read-write or primary, got "${attrs}" (reads from standbys: DATABASE_REPLICA_URLS)`);
  }
  // The query as given unless target_session_attrs is to be taken out (`pg` does not know it).
  let query = queryAt < 0 ? '' : rest.slice(queryAt);
  if (params.has('target_session_attrs')) {
    params.delete('target_session_attrs');
    query = params.size > 0 ? `?${params.toString()}` : '';
  }
  return {
    hosts,
    targetSessionAttrs: ATTRS[attrs]!,
    // One host: the URL as given (less target_session_attrs), so `pg` reads it exactly as before.
    urlFor: (h) => (parts.length === 1 ? `${scheme}${auth}${hostList}${path}${query}` : `${scheme}${auth}${h.host}:${h.port}${path}${query}`),
  };
}

export function databaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(raw)?.[0];
    if (!scheme) throw new ConfigError('DATABASE_URL', 'is not a URL (expected postgres://user@host:5432/database)');
    throw new ConfigError('DATABASE_URL', `must start with postgres:// or postgresql://, got "${scheme}"`);
  }
  let parsed: ParsedDatabaseUrl;
  try {
    parsed = parseDatabaseUrl(raw);
  } catch (err) {
    throw new ConfigError(
      'DATABASE_URL',
      `${(err as Error).message} (expected postgres://user@host:5432/database, or several hosts: postgres://user@h1:5432,h2:5432/database?target_session_attrs=read-write)`,
    );
  }
  // Each host's URL must be one `pg` reads.
  for (const host of parsed.hosts) {
    try {
      new URL(parsed.urlFor(host));
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a URL (expected postgres://user@host:5432/database)');
    }
  }
  return raw;
}

function postgresUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `"${raw}" is not a URL (expected postgres://user@host:5432/database)`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(name, `must start with postgres:// or postgresql://, got "${url.protocol}"`);
  }
  return raw;
}

/** Comma-separated; only beside DATABASE_URL (the embedded database has no replicas). */
export function replicaUrls(env: Env, primary: string | undefined): string[] {
  const raw = env.DATABASE_REPLICA_URLS ?? '';
  const urls = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (urls.length === 0) return [];
  if (!primary) {
    throw new ConfigError('DATABASE_REPLICA_URLS', 'needs DATABASE_URL: the embedded database (PGlite) has no replicas; unset it, or run on PostgreSQL');
  }
  return urls.map((url) => postgresUrl('DATABASE_REPLICA_URLS', url));
}
