// Runs the migrations in store/migrations (files sorted by name). Running them again changes
// nothing; on PostgreSQL, Kysely's migrator holds an advisory lock so instances starting together
// migrate once.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { FileMigrationProvider, type MigrationResult, Migrator } from 'kysely/migration';

const folder = fileURLToPath(new URL('./migrations', import.meta.url));

export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResult[]> {
  const migrator = new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder: folder }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return results ?? [];
}
