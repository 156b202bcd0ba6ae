// Composition root: config → database → app → listen, and a graceful shutdown.
import { writeSync } from 'node:fs';
import { createLogger, logOptions } from './logging.ts';
import type { Config } from './config.ts';
import { buildApp } from './http/app.ts';
import { Caches, connectCaches } from './operations/caches.ts';
import { newUuid, systemClock } from './operations/deps.ts';
import { purgeExpiredKeys, releaseOrphanedKeys } from './operations/idempotency.ts';
import { completeFirstRun } from './operations/first-run.ts';
import { sealKeyOf } from './operations/seal-key.ts';
import { startLines } from './try-lines.ts';
import { pino } from 'pino';
import { createDispatcher, type Dispatcher } from './operations/webhook-dispatcher.ts';
import { startSealer } from './operations/audit.ts';
import { startFunnelUpkeep } from './operations/funnel.ts';
import { startMail } from './operations/mail-service.ts';
import { openContentStore } from './store/content-store.ts';
import { type Database, openDatabase } from './store/database.ts';
import { migrateToLatest } from './store/migrate.ts';
import { failStaleJobs } from './operations/import-jobs.ts';
import { enableDefaultMetrics, metricsAuthorized, metricsContentType, scrapeMetrics } from './operations/metrics.ts';
import { createServer } from 'node:http';
import type { Db } from './store/schema.ts';

const PURGE_INTERVAL_MS = 10 * 60_000;

// `dealflow openapi` prints the document through the composition root: the command line does not
// reach into http/.
export { generateOpenApi } from './http/openapi.ts';

export interface ServeOptions {
  /** First run on the embedded database: seed the demo deal (`--no-demo` turns it off). */
  demo?: boolean;
  /** Where first-run notices go (the admin token, the URLs). */
  print?: (line: string) => void;
  /**
   * Opened once the service listens, on the embedded database: a channel through which commands
   * that need the database run inside the service (the `serve` command passes the CLI's). It
   * returns its own close.
   */
  openChannel?: (config: Config, database: Database) => Promise<() => Promise<void>>;
}

export interface RunningService {
  url: string;
  /** Stops gracefully; `signal` names what asked, for the log line that says it stopped. */
  close(signal?: string): Promise<void>;
}

export async function serve(config: Config, options: ServeOptions = {}): Promise<RunningService> {
  const print = options.print ?? printNow;
  // The log lines wait until the start lines are out: an operator reads where the service is
  // first, in plain lines, and then the JSON log.
  const logs = heldDestination();
  const logger = { ...logOptions(config.logLevel), stream: logs };
  try {
    return await start(config, options, print, logger);
  } finally {
    logs.release();
  }
}

async function start(config: Config, options: ServeOptions, print: (line: string) => void, logger: ReturnType<typeof logOptions>): Promise<RunningService> {
  let log: { warn: (obj: object, msg: string) => void } | undefined;
  // A pooled connection whose server went away; the pool replaces it, requests meanwhile get 503.
  const database = await openDatabase(config, { onPoolError: (err) => log?.warn({ err }, 'idle database connection failed') });
  const { db } = database;
  await migrateToLatest(db);
  // Import jobs left running by a process that stopped are reported failed (operations/import-jobs.ts).
  await failStaleJobs({ db, clock: systemClock, newId: newUuid }, { all: database.kind === 'pglite' });
  // The seal of signed PDFs: the configured key is read now (a bad one stops the start), or the
  // development seal is made at the first start and kept (operations/seal-key.ts).
  await sealKeyOf(db, config.seal, systemClock());

  // The first start of the embedded database: the admin token is printed the moment it exists,
  // and a start cut short is finished by the next one (operations/first-run.ts).
  // PGlite's data belongs to this one process (store/data-dir-lock.ts): a key still 'in-progress'
  // was claimed by a process that is gone, and its request's retry may run at once.
  if (database.kind === 'pglite') await releaseOrphanedKeys({ db, clock: systemClock });
  const firstRun =
    database.kind === 'pglite' ? await completeFirstRun({ db, clock: systemClock, newId: newUuid }, { demo: options.demo !== false, show: print }) : undefined;

  // Token lookups and workflow structures are cached; other instances' changes arrive by NOTIFY.
  const caches = new Caches();
  const unlisten = await connectCaches(database, caches);
  // Read replicas (docs/guides/postgresql-and-replicas.md): list reads pick one per request; writes answer with a token.
  const replicas =
    config.databaseReplicaUrls.length > 0
      ? { reader: database.reader, consistencyToken: database.consistencyToken, replicaStatus: database.replicaStatus }
      : {};
  // Where the contents of documents are kept (DOCUMENT_STORE): the database, or an S3 bucket.
  const contentStore = await openContentStore(config.documentStore);
  const app = await buildApp(
    { db, config, clock: systemClock, newId: newUuid, caches, ...replicas, hostStatus: database.hostStatus, listen: database.listen, contentStore },
    { logger },
  );
  log = app.log;
  const address = await app.listen({ port: config.port, host: config.host });
  const url = `${address}${config.basePath}`;
  app.log.info({ url, console: `${url}/console/`, database: database.kind, documents: config.documentStore.kind }, 'dealflow listening');
  // On the embedded database, `dealflow token`, `verify` and `backup` run here while the service
  // holds the folder (cli/service-channel.ts). Open before the start lines, so the token command
  // works as soon as they are printed; without it the service still serves.
  const closeChannel =
    options.openChannel && database.kind === 'pglite' && !config.dataDir.startsWith('memory://')
      ? await options.openChannel(config, database).catch((err: unknown) => {
          app.log.warn({ err }, 'dealflow token, verify and backup cannot run through this service: stop it to run them');
          return async () => {};
        })
      : async () => {};
  // The webhook dispatcher runs beside the API unless WEBHOOKS_DISPATCHER=off (then run
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
  // Transactional e-mails from the outbox, when SMTP_URL is set (operations/mail-service.ts).
  const mail = await startMail(config, db, database.kind === 'pglite', app.log.child({ component: 'mail' }));
  const closeMetrics = await startMetricsListener(config, db, app.log);
  // Every start says where the service is; the first one adds the demo deal and the Try-it lines
  // with the token it printed (only that start has it).
  for (const line of startLines(
    url,
    { ...(firstRun?.demo ? { demo: firstRun.demo } : {}), ...(firstRun?.token ? { token: firstRun.token } : {}) },
    config.portal.publicUrl,
  ))
    print(line);

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
  const close = (signal?: string) =>
    (closing ??= (async () => {
      const started = Date.now();
      clearInterval(purgeTimer);
      // Stops accepting and lets in-flight requests finish. A keep-alive connection whose request
      // ends during the close would otherwise stay open until its idle timeout (5 s): each one is
      // closed as soon as it is idle.
      const idleSweep = setInterval(() => app.server.closeIdleConnections(), 50);
      await app.close().finally(() => clearInterval(idleSweep));
      await closeMetrics();
      await closeChannel();
      await dispatcher?.stop(); // lets attempts in flight finish (each bounded by the webhook timeout)
      await mail.stop();
      await sealer.stop();
      await funnelUpkeep.stop();
      await unlisten();
      caches.close();
      contentStore.close();
      await database.close();
      app.log.info(
        { ...(signal ? { signal } : {}), ms: Date.now() - started },
        `dealflow stopped${signal ? ` on ${signal}` : ''}: requests in flight answered, database closed`,
      );
    })());
  return { url, close };
}

