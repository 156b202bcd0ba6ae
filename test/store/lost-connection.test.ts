// A pooled connection that the server ends while the service holds it (inside a transaction, between
// two statements) fails that transaction, and only that: the process goes on and the pool serves the
// next request on a new connection. pg-pool listens for a lost connection only while it is idle;
// before the store listened on every connection, such a loss was an uncaught 'error' that ended the
// process (seen when a replica or a primary was stopped under a test).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { onPostgres, openTestDatabase, type TestDatabase, testDatabaseUrl } from '../support/app.ts';

describe('a connection lost while checked out', { skip: onPostgres ? false : 'needs PostgreSQL: PGlite has no connections to lose' }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(async () => {
    await database.close();
  });

  test("fails its transaction with the server's reason; the process and the pool go on", async () => {
    const uncaught: Error[] = [];
    const onUncaught = (err: Error) => uncaught.push(err);
    process.prependListener('uncaughtException', onUncaught);
    const killer = new pg.Client({ connectionString: testDatabaseUrl });
    await killer.connect();
    try {
      const attempt = database.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await killer.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
        // The server's notice arrives while the connection is checked out and idle.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await sql`select 1`.execute(trx);
      });
      await assert.rejects(attempt, /terminat|connection error/i);
      assert.deepEqual(
        uncaught.map((e) => e.message),
        [],
        'no error escaped to the process',
      );
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      assert.equal(rows[0]!.one, 1, 'the pool serves on a new connection');
    } finally {
      process.removeListener('uncaughtException', onUncaught);
      await killer.end();
    }
  });
});
