// db/schema.sql is the schema the migrations build, as the catalogs show it (scripts/db-schema.ts):
// a migration added without `npm run db:schema` fails here, as openapi.json drifting from the routes
// fails test/http/openapi-contract.test.ts. The file is generated from PGlite, so this runs in
// both CI runs; on PostgreSQL, the test file's own freshly migrated schema must read the same.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { describeSchema, generateSchema, schemaPath } from '../../scripts/db-schema.ts';
import { onPostgres, openTestDatabase } from '../support/app.ts';

const committed = readFileSync(schemaPath, 'utf8');

/** The first lines where two texts part, for a failure a person can act on. */
function firstDifference(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const i = a.findIndex((line, n) => line !== b[n]);
  const at = i === -1 ? a.length : i;
  return `line ${at + 1}:\n  committed: ${a.slice(at, at + 3).join('\n             ')}\n  generated: ${b.slice(at, at + 3).join('\n             ')}`;
}

test('db/schema.sql is what the migrations build (regenerate with npm run db:schema)', async () => {
  const generated = await generateSchema();
  assert.ok(
    generated === committed,
    `db/schema.sql has drifted from src/store/migrations: run npm run db:schema and commit it\n${firstDifference(committed, generated)}`,
  );
});

test('PostgreSQL builds the same schema as PGlite from the migrations', { skip: onPostgres ? false : 'needs PostgreSQL (set TEST_DATABASE_URL)' }, async () => {
  const database = await openTestDatabase();
  try {
    const described = await describeSchema(database.db);
    assert.ok(described === committed, `the schema migrated on PostgreSQL differs from db/schema.sql\n${firstDifference(committed, described)}`);
  } finally {
    await database.close();
  }
});
