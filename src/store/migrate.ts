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
  // Kysely looks for its lock table in every schema unless told which one: a second schema on the
  // same server (test runs each use their own) would make it skip creating ours. Name ours.
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
