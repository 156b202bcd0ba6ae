// Composition root: config → database → app → listen, and a graceful shutdown.
import type { Config } from './config.ts';
import { buildApp } from './http/app.ts';
import { Caches, connectCaches } from './operations/caches.ts';
import { newUuid, systemClock } from './operations/deps.ts';
import { purgeExpiredKeys } from './operations/idempotency.ts';
import { seedDemo } from './operations/seed.ts';
import { createToken } from './operations/tokens.ts';
import { createDispatcher, type Dispatcher } from './operations/webhook-dispatcher.ts';
import { openDatabase } from './store/database.ts';
import { migrateToLatest } from './store/migrate.ts';
import { hasLiveAdminToken } from './store/tokens.ts';

const PURGE_INTERVAL_MS = 10 * 60_000;

export interface ServeOptions {
  /** First run on the embedded database: seed the demo deal (issue #3's `--no-demo` turns it off). */
  demo?: boolean;
  /** Where first-run notices go (the admin token, the URLs). */
  print?: (line: string) => void;
}

export interface RunningService {
  url: string;
  close(): Promise<void>;
}

export async function serve(config: Config, options: ServeOptions = {}): Promise<RunningService> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const logger = {
    level: config.logLevel,
    // Tokens and secrets never reach the logs.
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.token', '*.secret'], censor: '[redacted]' },
  };
  let log: { warn: (obj: object, msg: string) => void } | undefined;
  // A pooled connection whose server went away; the pool replaces it, requests meanwhile get 503.
  const database = await openDatabase(config, { onPoolError: (err) => log?.warn({ err }, 'idle database connection failed') });
  const { db } = database;
  await migrateToLatest(db);

  const firstRun: string[] = [];
  if (database.kind === 'pglite' && !(await hasLiveAdminToken(db))) {
    const created = await createToken(db, { name: 'first-run admin', role: 'admin' });
    firstRun.push(`Admin token (shown once, keep it): ${created.token}`);
    if (options.demo !== false) {
      const demo = await seedDemo({ db, clock: systemClock, newId: newUuid });
      if (demo.created) firstRun.push(`Demo deal:  ${demo.dealId} (${demo.investors} investors; see README "Management API and journeys")`);
    }
  }

  // Token lookups and workflow structures are cached; other instances' changes arrive by NOTIFY.
  const caches = new Caches();
  const unlisten = await connectCaches(database, caches);
  // Read replicas (README, "Read replicas"): list reads pick one per request; writes answer with a token.
  const replicas =
    config.databaseReplicaUrls.length > 0
      ? { reader: database.reader, consistencyToken: database.consistencyToken, replicaStatus: database.replicaStatus }
      : {};
  const app = await buildApp({ db, config, clock: systemClock, newId: newUuid, caches, ...replicas }, { logger });
  log = app.log;
  const address = await app.listen({ port: config.port, host: config.host });
  const url = `${address}${config.basePath}`;
  app.log.info({ url, backOffice: `${url}/app/`, database: database.kind }, 'dealflow listening');
  // Issue #6: the webhook dispatcher runs beside the API unless WEBHOOKS_DISPATCHER=off (then run
  // `dealflow worker` against the same PostgreSQL, or nothing is delivered).
  let dispatcher: Dispatcher | undefined;
  if (config.webhooksDispatcher) {
    dispatcher = createDispatcher({
      db,
      clock: systemClock,
      timeoutMs: config.webhooksTimeoutMs,
      pollMs: config.webhooksPollMs,
      log: app.log.child({ component: 'webhooks' }),
    });
    dispatcher.start();
  }
  for (const line of firstRun) print(line);
  if (firstRun.length > 0) {
    print(`Back office: ${url}/app/`);
    print(`API docs:   ${url}/docs`);
    print(`Health:     ${url}/healthz`);
    print(`Try:        curl -H "Authorization: Bearer <token>" ${url}/whoami`);
    if (firstRun.some((line) => line.startsWith('Demo deal'))) {
      print(`            curl -H "Authorization: Bearer <token>" "${url}/deals/deal/demo/all-investor-workflows?limit=5"`);
    }
  }

  // Expired idempotency keys are already ignored; this only keeps the table small. Every instance
  // runs it; the deletes are idempotent.
  const purge = () =>
    purgeExpiredKeys({ db, clock: systemClock }).then(
      (count) => count > 0 && app.log.info({ count }, 'purged expired idempotency keys'),
      (err: unknown) => app.log.warn({ err }, 'purging idempotency keys failed'),
    );
  void purge();
  const purgeTimer = setInterval(purge, PURGE_INTERVAL_MS);
  purgeTimer.unref();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      clearInterval(purgeTimer);
      await app.close(); // stops accepting, lets in-flight requests finish
      await dispatcher?.stop(); // lets attempts in flight finish (each bounded by the webhook timeout)
      await unlisten();
      caches.close();
      await database.close();
    })());
  return { url, close };
}

function untilSignalled(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/** Runs until SIGTERM or SIGINT, then shuts down gracefully. */
export async function serveUntilSignalled(config: Config, options: ServeOptions = {}): Promise<void> {
  const service = await serve(config, options);
  await untilSignalled();
  await service.close();
}

const levelRank: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: 100 };

/** JSON lines on stderr, like the service's log (the worker has no Fastify to lend its logger). */
function lineLogger(level: Config['logLevel']) {
  const write = (name: string, obj: object, msg: string) => {
    if ((levelRank[name] ?? 0) < (levelRank[level] ?? 30)) return;
    const fields = Object.fromEntries(
      Object.entries(obj).map(([k, v]) => [k, v instanceof Error ? { message: v.message, code: (v as { code?: unknown }).code } : v]),
    );
    process.stderr.write(`${JSON.stringify({ level: name, time: new Date().toISOString(), component: 'webhooks', ...fields, msg })}\n`);
  };
  return {
    info: (obj: object, msg: string) => write('info', obj, msg),
    warn: (obj: object, msg: string) => write('warn', obj, msg),
    debug: (obj: object, msg: string) => write('debug', obj, msg),
  };
}

/** `dealflow worker`: the webhook dispatcher alone, until SIGTERM or SIGINT. */
export async function runWorkerUntilSignalled(config: Config): Promise<void> {
  const database = await openDatabase(config);
  try {
    await migrateToLatest(database.db);
    const log = lineLogger(config.logLevel);
    const dispatcher = createDispatcher({
      db: database.db,
      clock: systemClock,
      timeoutMs: config.webhooksTimeoutMs,
      pollMs: config.webhooksPollMs,
      log,
    });
    dispatcher.start();
    log.info({ database: database.kind }, 'dealflow worker delivering webhooks');
    await untilSignalled();
    await dispatcher.stop();
  } finally {
    await database.close();
  }
}
