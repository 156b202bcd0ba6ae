// Reads across a PostgreSQL streaming replica (docs/guides/postgresql-and-replicas.md), against a real replica the
// test makes itself (a throwaway primary and a pg_basebackup -R copy of it: test/support/replica-pair.ts).
// Replay is paused on the replica to make it stale on purpose, which shows where each read went:
// list reads without a token use the replica while it lags at most DATABASE_REPLICA_MAX_LAG_MS and
// the primary after; a read with a write's consistency token never sees anything older than that
// write; a stopped replica is skipped and /readyz reports it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { type Api, buildApp } from '../../src/http/app.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { client, type Client, expectProblem, onPostgres, startTestApp } from '../support/app.ts';
import { createDeal, createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { createReplicaPair, type ReplicaPair, replicaPairUnavailable } from '../support/replica-pair.ts';
import { eventually as waitFor } from '../support/webhooks.ts';

const unavailable = !onPostgres ? 'needs PostgreSQL (set TEST_DATABASE_URL): PGlite has no replicas' : replicaPairUnavailable();
const MAX_LAG_MS = 2000;

/** Waits (up to 30 s: a replica's start and replay take a while) for `probe` to give a value. */
const eventually = <T>(what: string, probe: () => Promise<T | undefined>) => waitFor(probe, 30_000, what);

describe('read replicas', { skip: unavailable }, () => {
  let pair: ReplicaPair;
  const opened: { app: Api; database: Database }[] = [];
  /** The service as `serve` builds it, with DATABASE_REPLICA_MAX_LAG_MS = maxLagMs. */
  const instance = async (maxLagMs: number) => {
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      DATABASE_URL: pair.primaryUrl,
      DATABASE_REPLICA_URLS: pair.replicaUrl,
      DATABASE_REPLICA_MAX_LAG_MS: String(maxLagMs),
    });
    const database = await openDatabase(config);
    await migrateToLatest(database.db);
    const app = await buildApp({
      db: database.db,
      config,
      clock: systemClock,
      newId: newUuid,
      reader: database.reader,
      consistencyToken: database.consistencyToken,
      replicaStatus: database.replicaStatus,
    });
    await app.ready();
    opened.push({ app, database });
    const token = (await createToken(database.db, { name: 'replica test', role: 'admin' })).token;
    return { admin: client(app, token), public: client(app) };
  };
  /** Lag allowed: MAX_LAG_MS, and an hour (a paused replica stays in use: where reads go shows). */
  let strict: Awaited<ReturnType<typeof instance>>;
  let lenient: Awaited<ReturnType<typeof instance>>;
  let admin: Client;
  let publicClient: Client;
  before(async () => {
    pair = await createReplicaPair();
    strict = await instance(MAX_LAG_MS);
    lenient = await instance(3_600_000);
    admin = strict.admin;
    publicClient = strict.public;
  });
  after(async () => {
    for (const { app, database } of opened) {
      await app.close();
      await database.close();
    }
    pair?.destroy();
  });

  const replica = async () => (await publicClient.get('/readyz')).body.replicas[0] as { state: string; lagMs: number | null; replayLsn: string | null };
  const replicaSql = async (statement: string) => {
    const pg = await import('pg');
    const c = new pg.default.Client({ connectionString: pair.replicaUrl });
    await c.connect();
    try {
      return (await c.query(statement)).rows;
    } finally {
      await c.end();
    }
  };
  /** Pauses the replica's replay and waits until it has paused: a pause is only requested at first, and replay goes on until it takes effect. */
  const pauseReplay = async () => {
    await replicaSql('select pg_wal_replay_pause()');
    await eventually('the replica to pause its replay', async () =>
      (await replicaSql('select pg_get_wal_replay_pause_state() as state'))[0]?.state === 'paused' ? true : undefined,
    );
  };
  /** Investors of the deal found by a search, as the list answers, with or without a token. */
  const listed = async (dealId: string, surname: string, token?: string, via: Client = admin) => {
    const response = await via.get(`/deals/deal/${dealId}/all-investor-workflows?query=${surname}`, token ? { 'consistency-token': token } : {});
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body.output.map((e: any) => e.investor.id).sort() as string[];
  };
  /** A new investor of the family, moved into the deal: the write, and the token it answered with. */
  const addInvestor = async (dealId: string, interest: string, surname: string) => {
    const investor = await createInvestor(admin, { forename: uniqueId('F').replace('-', ''), surname });
    const response = await admin.post(`/deals/deal/${dealId}/jump-to-step`, { investorUserId: investor.id, targetStepId: interest, data: {} });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    const token = response.headers['consistency-token'];
    assert.equal(typeof token, 'string', 'a write answers with a consistency token');
    return { id: investor.id, token: token as string };
  };

  test('list reads use the replica; a token is never served stale; a lagging replica is skipped', async () => {
    const surname = uniqueId('Rep').replace('-', '');
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const first = await addInvestor(deal.dealId, deal.steps.interest, surname);
    await eventually('the replica to be up', async () => ((await replica()).state === 'up' ? true : undefined));
    // Up to date: the same answer wherever it comes from.
    assert.deepEqual(await listed(deal.dealId, surname, first.token), [first.id]);
    // Pause only once the replica holds the first write, so that its token can be served there.
    await eventually('the replica to replay the first write', async () =>
      (await replicaSql(`select pg_last_wal_replay_lsn() >= '${first.token}'::pg_lsn as ok`))[0]?.ok ? true : undefined,
    );

    await pauseReplay();
    const second = await addInvestor(deal.dealId, deal.steps.interest, surname);
    const both = [first.id, second.id].sort();
    // Without a token, a replica within the allowed lag answers: it has not replayed the second
    // write, which shows the read went to it.
    assert.deepEqual(await listed(deal.dealId, surname, undefined, lenient.admin), [first.id]);
    // The token rule: the replica has not replayed past the second write's token, so the primary answers.
    assert.deepEqual(await listed(deal.dealId, surname, second.token, lenient.admin), both);
    assert.deepEqual(await listed(deal.dealId, surname, second.token), both);
    // A token the replica has replayed past: the replica answers (current for that write).
    assert.deepEqual(await listed(deal.dealId, surname, first.token, lenient.admin), [first.id]);

    // The lag rule: once the replica is further behind than DATABASE_REPLICA_MAX_LAG_MS, it is
    // skipped and reported as lagging; reads without a token see the second write.
    await eventually('the replica to be reported lagging', async () => ((await replica()).state === 'lagging' ? true : undefined));
    assert.deepEqual(await listed(deal.dealId, surname), both);
    assert.deepEqual(await listed(deal.dealId, surname, undefined, lenient.admin), [first.id], 'the lenient instance still reads the replica');

    await replicaSql('select pg_wal_replay_resume()');
    await eventually('the replica to catch up', async () => ((await replica()).state === 'up' ? true : undefined));
    assert.deepEqual(await listed(deal.dealId, surname, second.token, lenient.admin), both);
    assert.deepEqual(await listed(deal.dealId, surname), both);
  });

  test('every list route and read model reads the replica, and honours the token', async () => {
    await eventually('the replica to be up', async () => ((await replica()).state === 'up' ? true : undefined));
    await pauseReplay();
    try {
      // A deal, investor and move that only the primary has.
      const deal = await createDeal(lenient.admin, { workflow: 'subscription' });
      const surname = uniqueId('All').replace('-', '');
      const investor = await createInvestor(lenient.admin, { surname });
      const move = await lenient.admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
        investorUserId: investor.id,
        targetStepId: deal.steps.interest,
        data: {},
      });
      assert.equal(move.status, 201);
      const token = move.headers['consistency-token'] as string;
      for (const url of [
        `/deals/deal/${deal.dealId}/all-investor-workflows`,
        `/deals/deal/${deal.dealId}/all-payment-refernces`,
        `/deals/request-to-edit/filtered?dealId=${deal.dealId}&investorUserId=${investor.id}`,
        `/deals/deal/${deal.dealId}/events`,
        `/console/deals/${deal.dealId}/board`,
        `/console/deals/${deal.dealId}/board/cards`,
        `/console/deals/${deal.dealId}/investors/${investor.id}`,
      ]) {
        expectProblem(await lenient.admin.get(url), 404);
        const current = await lenient.admin.get(url, { 'consistency-token': token });
        assert.equal(current.status, 200, `${url}: ${JSON.stringify(current.body)}`);
      }
      const deals = async (headers: Record<string, string>) => (await lenient.admin.get('/console/deals', headers)).body.map((d: any) => d.dealId ?? d.id);
      assert.ok(!(await deals({})).includes(deal.dealId));
      assert.ok((await deals({ 'consistency-token': token })).includes(deal.dealId));
      const transactions = async (headers: Record<string, string>) =>
        (await lenient.admin.post('/deals/deal/all-transactions', { nameOrEmail: surname }, headers)).body.output.map((e: any) => e.investor.id);
      assert.deepEqual(await transactions({}), []);
      const read = await lenient.admin.post('/deals/deal/all-transactions', {});
      assert.equal(read.headers['consistency-token'], undefined, 'a POST that only reads answers no token');
      assert.deepEqual(await transactions({ 'consistency-token': token }), [investor.id]);
      const feed = await lenient.admin.get('/webhooks/deliveries', { 'consistency-token': token });
      assert.equal(feed.status, 200);
      // The CSV exports read where their JSON lists read.
      for (const url of [
        `/deals/deal/${deal.dealId}/all-investor-workflows`,
        `/deals/deal/${deal.dealId}/all-payment-refernces`,
        `/deals/deal/${deal.dealId}/events`,
      ]) {
        expectProblem(await lenient.admin.get(url, { accept: 'text/csv' }), 404);
        const current = await lenient.admin.get(url, { accept: 'text/csv', 'consistency-token': token });
        assert.equal(current.status, 200, `${url} as CSV: ${current.text}`);
      }
      const exported = async (headers: Record<string, string>) =>
        (await lenient.admin.post('/deals/deal/all-transactions', { nameOrEmail: surname }, { accept: 'text/csv', ...headers })).text
          .trim()
          .split('\r\n')
          .slice(1);
      assert.deepEqual(await exported({}), []);
      assert.equal((await exported({ 'consistency-token': token })).length, 1);
      // The reconciliation queue: a statement imported on the primary only.
      const statement = await lenient.admin.post('/payments/statements', `date,amount,currency,reference\n2026-11-24,10.00,EUR,no reference ${surname}\n`, {
        'content-type': 'text/csv',
      });
      assert.equal(statement.status, 201, statement.text);
      const statementId = statement.body.statement.id;
      const queued = async (headers: Record<string, string>) =>
        (await lenient.admin.get(`/payments/lines?statementId=${statementId}`, headers)).body.output.length;
      assert.equal(await queued({}), 0);
      assert.equal(await queued({ 'consistency-token': statement.headers['consistency-token'] as string }), 1);
    } finally {
      await replicaSql('select pg_wal_replay_resume()');
    }
  });

  test('a stopped replica is skipped and /readyz reports it', async () => {
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const surname = uniqueId('Down').replace('-', '');
    await eventually('the replica to be up', async () => ((await replica()).state === 'up' ? true : undefined));
    pair.stopReplica();
    const state = await eventually('the replica to be reported down', async () => {
      const response = await publicClient.get('/readyz');
      return response.body.replicas[0].state === 'down' ? response : undefined;
    });
    assert.equal(state.status, 200, 'the service stays ready: the primary serves the reads');
    assert.equal(state.body.status, 'ready');
    assert.ok(state.body.replicas[0].error, 'says why');
    const written = await addInvestor(deal.dealId, deal.steps.interest, surname);
    assert.deepEqual(await listed(deal.dealId, surname), [written.id]);
    assert.deepEqual(await listed(deal.dealId, surname, written.token), [written.id]);
  });
});