/**
 * METRICS_LISTEN: GET /metrics on an address of its own (a port the load balancer does not expose),
 * with METRICS_TOKEN also required there when it is set. Returns the function that closes it.
 */
export async function startMetricsListener(config: Config, db: Db, log: { info: (obj: object, msg: string) => void }): Promise<() => Promise<void>> {
  const listen = config.metricsListen;
  if (!listen) return async () => {};
  enableDefaultMetrics();
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only GET /metrics is served here\n');
      return;
    }
    if (!metricsAuthorized(config.metricsToken, request.headers.authorization)) {
      response
        .writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="metrics"' })
        .end('Authorization: Bearer <METRICS_TOKEN> required\n');
      return;
    }
    scrapeMetrics({ db }).then(
      (text) => response.writeHead(200, { 'content-type': metricsContentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address();
  log.info(
    {
      metrics:
        typeof address === 'object' && address ? `http://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${address.port}/metrics` : listen,
    },
    'metrics listening',
  );
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
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

/** pino's destination for the service: holds the lines written before release(), then writes them and every later one to stdout. */
function heldDestination() {
  const stdout = pino.destination({ dest: 1, sync: true });
  let held: string[] | undefined = [];
  return {
    write(line: string) {
      if (held) held.push(line);
      else stdout.write(line);
    },
    release() {
      if (!held) return;
      const lines = held;
      held = undefined;
      for (const line of lines) stdout.write(line);
    },
  };
}

/**
 * Resolves with the first SIGTERM or SIGINT. The handlers stay: a later signal changes nothing, so
 * the shutdown under way finishes. Ctrl-C under `npm start` sends SIGINT twice at once (the
 * terminal to the whole process group, and npm forwards its own), and with Node's default
 * action the second one would end the process in the middle of closing the database.
 */
function untilSignalled(): Promise<NodeJS.Signals> {
  return new Promise<NodeJS.Signals>((resolve) => {
    process.on('SIGTERM', resolve);
    process.on('SIGINT', resolve);
  });
}

/**
 * Runs until SIGTERM or SIGINT, then shuts down gracefully: no new connections, requests in flight
 * answered, background work stopped, the database (and the embedded data folder) closed, and one
 * log line saying so.
 */
export async function serveUntilSignalled(config: Config, options: ServeOptions = {}): Promise<void> {
  const service = await serve(config, options);
  const signal = await untilSignalled();
  await service.close(signal);
}

/** `dealflow worker`: the webhook and mail dispatchers alone, until SIGTERM or SIGINT. */
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
    const mail = await startMail(config, database.db, database.kind === 'pglite', log.child({ component: 'mail' }));
    const closeMetrics = await startMetricsListener(config, database.db, log);
    log.info({ database: database.kind }, 'dealflow worker delivering webhooks');
    await untilSignalled();
    await closeMetrics();
    await dispatcher.stop();
    await mail.stop();
    await sealer.stop();
    await funnelUpkeep.stop();
  } finally {
    await database.close();
  }
}
