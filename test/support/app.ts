// Each test file gets its own database: an in-memory PGlite (started from a migrated dump), or (with TEST_DATABASE_URL) a fresh
// schema on that PostgreSQL server, dropped at the end. Tests create their own data, so they never
// depend on each other.
import { randomUUID } from 'node:crypto';
import { after, before } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { type Config, loadConfig } from '../../src/config.ts';
import { type Api, buildApp } from '../../src/http/app.ts';
import { Caches, connectCaches } from '../../src/operations/caches.ts';
import { type Clock, newUuid, systemClock } from '../../src/operations/deps.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { openContentStore } from '../../src/store/content-store.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { assertMatchesContract } from './contract.ts';
import { migratedPGliteDump } from './pglite-dump.ts';

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;
export const onPostgres = testDatabaseUrl !== undefined;
/** For tests that need real concurrency: PGlite runs one query at a time. */
export const skipUnlessPostgres = onPostgres ? false : 'needs PostgreSQL (set TEST_DATABASE_URL); PGlite runs one query at a time';

export interface TestDatabase extends Database {
  /** PostgreSQL only: the schema this test file runs in. */
  schema?: string;
}

/** `env` may tune the connection (DATABASE_TIMEOUT_MS, DATABASE_POOL_SIZE); the URL is the test one. */
export async function openTestDatabase(env: Record<string, string> = {}): Promise<TestDatabase> {
  const base = loadConfig({ ...env, DATABASE_URL: '' });
  if (!testDatabaseUrl) {
    // From a dump of an empty database migrated by exactly these migrations (pglite-dump.ts names it
    // by their hash), so it is not migrated again: checking costs a third of a second per test file.
    return openDatabase({ ...base, dataDir: 'memory://' }, { pgliteDump: await migratedPGliteDump() });
  }
  const schema = `test_${randomUUID().replace(/-/g, '')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  // Extensions belong to the database: in public, never in a test schema whose drop would take it
  // (and every other schema's trigram indexes) along. Test files starting together take turns.
  await admin.query(`select pg_advisory_lock(hashtext('dealflow test extensions'))`);
  try {
    await admin.query('create extension if not exists pg_trgm with schema public');
    await admin.query('create extension if not exists btree_gin with schema public');
  } finally {
    await admin.query(`select pg_advisory_unlock(hashtext('dealflow test extensions'))`);
  }
  await admin.query(`create schema ${schema}`);
  await admin.end();
  // Migrated on a connection of its own with a long timeout: Kysely's migration lock is one for the
  // whole server, so test files starting together wait for each other's migrations, longer than a
  // statement may take under the test's own timeout when the machine is busy.
  const migrating = await openDatabase({ ...base, databaseUrl: testDatabaseUrl, databaseTimeoutMs: 120_000 }, { schema });
  try {
    await migrateToLatest(migrating.db);
  } finally {
    await migrating.close();
  }
  const database = await openDatabase({ ...base, databaseUrl: testDatabaseUrl }, { schema });
  return {
    ...database,
    schema,
    async close() {
      await database.close();
      const cleanup = new pg.Client({ connectionString: testDatabaseUrl });
      await cleanup.connect();
      await cleanup.query(`drop schema ${schema} cascade`);
      await cleanup.end();
    },
  };
}

export interface TestApp {
  app: Api;
  database: TestDatabase;
  config: Config;
  /** The app's caches, connected to the database's invalidations as in production. */
  caches: Caches;
  adminToken: string;
  /** A new API key bound to this investor. */
  investorToken(investorUserId: string): Promise<string>;
  close(): Promise<void>;
}

export async function startTestApp(options: { env?: Record<string, string>; clock?: Clock } = {}): Promise<TestApp> {
  const database = await openTestDatabase(options.env);
  const config = loadConfig({ LOG_LEVEL: 'silent', ...options.env });
  const caches = new Caches();
  const unlisten = await connectCaches(database, caches);
  const contentStore = await openContentStore(config.documentStore);
  const app = await buildApp({ db: database.db, config, clock: options.clock ?? systemClock, newId: newUuid, caches, listen: database.listen, contentStore });
  await app.ready();
  checkResponses(app, config.basePath);
  const admin = await createToken(database.db, { name: 'test admin', role: 'admin' });
  return {
    app,
    database,
    config,
    caches,
    adminToken: admin.token,
    investorToken: async (investorUserId) => (await createToken(database.db, { name: `investor ${investorUserId}`, role: 'investor', investorUserId })).token,
    async close() {
      await app.close();
      await unlisten();
      caches.close();
      contentStore.close();
      await database.close();
    },
  };
}

export interface StartedApp extends TestApp {
  /** A client with the admin token, every response checked against openapi.json. */
  admin: Client;
}

export interface StartAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Runs in the before() hook before the app starts: for a service it needs that `env` names (an S3 bucket). */
  beforeStart?: () => Promise<void> | void;
  /** Runs in the after() hook before the app closes: for what the tests opened on its database. */
  beforeClose?: () => Promise<void> | void;
  /** Runs in the after() hook once the app has closed: for what beforeStart started. */
  afterClose?: () => Promise<void> | void;
}

/**
 * The app of a test file or `describe` block: started in a before() hook (a fresh database, as
 * startTestApp) and closed in an after() hook, both registered here. The returned object stands
 * for the started app from the first test or hook on; `admin` may be taken at once (its calls go
 * to the app once it runs). A test that needs an app of its own calls startTestApp itself.
 */
export function startApp(options: StartAppOptions = {}): StartedApp {
  let started: TestApp | undefined;
  const running = (): TestApp => {
    if (!started) throw new Error('the app starts in a before() hook: use it inside a test or a later hook');
    return started;
  };
  const admin: Client = {
    get: (...args) => client(running().app, running().adminToken).get(...args),
    post: (...args) => client(running().app, running().adminToken).post(...args),
    put: (...args) => client(running().app, running().adminToken).put(...args),
    delete: (...args) => client(running().app, running().adminToken).delete(...args),
    raw: (...args) => client(running().app, running().adminToken).raw(...args),
  };
  before(async () => {
    await options.beforeStart?.();
    started = await startTestApp(options);
  });
  after(async () => {
    try {
      if (!started) return;
      try {
        await options.beforeClose?.();
      } finally {
        await started.close();
      }
    } finally {
      await options.afterClose?.();
    }
  });
  return new Proxy({ admin } as StartedApp, {
    get: (target, key) => (key === 'admin' ? target.admin : Reflect.get(running(), key)),
  });
}

const checkedApps = new WeakSet<Api>();

/**
 * From now on every `app.inject(options)` of this app checks its response against the committed
 * openapi.json (status declared, media type, body, required headers) and fails the test when it
 * drifts. startTestApp and client() do it, so every test's responses are checked.
 */
export function checkResponses(app: Api, basePath: string): Api {
  if (checkedApps.has(app)) return app;
  checkedApps.add(app);
  const inject = app.inject.bind(app) as (options?: unknown, callback?: unknown) => unknown;
  const checkedInject = (options?: InjectOptions | string, callback?: unknown) => {
    // The chained form (no options) and the callback form are left as they are; tests use neither.
    if (options === undefined || callback !== undefined) return inject(options, callback);
    const request: InjectOptions = typeof options === 'string' ? { url: options } : options;
    return (inject(request) as Promise<LightMyRequestResponse>).then((response) => {
      const url = typeof request.url === 'string' ? request.url : typeof request.path === 'string' ? request.path : undefined;
      if (url !== undefined) {
        assertMatchesContract({
          method: String(request.method ?? 'GET').toUpperCase(),
          url: basePath && url.startsWith(basePath) ? url.slice(basePath.length) || '/' : url,
          status: response.statusCode,
          headers: response.headers,
          text: response.body,
        });
      }
      return response;
    });
  };
  (app as { inject: unknown }).inject = checkedInject;
  return app;
}

/** A small client over app.inject(): JSON in, parsed JSON out; every response checked against openapi.json. */
export function client(app: Api, token?: string, basePath = '') {
  checkResponses(app, basePath);
  const call = async (method: InjectOptions['method'], url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response: LightMyRequestResponse = await app.inject({
      method,
      url: basePath + url,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = response.body;
    let json: any;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body: json, text };
  };
  return {
    get: (url: string, headers?: Record<string, string>) => call('GET', url, undefined, headers),
    post: (url: string, body?: unknown, headers?: Record<string, string>) => call('POST', url, body, headers),
    put: (url: string, body?: unknown, headers?: Record<string, string>) => call('PUT', url, body, headers),
    delete: (url: string, headers?: Record<string, string>) => call('DELETE', url, undefined, headers),
    raw: (options: InjectOptions) => app.inject(options),
  };
}

export type Client = ReturnType<typeof client>;

/** Asserts a response is an RFC 9457 problem document with this status and returns it. */
export function expectProblem(response: { status: number; headers: Record<string, unknown>; body: any }, status: number) {
  if (response.status !== status) {
    throw new Error(`expected status ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
  }
  const contentType = String(response.headers['content-type'] ?? '');
  if (!contentType.startsWith('application/problem+json')) throw new Error(`expected a problem document, got ${contentType}`);
  for (const member of ['type', 'title', 'status', 'detail']) {
    if (!(member in response.body)) throw new Error(`problem document lacks "${member}": ${JSON.stringify(response.body)}`);
  }
  if (response.body.status !== status) throw new Error(`problem status ${response.body.status} != ${status}`);
  return response.body as {
    type: string;
    title: string;
    status: number;
    detail: string;
    errors?: { in: string; field: string; detail: string }[];
    [k: string]: unknown;
  };
}
