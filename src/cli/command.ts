// What every subcommand is, and the database each one opens: a module of its own, so that the table
// of commands (commands.ts), the subcommands in files of their own (reconcile.ts) and the channel
// through a running service (service-channel.ts) import it one way.
import { AppError } from '../domain/errors.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ParseArgsOptionsConfig } from 'node:util';
import type { Config } from '../config.ts';
import type { Database } from '../store/database.ts';

export interface Command {
  summary: string;
  help: string;
  options: ParseArgsOptionsConfig;
  /** Its positional arguments are files: made absolute before they reach a running service, whose working directory differs. */
  resolvesPaths?: boolean;
  run(config: Config, values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number | void>;
}

/**
 * Set while a command runs inside the service that holds the embedded database (service-channel.ts):
 * the command uses that database, and its lines go back to the command line that asked.
 */
export const inService = new AsyncLocalStorage<{ database: Database; out: (line: string) => void }>();

/**
 * Opens the database the service would use, migrated to the latest version, for the work; then
 * closes it. Inside the service, the service's own database. The store loads when a command needs
 * it: `dealflow --help` has no need of it.
 */
export async function withDatabase<T>(config: Config, work: (database: Database) => Promise<T>): Promise<T> {
  const service = inService.getStore();
  if (service) return work(service.database);
  const [{ openDatabase }, { migrateToLatest }] = await Promise.all([import('../store/database.ts'), import('../store/migrate.ts')]);
  const database = await openDatabase(config);
  try {
    await migrateToLatest(database.db);
    return await work(database);
  } finally {
    await database.close();
  }
}

/** A line of output: to the service's channel when the command runs inside the service, else stdout. */
export const out = (line = '') => {
  const service = inService.getStore();
  if (service) service.out(line);
  else process.stdout.write(`${line}\n`);
};

/** A progress bar on a terminal; nothing when stderr is a file or a pipe. */
export function progressBar(label: string) {
  const started = Date.now();
  return (done: number, total: number) => {
    if (!process.stderr.isTTY) return;
    const width = 30;
    const filled = Math.round((done / total) * width);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${seconds}s`);
    if (done >= total) process.stderr.write('\n');
  };
}

export function positiveInteger(value: string | boolean | undefined, option: string, max: number): number {
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new AppError('validation', `${option} must be a whole number from 1 to ${max}`);
  }
  return Number(value);
}
