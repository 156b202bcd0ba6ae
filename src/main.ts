// Composition root: config → database → app → listen, and a graceful shutdown.
import { writeSync } from 'node:fs';
import { createLogger, logOptions } from './logging.ts';
import type { Config } from './config.ts';
import { buildApp } from './http/app.ts';
import { Caches, connectCaches } from './operations/caches.ts';
import { newUuid, systemClock } from './operations/deps.ts';
import { purgeExpiredKeys } from './operations/idempotency.ts';
import { completeFirstRun } from './operations/first-run.ts';
import { tryLines } from './try-lines.ts';
import { createDispatcher, type Dispatcher } from './operations/webhook-dispatcher.ts';
import { startSealer } from './operations/audit.ts';
import { startFunnelUpkeep } from './operations/funnel.ts';
import { openDatabase } from './store/database.ts';
import { migrateToLatest } from './store/migrate.ts';
import { failStaleJobs } from './operations/import-jobs.ts';

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
  const print = options.print ?? printNow;
  const logger = logOptions(config.logLevel);
  let log: { warn: (obj: object, msg: string) => void } | undefined;
  // A pooled connection whose server went away; the pool replaces it, requests meanwhile get 503.
  const database = await openDatabase(config, { onPoolError: (err) => log?.warn({ err }, 'idle database connection failed') });
  const { db } = database;
  await migrateToLatest(db);
  // Import jobs left running by a process that stopped are reported failed (operations/import-jobs.ts).
  await failStaleJobs({ db, clock: systemClock, newId: newUuid }, { all: database.kind === 'pglite' });

  // The first start of the embedded database: the admin token is printed the moment it exists,
  // and a start cut short is finished by the next one (operations/first-run.ts).
  const firstRun = database.kind === 'pglite'
    ? await completeFirstRun({ db, clock: systemClock, newId: newUuid }, { demo: options.demo !== false, show: print })
    : undefined;

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
  if (firstRun && (firstRun.token !== undefined || firstRun.resumed || firstRun.demo)) {
    if (firstRun.demo) print(`Demo deal:  ${firstRun.demo.dealId} (${firstRun.demo.investors} investors; see README "Management API and journeys")`);
    print(`Back office: ${url}/app/`);
    print(`API docs:   ${url}/docs`);
    print(`Health:     ${url}/healthz`);
    // The Try-it lines carry the real token, so they are printed only by the start that showed it.
    if (firstRun.token) for (const line of tryLines(url, firstRun.token, firstRun.demo !== undefined)) print(line);
  }

  // Audit checkpoints: every instance seals; the checkpoint number decides which one writes each.
  const sealer = startSealer({ db, clock: systemClock }, config.auditSealIntervalMs, app.log.child({ component: 'audit' }));
  // The funnel's upkeep: every instance runs it; they take turns on one row (migration 0017).
  const funnelUpkeep = startFunnelUpkeep({ db }, config.funnelUpkeepIntervalMs, app.log.child({ component: 'funnel' }));

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
      await sealer.stop();
      await funnelUpkeep.stop();
      await unlisten();
      caches.close();
      await database.close();
    })());
  return { url, close };
}

/**
 * Writes a line to stdout before returning (a synchronous write, retried while a full pipe says
 * EAGAIN): the first-run token must be out before it is recorded as shown.
 */
export function printNow(line: string): void {
  let buffer = Buffer.from(`${line}\n`);
  while (buffer.length > 0) {
    try {
      buffer = buffer.subarray(writeSync(1, buffer));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
  }
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

/** `dealflow worker`: the webhook dispatcher alone, until SIGTERM or SIGINT. */
export async function runWorkerUntilSignalled(config: Config): Promise<void> {
  const database = await openDatabase(config);
  try {
    await migrateToLatest(database.db);
    // The service's log format (logging.ts), with the component named as the service names it.
    const log = createLogger(config.logLevel).child({ component: 'webhooks' });
    const dispatcher = createDispatcher({
      db: database.db,
      clock: systemClock,
      timeoutMs: config.webhooksTimeoutMs,
      pollMs: config.webhooksPollMs,
      log,
    });
    dispatcher.start();
    const sealer = startSealer({ db: database.db, clock: systemClock }, config.auditSealIntervalMs, log.child({ component: 'audit' }));
    const funnelUpkeep = startFunnelUpkeep({ db: database.db }, config.funnelUpkeepIntervalMs, log.child({ component: 'funnel' }));
    log.info({ database: database.kind }, 'dealflow worker delivering webhooks');
    await untilSignalled();
    await dispatcher.stop();
    await sealer.stop();
    await funnelUpkeep.stop();
  } finally {
    await database.close();
  }
}
