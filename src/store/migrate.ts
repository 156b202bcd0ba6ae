// Runs the migrations in store/migrations (files sorted by name). Running them again changes
// nothing; on PostgreSQL, Kysely's migrator holds an advisory lock so instances starting together
// migrate once.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Kysely, sql } from 'kysely';
import { FileMigrationProvider, type MigrationResult, Migrator } from 'kysely/migration';

const folder = fileURLToPath(new URL('./migrations', import.meta.url));

function migrator(db: Kysely<any>, schema: string) {
  return new Migrator({ db, provider: new FileMigrationProvider({ fs, path, migrationFolder: folder }), migrationTableSchema: schema });
}

export interface SchemaStatus {
  /** Migrations this version of the code has, and how many of them the database has applied. */
  known: number;
  applied: number;
  /** The newest migration applied. */
  latest: string | undefined;
}

/** Where the database's schema stands against this version's migrations. */
export async function schemaStatus(db: Kysely<any>): Promise<SchemaStatus> {
  // Read from the current schema's own migration table, not through Kysely's migrator, whose
  // introspection looks up every schema of the database by name and fails when another one is
  // dropped meanwhile (a test file's schema on a shared server).
  const known = Object.keys(await new FileMigrationProvider({ fs, path, migrationFolder: folder }).getMigrations()).sort();
  const { rows: table } = await sql<{ exists: boolean }>`
    select to_regclass(quote_ident(current_schema()) || '.kysely_migration') is not null as exists`.execute(db);
  if (!table[0]!.exists) return { known: known.length, applied: 0, latest: undefined };
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  const applied = rows.map((row) => row.name).filter((name) => known.includes(name));
  return { known: known.length, applied: applied.length, latest: applied.at(-1) };
}

export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResult[]> {
  // Kysely looks for its migration tables in every schema unless told which one: with another
  // schema holding them (a test file running beside this one, another app in the database) it
  // would skip creating its own and fail (42P01). Ours live in the current schema.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrations = migrator(db, rows[0]!.schema);
  // Before migrating, Kysely's introspection lists the tables of every schema and looks each
  // schema and table up by name (has_schema_privilege, pg_get_serial_sequence): one dropped
  // meanwhile by someone else (another test file's schema, on a shared server) fails that with
  // 3F000 or 42P01, and one whose columns change meanwhile (that schema being migrated) with 42703.
  // Nothing was migrated then (migrations run in one transaction): try again.
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrations.migrateToLatest();
    if (!error) return results ?? [];
    const code = (error as { code?: unknown }).code;
    if (attempt >= 5 || (code !== '3F000' && code !== '42P01' && code !== '42703')) throw error;
  }
}
