// Composition root: config → database → app → listen, and a graceful shutdown.
import type { Config } from './config.ts';
import { buildApp } from './http/app.ts';
import { newUuid, systemClock } from './operations/deps.ts';
import { purgeExpiredKeys } from './operations/idempotency.ts';
import { createToken } from './operations/tokens.ts';
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
  }

  const app = await buildApp({ db, config, clock: systemClock, newId: newUuid }, { logger });
  log = app.log;
  const address = await app.listen({ port: config.port, host: config.host });
  const url = `${address}${config.basePath}`;
  app.log.info({ url, backOffice: `${url}/app/`, database: database.kind }, 'dealflow listening');
  for (const line of firstRun) print(line);
  if (firstRun.length > 0) {
    print(`Back office: ${url}/app/`);
    print(`API docs:   ${url}/docs`);
    print(`Health:     ${url}/healthz`);
    print(`Try:        curl -H "Authorization: Bearer <token>" ${url}/whoami`);
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
      await database.close();
    })());
  return { url, close };
}

/** Runs until SIGTERM or SIGINT, then shuts down gracefully. */
export async function serveUntilSignalled(config: Config, options: ServeOptions = {}): Promise<void> {
  const service = await serve(config, options);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  await service.close();
}
