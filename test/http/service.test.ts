// Probes, BASE_PATH, rate limiting, an unreachable database, migrations, and the OpenAPI document.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import { generateOpenApi } from '../../src/http/openapi.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { openDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { client, expectProblem, openTestDatabase, startApp, testDatabaseUrl } from '../support/app.ts';

describe('probes and prefix', () => {
  const t = startApp({ env: { BASE_PATH: '/kong/core/api/gateway' } });

  test('healthz and readyz answer without a token under BASE_PATH', async () => {
    const c = client(t.app, undefined, '/kong/core/api/gateway');
    assert.deepEqual((await c.get('/healthz')).body, { status: 'ok' });
    assert.deepEqual((await c.get('/readyz')).body, { status: 'ready' });
  });

  test('routes live only under BASE_PATH', async () => {
    const prefixed = client(t.app, t.adminToken, '/kong/core/api/gateway');
    assert.equal((await prefixed.get('/whoami')).status, 200);
    expectProblem(await client(t.app, t.adminToken).get('/whoami'), 404);
  });

  test('the OpenAPI document and Swagger UI are served', async () => {
    const c = client(t.app, undefined, '/kong/core/api/gateway');
    const doc = await c.get('/openapi.json');
    assert.equal(doc.body.openapi, '3.1.0');
    assert.ok(doc.body.paths['/whoami'], 'paths are relative to the server URL');
    assert.deepEqual(doc.body.servers, [{ url: '/kong/core/api/gateway' }]);
    assert.equal((await c.get('/docs/')).status, 200);
  });

  test('every response carries a request id, and problems quote it', async () => {
    const response = await client(t.app, undefined, '/kong/core/api/gateway').get('/whoami', { 'x-request-id': 'trace-42' });
    assert.equal(response.headers['x-request-id'], 'trace-42');
    assert.equal(response.body.requestId, 'trace-42');
  });
});

describe('rate limiting', () => {
  const t = startApp({ env: { RATE_LIMIT_PER_MINUTE: '3' } });

  test('past the limit a token gets 429 with Retry-After, and other tokens are unaffected', async () => {
    const admin = client(t.app, t.adminToken);
    for (let i = 0; i < 3; i++) assert.equal((await admin.get('/whoami')).status, 200);
    const limited = await admin.get('/whoami');
    const problem = expectProblem(limited, 429);
    assert.equal(problem.type, 'urn:dealflow:problem:rate-limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await client(t.app, await t.investorToken('inv-r')).get('/whoami')).status, 200);
  });
});

describe('an unreachable database', () => {
  test('readyz and authenticated routes answer 503 problems promptly, healthz stays up', async () => {
    // Nothing listens on port 1: every connection attempt is refused.
    const config = loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', DATABASE_TIMEOUT_MS: '500', LOG_LEVEL: 'silent' });
    const database = await openDatabase(config);
    const app = await buildApp({ db: database.db, config, clock: systemClock, newId: newUuid });
    try {
      const c = client(app, 'dfk_whatever');
      const started = Date.now();
      const ready = await c.get('/readyz');
      expectProblem(ready, 503);
      assert.equal(ready.headers['retry-after'], '5');
      const problem = expectProblem(await c.get('/whoami'), 503);
      assert.equal(problem.type, 'urn:dealflow:problem:database-unavailable');
      assert.doesNotMatch(JSON.stringify(problem), /ECONNREFUSED|127\.0\.0\.1:1/, 'no internals in the problem');
      assert.ok(Date.now() - started < 5000, 'no unbounded wait');
      assert.equal((await c.get('/healthz')).status, 200);
    } finally {
      await app.close();
      await database.close();
    }
  });
});

describe('migrations', () => {
  test('running them twice changes nothing', async () => {
    const database = await openTestDatabase(); // already migrated once
    try {
      const again = await migrateToLatest(database.db);
      assert.deepEqual(again, []);
      const tables = await database.db.introspection.getTables();
      assert.ok(tables.some((table) => table.name === 'api_tokens'));
    } finally {
      await database.close();
    }
  });
});

describe('the committed OpenAPI document', () => {
  test('equals the generated one (run `npm run openapi` after changing a route)', async () => {
    const committed = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
    const generated = await generateOpenApi(loadConfig({ LOG_LEVEL: 'silent' }));
    assert.deepEqual(generated, committed);
  });
});

describe('migrations beside another copy of the schema', () => {
  // Found by the reliability suite: the migrator found another schema's kysely_migration tables
  // (another test run on the same server) and then failed to read its own.
  test('migrate in a fresh schema while another schema holds migration tables', async () => {
    const { schema, open, drop } = await unmigratedDatabase();
    try {
      const db = await open();
      try {
        await sql`create schema ${sql.id(`${schema}_decoy`)}`.execute(db.db);
        await sql`create table ${sql.id(`${schema}_decoy`, 'kysely_migration')} (name varchar(255) primary key, timestamp varchar(255))`.execute(db.db);
        await sql`create table ${sql.id(`${schema}_decoy`, 'kysely_migration_lock')} (id varchar(255) primary key, is_locked integer)`.execute(db.db);
        const applied = await migrateToLatest(db.db);
        assert.ok(applied.length > 0);
        assert.deepEqual(await migrateToLatest(db.db), []);
      } finally {
        await sql`drop schema ${sql.id(`${schema}_decoy`)} cascade`.execute(db.db);
        await db.close();
      }
    } finally {
      await drop();
    }
  });
});

/** A database (PGlite in memory, or a fresh schema on TEST_DATABASE_URL) that is not migrated yet. */
async function unmigratedDatabase() {
  const schema = `test_${randomUUID().replace(/-/g, '')}`;
  const base = loadConfig({});
  if (!testDatabaseUrl) {
    return { schema, open: () => openDatabase({ ...base, dataDir: 'memory://' }), drop: async () => {} };
  }
  const run = async (text: string) => {
    const client = new pg.Client({ connectionString: testDatabaseUrl });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await run(`create schema ${schema}`);
  return {
    schema,
    open: () => openDatabase({ ...base, databaseUrl: testDatabaseUrl }, { schema }),
    drop: () => run(`drop schema ${schema} cascade`),
  };
}
