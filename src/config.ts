// The only reader of process.env. Every variable is validated once, at start; a bad value is a
// ConfigError that names the variable, and the entry points exit 1 with its message.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

export interface JwtConfig {
  /** HS256 shared secret, or undefined when a JWKS URL is used. */
  secret?: string;
  jwksUrl?: URL;
  roleClaim: string;
  investorClaim: string;
  /** Longest lifetime (exp − iat, or exp − now without iat) a JWT may claim, in seconds. */
  maxLifetimeSeconds: number;
}

export interface Config {
  port: number;
  host: string;
  basePath: string;
  /** Unset: embedded PGlite in `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  logLevel: LogLevel;
  jwt?: JwtConfig;
  bodyLimit: number;
  /** Largest bank statement body (POST /payments/statements), in bytes. */
  statementBodyLimit: number;
  /** Largest investor or move import file (POST /investors/import, …/jump-to-step/import), in bytes. */
  importBodyLimit: number;
  /** Imports (statements, investor and move files) larger than this run as import jobs (202). */
  importJobThreshold: number;
  /** Requests per minute per token; 0 turns rate limiting off. */
  rateLimitPerMinute: number;
  /** Milliseconds a request may wait for a pooled connection, and a statement may run. */
  databaseTimeoutMs: number;
  databasePoolSize: number;
  /** PostgreSQL streaming replicas that list reads may use (docs/guides/postgresql-and-replicas.md); empty: none. */
  databaseReplicaUrls: string[];
  /** Without a consistency token, a replica further behind the primary than this is not read. */
  databaseReplicaMaxLagMs: number;
  /** How long a stored idempotent response is kept. */
  idempotencyTtlHours: number;
  /** Slow clients: a request (headers and body) must arrive within this many milliseconds. */
  requestTimeoutMs: number;
  /** Whether `serve` runs the webhook dispatcher in-process (WEBHOOKS_DISPATCHER=on|off). */
  webhooksDispatcher: boolean;
  /** Longest wait for a webhook receiver's answer. */
  webhooksTimeoutMs: number;
  /** Pause of an idle dispatcher between scans for due deliveries. */
  webhooksPollMs: number;
  /** How often `serve` and `dealflow worker` seal an audit checkpoint (docs/reference/audit.md). */
  auditSealIntervalMs: number;
  /** How often the funnel's upkeep applies pending moves (FUNNEL_UPKEEP_INTERVAL_MS). */
  funnelUpkeepIntervalMs: number;
  /** Years after an investor's last event before their personal data may be erased. */
  erasureRetentionYears: number;
}

/**
 * The embedded database's folder without DATA_DIR: `.data` at the root of the checkout (this file
 * is src/config.ts or dist/config.js), whatever the working directory, so `npm start` and a
 * `dealflow` command run from a subfolder open the same database.
 */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../.data', import.meta.url));

