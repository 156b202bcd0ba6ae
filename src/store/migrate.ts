// Runs the migrations in store/migrations (files sorted by name). Running them again changes
// nothing; on PostgreSQL, Kysely's migrator holds an advisory lock so instances starting together
// migrate once.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Kysely, sql } from 'kysely';
import { FileMigrationProvider, type MigrationResult, Migrator } from 'kysely/migration';

const folder = fileURLToPath(new URL('./migrations', import.meta.url));

export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResult[]> {
  // Name the schema of the migration tables: without it Kysely looks for them in every schema, so
  // one database holding several schemas (tests run one per file, at the same time) could see
  // another schema's kysely_migration, skip creating its own, and fail with 42P01.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrator = new Migrator({
    db,
    migrationTableSchema: rows[0]!.schema,
    provider: new FileMigrationProvider({ fs, path, migrationFolder: folder }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return results ?? [];
}
