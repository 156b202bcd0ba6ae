// The only reader of process.env. Every variable is validated once, at start; a bad value is a
// ConfigError that names the variable, and the entry points exit 1 with its message.
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, duration, type Env, httpUrl, integer, oneOf } from './config-env.ts';
import { databaseUrl, replicaUrls } from './config-database.ts';
import { type KycProviderConfig, kycProviderConfig } from './config-kyc.ts';
import { type OidcConfig, oidcConfig } from './config-oidc.ts';
import { type MailConfig, mailConfig } from './config-mail.ts';
import { type SealConfig, sealConfig } from './config-seal.ts';
import { type DocumentStoreConfig, documentStoreConfig } from './config-document-store.ts';

export { ConfigError } from './config-env.ts';
export type { OidcConfig } from './config-oidc.ts';
export type { KycProviderConfig } from './config-kyc.ts';
export type { MailConfig } from './config-mail.ts';
export type { SealConfig } from './config-seal.ts';
export type { DocumentStoreConfig, S3Config } from './config-document-store.ts';
export { type HostAddress, type ParsedDatabaseUrl, parseDatabaseUrl, type SessionAttrs } from './config-database.ts';

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
  /** Which proxies' X-Forwarded-For to believe for the client's address (Fastify's trustProxy): false, true, a hop count, or addresses/CIDRs. */
  trustProxy: boolean | number | string[];
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
  /** KYC evidence: how long an accepted level counts (KYC_VALID_MONTHS) and the largest file taken (KYC_DOCUMENT_MAX_BYTES). */
  kyc: { validMonths: number; documentMaxBytes: number };
  /** GET /metrics on the service's port needs `Authorization: Bearer <this>`; unset: no /metrics there. */
  metricsToken?: string;
  /** A listener of its own for GET /metrics (METRICS_LISTEN=host:port), apart from the API's port. */
  metricsListen?: { host: string; port: number };
  /** OpenTelemetry traces, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set; unset: no tracing code loads. */
  tracing?: TracingConfig;
  /** The investor portal's sign-in (docs/reference/portal-access.md). */
  portal: PortalConfig;
  /** Staff people's sign-in to the console. */
  staff: StaffConfig;
  /** Single sign-on to the console, when an identity provider is configured. */
  oidc?: OidcConfig;
  /** An external KYC provider (KYC_PROVIDER=http); unset: none, and checks cannot be started. */
  kycProvider?: KycProviderConfig;
  /** Transactional e-mails: templates, the staff digest's hour, the dispatcher's pace. */
  mail: MailConfig;
  /** The certificate that seals signed PDFs (SEAL_KEY_FILE and SEAL_CERTIFICATE_FILE, or SEAL_PKCS12_FILE); unset: a development seal kept in the database. */
  seal?: SealConfig;
  /** Where the contents of documents are kept: the database, or an S3 bucket (DOCUMENT_STORE). */
  documentStore: DocumentStoreConfig;
}

export interface PortalConfig {
  /** PUBLIC_URL: the service's public origin and base path, no trailing slash (invitation links, the WebAuthn origin). */
  publicUrl: string;
  /** PUBLIC_URL's origin (scheme, host, port): the only Origin the portal's writes accept, and WebAuthn's expected origin. */
  origin: string;
  /** PUBLIC_URL's host name: the WebAuthn relying party id. */
  rpId: string;
  invitationDays: number;
  /** A session's idle lifetime; each use renews it, up to SESSION_MAX_HOURS after sign-in. */
  sessionMinutes: number;
  /** Sign-in and invitation requests a minute per client address (PORTAL_RATE_LIMIT_PER_MINUTE). */
  rateLimitPerMinute: number;
  /** Unset: no e-mail is sent, the invitation links are only answered. */
  smtp?: { url: string; from: string };
}

/** The console's sign-in for staff people (docs/reference/staff.md); origin and relying party are the portal's. */
export interface StaffConfig {
  /** The idle timeout: a console session unused this long ends (STAFF_SESSION_MINUTES). */
  sessionMinutes: number;
  /** The absolute timeout: a console session ends this long after sign-in (STAFF_SESSION_MAX_HOURS). */
  sessionMaxHours: number;
  invitationDays: number;
}

export interface TracingConfig {
  /** The collector's base URL; spans go to `<endpoint>/v1/traces` (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: that URL as is). */
  tracesUrl: string;
  protocol: 'http/protobuf' | 'http/json';
  serviceName: string;
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

function basePath(env: Env): string {
  const raw = env.BASE_PATH ?? '';
  if (raw === '' || raw === '/') return '';
  if (!/^(\/[A-Za-z0-9._~-]+)+\/?$/.test(raw)) {
    throw new ConfigError('BASE_PATH', `must look like /kong/core/api/gateway, got "${raw}"`);
  }
  return raw.replace(/\/$/, '');
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

function metricsToken(env: Env): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 24 || !/^[\x21-\x7e]+$/.test(raw))
    throw new ConfigError('METRICS_TOKEN', 'must be at least 24 printable characters without spaces (openssl rand -hex 24 makes one)');
  return raw;
}

/** `host:port`, `:port` (loopback) or `[ipv6]:port`. */
function metricsListen(env: Env): { host: string; port: number } | undefined {
  const raw = env.METRICS_LISTEN;
  if (raw === undefined || raw === '') return undefined;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]*)):(\d{1,5})$/.exec(raw);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535) throw new ConfigError('METRICS_LISTEN', `must be host:port, such as 127.0.0.1:9464, got "${raw}"`);
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