/** DATA_DIR as an absolute path (a relative one is taken from the working directory). */
function dataDir(env: Env): string {
  const raw = env.DATA_DIR;
  if (raw === undefined || raw === '') return DEFAULT_DATA_DIR;
  return raw.startsWith('memory://') ? raw : path.resolve(raw);
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.variable = variable;
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${values.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function basePath(env: Env): string {
  const raw = env.BASE_PATH ?? '';
  if (raw === '' || raw === '/') return '';
  if (!/^(\/[A-Za-z0-9._~-]+)+\/?$/.test(raw)) {
    throw new ConfigError('BASE_PATH', `must look like /kong/core/api/gateway, got "${raw}"`);
  }
  return raw.replace(/\/$/, '');
}

function databaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL', 'is not a URL (expected postgres://user@host:5432/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError('DATABASE_URL', `must start with postgres:// or postgresql://, got "${url.protocol}"`);
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
function replicaUrls(env: Env, primary: string | undefined): string[] {
  const raw = env.DATABASE_REPLICA_URLS ?? '';
  const urls = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (urls.length === 0) return [];
  if (!primary) {
    throw new ConfigError('DATABASE_REPLICA_URLS', 'needs DATABASE_URL: the embedded database (PGlite) has no replicas; unset it, or run on PostgreSQL');
  }
  return urls.map((url) => postgresUrl('DATABASE_REPLICA_URLS', url));
}

function jwt(env: Env): JwtConfig | undefined {
  const secret = env.JWT_SECRET || undefined;
  const jwks = env.JWT_JWKS_URL || undefined;
  if (secret && jwks) throw new ConfigError('JWT_SECRET', 'set either JWT_SECRET or JWT_JWKS_URL, not both');
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 characters (HS256 needs 256 bits)');
  }
  let jwksUrl: URL | undefined;
  if (jwks !== undefined) {
    try {
      jwksUrl = new URL(jwks);
    } catch {
      throw new ConfigError('JWT_JWKS_URL', `is not a URL: "${jwks}"`);
    }
    if (jwksUrl.protocol !== 'https:' && jwksUrl.protocol !== 'http:') {
      throw new ConfigError('JWT_JWKS_URL', 'must be an http(s) URL');
    }
  }
  if (!secret && !jwksUrl) return undefined;
  const claim = (name: string, fallback: string) => {
    const value = env[name] || fallback;
    if (!/^[A-Za-z0-9_.:/-]+$/.test(value)) throw new ConfigError(name, `is not a claim name: "${value}"`);
    return value;
  };
  return {
    ...(secret ? { secret } : {}),
    ...(jwksUrl ? { jwksUrl } : {}),
    roleClaim: claim('JWT_ROLE_CLAIM', 'role'),
    investorClaim: claim('JWT_INVESTOR_CLAIM', 'investor_user_id'),
    maxLifetimeSeconds: duration(env, 'JWT_MAX_LIFETIME', 24 * 3600, 60, 366 * 24 * 3600),
  };
}

const durationUnits: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration in seconds: `3600`, `90s`, `15m`, `24h`, `7d`. */
function duration(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d{1,9})([smhd]?)$/.exec(raw);
  if (!match) throw new ConfigError(name, `must be a duration such as 3600, 90s, 15m, 24h or 7d, got "${raw}"`);
  const seconds = Number(match[1]) * durationUnits[match[2]!]!;
  if (seconds < min || seconds > max) throw new ConfigError(name, `must be between ${min} s and ${max} s, got ${seconds} s`);
  return seconds;
}

export function loadConfig(env: Env = process.env): Config {
  const url = databaseUrl(env);
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    basePath: basePath(env),
    ...(url ? { databaseUrl: url } : {}),
    dataDir: dataDir(env),
    logLevel: oneOf(env, 'LOG_LEVEL', logLevels, 'info'),
    jwt: jwt(env),
    bodyLimit: integer(env, 'BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024),
    statementBodyLimit: integer(env, 'STATEMENT_BODY_LIMIT', 32 * 1024 * 1024, 1024, 512 * 1024 * 1024),
    importBodyLimit: integer(env, 'IMPORT_BODY_LIMIT', 256 * 1024 * 1024, 1024, 4096 * 1024 * 1024),
    importJobThreshold: integer(env, 'IMPORT_JOB_THRESHOLD', 8 * 1024 * 1024, 0, 4096 * 1024 * 1024),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 0, 0, 1_000_000),
    databaseTimeoutMs: integer(env, 'DATABASE_TIMEOUT_MS', 5000, 100, 600_000),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseReplicaUrls: replicaUrls(env, url),
    databaseReplicaMaxLagMs: integer(env, 'DATABASE_REPLICA_MAX_LAG_MS', 1000, 0, 3_600_000),
    idempotencyTtlHours: integer(env, 'IDEMPOTENCY_TTL_HOURS', 24, 1, 24 * 365),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    webhooksDispatcher: oneOf(env, 'WEBHOOKS_DISPATCHER', ['on', 'off'] as const, 'on') === 'on',
    webhooksTimeoutMs: integer(env, 'WEBHOOKS_TIMEOUT_MS', 10_000, 100, 120_000),
    webhooksPollMs: integer(env, 'WEBHOOKS_POLL_MS', 1000, 10, 60_000),
    auditSealIntervalMs: integer(env, 'AUDIT_SEAL_INTERVAL_MS', 10_000, 100, 86_400_000),
    funnelUpkeepIntervalMs: integer(env, 'FUNNEL_UPKEEP_INTERVAL_MS', 200, 50, 3_600_000),
    erasureRetentionYears: integer(env, 'ERASURE_RETENTION_YEARS', 5, 0, 100),
  };
}
