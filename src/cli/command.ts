// What every subcommand is, and the database each one opens: a module of its own, so that the table
// of commands (commands.ts) and the subcommands in files of their own (reconcile.ts) import it one way.
import type { ParseArgsOptionsConfig } from 'node:util';
import type { Config } from '../config.ts';
import { type Database, openDatabase } from '../store/database.ts';
import { migrateToLatest } from '../store/migrate.ts';

export interface Command {
  summary: string;
  help: string;
  options: ParseArgsOptionsConfig;
  run(config: Config, values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number | void>;
}

/** Opens the database the service would use, migrated to the latest version, for the work; then closes it. */
export async function withDatabase<T>(config: Config, work: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase(config);
  try {
    await migrateToLatest(database.db);
    return await work(database);
  } finally {
    await database.close();
  }
}
