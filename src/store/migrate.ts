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
  // Kysely looks for its own tables in every schema unless told which one: with several schemas in
  // one database (each test file's, or other installations') it would find another schema's
  // kysely_migration and skip creating ours. Pin it to the schema this connection works in.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrator = new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder: folder }),
    ...(rows[0]?.schema ? { migrationTableSchema: rows[0].schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return results ?? [];
}