describe('consistency tokens without replicas', () => {
  test('a malformed token is a 400 naming the header; writes carry no token; reads work with a well-formed one', async () => {
    const t = await startTestApp();
    try {
      const admin = client(t.app, t.adminToken);
      for (const bad of ['yesterday', '16', '1/2/3', 'G/0']) {
        const problem = expectProblem(await admin.get('/console/deals', { 'consistency-token': bad }), 400);
        assert.deepEqual(
          problem.errors?.map((e) => [e.in, e.field]),
          [['header', 'consistency-token']],
        );
      }
      const deal = await createDeal(admin, { workflow: 'subscription' });
      const investor = await createInvestor(admin);
      const move = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor.id, targetStepId: deal.steps.interest, data: {} });
      assert.equal(move.status, 201);
      assert.equal(move.headers['consistency-token'], undefined, 'nothing to be consistent with');
      await jump(admin, deal.dealId, investor.id, deal.steps.commit, { committed_amount: '1.00', currency: 'EUR' });
      const read = await admin.get(`/deals/deal/${deal.dealId}/all-investor-workflows`, { 'consistency-token': 'FFFFFFFF/FFFFFFFF' });
      assert.equal(read.status, 200, 'the primary is always recent enough');
      assert.equal(read.body.output.length, 1);
    } finally {
      await t.close();
    }
  });

  test('DATABASE_REPLICA_URLS needs DATABASE_URL and takes postgres:// URLs only', () => {
    assert.throws(
      () => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://r1/db' }),
      (err: unknown) => err instanceof ConfigError && /PGlite/.test(err.message),
    );
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://p/db', DATABASE_REPLICA_URLS: 'postgres://r1/db,http://r2/db' }), ConfigError);
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://p/db', DATABASE_REPLICA_MAX_LAG_MS: '-1' }), ConfigError);
    const config = loadConfig({ DATABASE_URL: 'postgres://p/db', DATABASE_REPLICA_URLS: ' postgres://r1/db , postgres://r2/db ,' });
    assert.deepEqual(config.databaseReplicaUrls, ['postgres://r1/db', 'postgres://r2/db']);
    assert.equal(config.databaseReplicaMaxLagMs, 1000);
    assert.deepEqual(loadConfig({}).databaseReplicaUrls, []);
  });
});