/** The standard OpenTelemetry variables this service reads; tracing is on only with an endpoint. */
function tracing(env: Env): TracingConfig | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  if (traces === undefined && base === undefined) return undefined;
  const tracesUrl =
    traces !== undefined
      ? httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces)
      : `${httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base!).replace(/\/+$/, '')}/v1/traces`;
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  return {
    tracesUrl,
    protocol: oneOf(env, protocolName, ['http/protobuf', 'http/json'] as const, 'http/protobuf'),
    serviceName: env.OTEL_SERVICE_NAME || 'dealflow',
  };
}

/** TRUST_PROXY: unset or false, true (any), a number of hops, or comma-separated addresses and CIDRs. */
function trustProxy(env: Env): boolean | number | string[] {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return integer(env, 'TRUST_PROXY', 0, 1, 100);
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || extra !== undefined || (bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > maxBits))) {
      throw new ConfigError('TRUST_PROXY', `must be true, a number of hops, or addresses and CIDRs such as 10.0.0.0/8,127.0.0.1; "${entry}" is none`);
    }
  }
  return entries;
}

/** PUBLIC_URL: an http(s) origin with an optional path, no query or fragment. */
function portal(env: Env, port: number, base: string): PortalConfig {
  const raw = env.PUBLIC_URL || `http://localhost:${port}${base}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_URL', `is not a URL: "${raw}" (expected https://deals.example.com/base/path)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError('PUBLIC_URL', 'must be an http(s) URL');
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError('PUBLIC_URL', 'must be an origin and a path only, without query, fragment or credentials');
  }
  const smtpUrl = env.SMTP_URL || undefined;
  let smtp: PortalConfig['smtp'];
  if (smtpUrl !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(smtpUrl);
    } catch {
      throw new ConfigError('SMTP_URL', 'is not a URL (expected smtp://user:password@mail.example.com:587 or smtps://…:465)');
    }
    if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:')
      throw new ConfigError('SMTP_URL', `must start with smtp:// or smtps://, got "${parsed.protocol}"`);
    const from = env.SMTP_FROM || undefined;
    if (from === undefined)
      throw new ConfigError('SMTP_FROM', 'is needed with SMTP_URL: the sender of invitation e-mails, such as "Deals <deals@example.com>"');
    if (!/^([^<>@\r\n]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/.test(from.trim())) {
      throw new ConfigError('SMTP_FROM', `must be an address or "Name <address>", got "${from}"`);
    }
    smtp = { url: smtpUrl, from: from.trim() };
  }
  return {
    publicUrl: url.href.replace(/\/+$/, ''),
    origin: url.origin,
    rpId: url.hostname,
    invitationDays: integer(env, 'PORTAL_INVITATION_DAYS', 7, 1, 365),
    sessionMinutes: integer(env, 'PORTAL_SESSION_MINUTES', 30, 1, 720),
    rateLimitPerMinute: integer(env, 'PORTAL_RATE_LIMIT_PER_MINUTE', 30, 1, 1_000_000),
    ...(smtp ? { smtp } : {}),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const url = databaseUrl(env);
  const token = metricsToken(env);
  const listen = metricsListen(env);
  const traces = tracing(env);
  const oidc = oidcConfig(env);
  const kyc = kycProviderConfig(env);
  const seal = sealConfig(env);
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const base = basePath(env);
  return {
    port,
    host: env.HOST || '127.0.0.1',
    basePath: base,
    ...(url ? { databaseUrl: url } : {}),
    dataDir: dataDir(env),
    logLevel: oneOf(env, 'LOG_LEVEL', logLevels, 'info'),
    jwt: jwt(env),
    bodyLimit: integer(env, 'BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024),
    statementBodyLimit: integer(env, 'STATEMENT_BODY_LIMIT', 32 * 1024 * 1024, 1024, 512 * 1024 * 1024),
    importBodyLimit: integer(env, 'IMPORT_BODY_LIMIT', 256 * 1024 * 1024, 1024, 4096 * 1024 * 1024),
    importJobThreshold: integer(env, 'IMPORT_JOB_THRESHOLD', 8 * 1024 * 1024, 0, 4096 * 1024 * 1024),
    trustProxy: trustProxy(env),
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
    kyc: {
      validMonths: integer(env, 'KYC_VALID_MONTHS', 12, 1, 120),
      documentMaxBytes: integer(env, 'KYC_DOCUMENT_MAX_BYTES', 20 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    },
    ...(token ? { metricsToken: token } : {}),
    ...(listen ? { metricsListen: listen } : {}),
    ...(traces ? { tracing: traces } : {}),
    portal: portal(env, port, base),
    staff: {
      sessionMinutes: integer(env, 'STAFF_SESSION_MINUTES', 30, 1, 720),
      sessionMaxHours: integer(env, 'STAFF_SESSION_MAX_HOURS', 12, 1, 168),
      invitationDays: integer(env, 'STAFF_INVITATION_DAYS', 7, 1, 90),
    },
    ...(oidc ? { oidc } : {}),
    ...(kyc ? { kycProvider: kyc } : {}),
    mail: mailConfig(env),
    ...(seal ? { seal } : {}),
    documentStore: documentStoreConfig(env),
  };
}
