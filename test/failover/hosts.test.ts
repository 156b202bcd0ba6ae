// Several hosts in DATABASE_URL (libpq's form; docs/guides/failover.md): how the URL is read, and
// against a real primary and standby (test/support/replica-pair.ts) that the service writes to the
// host that takes writes wherever it stands in the list, skips a host that does not answer, says in
// /readyz which host is primary, answers 503 (never 500) while no host takes writes, and finds the
// promoted standby by itself.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig, parseDatabaseUrl } from '../../src/config.ts';
import { type Api, buildApp } from '../../src/http/app.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { client, type Client, expectProblem, onPostgres } from '../support/app.ts';
import { uniqueId } from '../support/fixtures.ts';
import { createReplicaPair, type ReplicaPair, replicaPairUnavailable } from '../support/replica-pair.ts';

describe('DATABASE_URL with several hosts', () => {
  test('libpq form: hosts in order, 5432 by default, target_session_attrs taken out of what pg gets', () => {
    const parsed = parseDatabaseUrl('postgres://app:s%40cret@db1:5433,db2,[::1]:6000/deals?sslmode=disable&target_session_attrs=read-write');
    assert.deepEqual(parsed.hosts, [
      { host: 'db1', port: 5433 },
      { host: 'db2', port: 5432 },
      { host: '[::1]', port: 6000 },
    ]);
    assert.equal(parsed.targetSessionAttrs, 'read-write');
    assert.equal(parsed.urlFor(parsed.hosts[1]!), 'postgres://app:s%40cret@db2:5432/deals?sslmode=disable');
    assert.equal(parsed.urlFor(parsed.hosts[2]!), 'postgres://app:s%40cret@[::1]:6000/deals?sslmode=disable');
    // One host: the URL as given, so pg reads it as it always did.
    const one = parseDatabaseUrl('postgresql://u@db/x?application_name=a%20b');
    assert.equal(one.targetSessionAttrs, 'any');
    assert.equal(one.urlFor(one.hosts[0]!), 'postgresql://u@db/x?application_name=a%20b');
    assert.equal(parseDatabaseUrl('postgres://db1,db2/x?target_session_attrs=primary').targetSessionAttrs, 'primary');
  });

  test('config takes several hosts and refuses a malformed list with a message naming DATABASE_URL', () => {
    const url = 'postgres://postgres@h1:5432,h2:5433/db?target_session_attrs=read-write';
    assert.equal(loadConfig({ DATABASE_URL: url }).databaseUrl, url);
    for (const bad of [
      'postgres://h1:5432,,h2/db',
      'postgres://h1:99999,h2/db',
      'postgres://h1,h2:port/db',
      'postgres://h1,h2/db?target_session_attrs=standby',
      'mysql://h1,h2/db',
    ]) {
      assert.throws(
        () => loadConfig({ DATABASE_URL: bad }),
        (err: unknown) => err instanceof ConfigError && err.variable === 'DATABASE_URL',
        bad,
      );
    }
  });
});

const unavailable = !onPostgres ? 'needs PostgreSQL (set TEST_DATABASE_URL): PGlite has no hosts to choose from' : replicaPairUnavailable();

