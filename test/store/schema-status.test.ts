// Where the schema stands against the code's migrations: what `dealflow verify` and /readyz report.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { schemaStatus } from '../../src/store/migrate.ts';
import { openTestDatabase, type TestDatabase } from '../support/app.ts';

const files = readdirSync(new URL('../../src/store/migrations/', import.meta.url))
  .filter((name) => name.endsWith('.ts'))
  .sort();
const names = files.map((name) => name.replace(/\.ts$/, ''));

describe('schema status', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(async () => {
    await database.close();
  });

  test('a migrated database has every migration of this version applied, the newest last', async () => {
    assert.deepEqual(await schemaStatus(database.db), { known: names.length, applied: names.length, latest: names.at(-1) });
  });

  test('a migration the database lacks is counted as not applied, and the latest is the one before', async () => {
    const newest = names.at(-1)!;
    const row = (await sql<{ timestamp: string }>`select timestamp from kysely_migration where name = ${newest}`.execute(database.db)).rows[0]!;
    await sql`delete from kysely_migration where name = ${newest}`.execute(database.db);
    try {
      assert.deepEqual(await schemaStatus(database.db), { known: names.length, applied: names.length - 1, latest: names.at(-2) });
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${newest}, ${row.timestamp})`.execute(database.db);
    }
  });
});