/** A loopback port nothing listens on: a host that has vanished. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });

describe('host selection on a primary and a standby', { skip: unavailable }, () => {
  let pair: ReplicaPair;
  let hostOf: (url: string) => string;
  let closed: number;
  const opened: { app: Api; database: Database }[] = [];
  const instance = async (databaseUrl: string) => {
    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, DATABASE_TIMEOUT_MS: '2000' });
    const database = await openDatabase(config);
    const app = await buildApp({ db: database.db, config, clock: systemClock, newId: newUuid, hostStatus: database.hostStatus });
    await app.ready();
    opened.push({ app, database });
    return { app, database };
  };
  let primaryFirst: { admin: Client; public: Client };

  before(async () => {
    pair = await createReplicaPair();
    hostOf = (url) => new URL(url).host;
    closed = await closedPort();
    // The primary last, behind a host that is gone and the standby.
    const url = `postgres://postgres@127.0.0.1:${closed},${hostOf(pair.replicaUrl)},${hostOf(pair.primaryUrl)}/postgres?target_session_attrs=read-write`;
    const { app, database } = await instance(url);
    await migrateToLatest(database.db);
    const token = (await createToken(database.db, { name: 'hosts test', role: 'admin' })).token;
    primaryFirst = { admin: client(app, token), public: client(app) };
  });
  after(async () => {
    for (const { app, database } of opened) {
      await app.close();
      await database.close();
    }
    pair?.destroy();
  });

  test('target_session_attrs=read-write: writes go to the primary wherever it is listed; /readyz names it', async () => {
    const dealId = uniqueId('hosts');
    const created = await primaryFirst.admin.put(`/deals/deal/${dealId}`, { name: 'Hosts' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const ready = await primaryFirst.public.get('/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.primary, hostOf(pair.primaryUrl));
    assert.deepEqual(
      ready.body.hosts.map((h: { name: string; role: string }) => [h.name, h.role]),
      [
        [`127.0.0.1:${closed}`, 'unreachable'],
        [hostOf(pair.replicaUrl), 'standby'],
        [hostOf(pair.primaryUrl), 'primary'],
      ],
    );
  });

  test('without target_session_attrs the first host that answers is taken, as libpq does: a write on a standby is a 503, not a 500', async () => {
    const { app, database } = await instance(`postgres://postgres@${hostOf(pair.replicaUrl)},${hostOf(pair.primaryUrl)}/postgres`);
    // The token is made on the primary; the standby has it once it has replayed it (a 503 before).
    const token = (await createToken(opened[0]!.database.db, { name: 'standby test', role: 'admin' })).token;
    const admin = client(app, token);
    // The standby answers statements and is where connections go, but takes no write: /readyz,
    // whose heartbeat commits a write, says the instance is not ready.
    const notReady = expectProblem(await client(app).get('/readyz'), 503);
    assert.match(notReady.detail, /read-only|recovery/);
    const refused = await admin.put(`/deals/deal/${uniqueId('standby')}`, { name: 'On a standby' });
    expectProblem(refused, 503);
    assert.ok(refused.headers['retry-after'], 'a 503 says when to retry');
    assert.equal((await database.hostStatus())?.primary, hostOf(pair.replicaUrl), 'connections still go to the first host that answers');
  });

  test('after the primary is lost: 503 while no host takes writes, then the promoted standby is found by itself', async () => {
    pair.stopPrimary();
    const during = await primaryFirst.admin.put(`/deals/deal/${uniqueId('lost')}`, { name: 'While none takes writes' });
    expectProblem(during, 503);
    assert.ok(during.headers['retry-after']);
    const notReady = await primaryFirst.public.get('/readyz');
    expectProblem(notReady, 503);
    // Many at once share one search for a host, and each gets its 503 within the timeout.
    const started = performance.now();
    const many = await Promise.all(Array.from({ length: 8 }, (_, i) => primaryFirst.admin.put(`/deals/deal/${uniqueId(`lost${i}`)}`, { name: 'Many' })));
    for (const response of many) expectProblem(response, 503);
    assert.ok(performance.now() - started < 2 * 2000 + 1000, `8 requests waited ${Math.round(performance.now() - started)} ms`);

    pair.promoteReplica();
    let served: Awaited<ReturnType<typeof primaryFirst.admin.put>> | undefined;
    for (let i = 0; i < 100; i++) {
      served = await primaryFirst.admin.put(`/deals/deal/${uniqueId('promoted')}`, { name: 'On the promoted standby' });
      if (served.status === 201) break;
      assert.equal(served.status, 503, `only 503 while the standby is promoted, got ${served.status}: ${JSON.stringify(served.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(served?.status, 201, JSON.stringify(served?.body));
    const ready = await primaryFirst.public.get('/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.primary, hostOf(pair.replicaUrl));
    const roles = Object.fromEntries(ready.body.hosts.map((h: { name: string; role: string }) => [h.name, h.role]));
    assert.equal(roles[hostOf(pair.primaryUrl)], 'unreachable');
    assert.equal(roles[hostOf(pair.replicaUrl)], 'primary');
  });
});
