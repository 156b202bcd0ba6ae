// `npm run bench:replica`: where list reads go with one streaming replica (docs/guides/postgresql-and-replicas.md).
//
// Makes a throwaway primary and a pg_basebackup -R replica of it (test/support/replica-pair.ts;
// needs the PostgreSQL server binaries, and runs them as the `postgres` OS user when root), seeds a
// deal with `dealflow seed`, starts the service with DATABASE_REPLICA_URLS, then:
// 1. list reads without a token (all-investor-workflows, all-transactions) under load, counting
//    the transactions each server ran meanwhile (pg_stat_database.xact_commit): the replica takes
//    the reads, the primary only the replica watcher's position queries;
// 2. read-after-write: a move, then the same investor's deal list with the move's
//    Consistency-Token, many times over; every read must show the move (none stale).
// Removes the clusters at the end, whatever happened.
import pg from 'pg';
import { createReplicaPair, replicaPairUnavailable } from '../test/support/replica-pair.ts';
import { measure } from './load.ts';
import { startCommand } from '../scripts/start-command.ts';
import { runCli, startServer } from './processes.ts';

const unavailable = replicaPairUnavailable();
if (unavailable) {
  process.stderr.write(`bench:replica cannot run here: ${unavailable}\n`);
  process.exit(1);
}
const log = (line: string) => process.stdout.write(`· ${line}\n`);
const pair = await createReplicaPair();
let exitCode = 0;
const stops: (() => Promise<void>)[] = [];
const commits = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`select xact_commit::text as n from pg_stat_database where datname = current_database()`);
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
};
try {
  const env = { DATABASE_URL: pair.primaryUrl };
  await runCli(env, ['migrate']);
  const token = (await runCli(env, ['token', 'create', '--role', 'admin', '--name', 'bench'])).trim().split('\n').pop()!.trim();
  const investors = 5_000;
  log(`dealflow seed --investors ${investors} --deals 1 (on the primary)`);
  await runCli(env, ['seed', '--investors', String(investors), '--deals', '1']);
  const primary = new pg.Client({ connectionString: pair.primaryUrl });
  await primary.connect();
  const { rows } = await primary.query(`select deal_id from journeys group by deal_id order by count(*) desc limit 1`);
  const { rows: someone } = await primary.query(
    `select j.investor_user_id, i.email, s.id as step from journeys j join investors i on i.id = j.investor_user_id
       join workflow_steps s on s.id = j.current_step_id
     where j.deal_id = $1 and j.current_step_id like '%.interest' and i.email is not null limit 1`,
    [rows[0].deal_id],
  );
  await primary.query('vacuum analyze');
  await primary.end();
  const dealId: string = rows[0].deal_id;

  const npmStart = startCommand();
  const service = await startServer('service', [npmStart.entry, ...npmStart.args, '--no-demo'], env, {
    healthPath: '/healthz',
    nodeOptions: npmStart.nodeFlags,
    env: { DATABASE_REPLICA_URLS: pair.replicaUrl, DATABASE_REPLICA_MAX_LAG_MS: '1000' },
  });
  stops.push(() => service.stop());
  for (let i = 0; ; i++) {
    const ready = (await (await fetch(`${service.url}/readyz`)).json()) as { replicas?: { state: string }[] };
    if (ready.replicas?.[0]?.state === 'up') break;
    if (i > 300) throw new Error(`the replica is not up: ${JSON.stringify(ready)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  log(`service with DATABASE_REPLICA_URLS: replica up; deal ${dealId}, ${investors.toLocaleString('en')} investors`);

  const timing = { warmupSeconds: 1, seconds: 5 };
  const scenarios = [
    {
      name: 'all-investor-workflows page 1',
      spec: { method: 'GET' as const, path: `/deals/deal/${dealId}/all-investor-workflows?page=1`, expect: [200], connections: 4 },
    },
    {
      name: 'all-transactions page 1',
      spec: { method: 'POST' as const, path: '/deals/deal/all-transactions?page=1', body: {}, expect: [200], connections: 4 },
    },
  ];
  const lines: string[] = [];
  for (const scenario of scenarios) {
    const [p0, r0] = [await commits(pair.primaryUrl), await commits(pair.replicaUrl)];
    const m = await measure(service.url, scenario.spec, timing, token, service.pid);
    const [p1, r1] = [await commits(pair.primaryUrl), await commits(pair.replicaUrl)];
    const seen = ((await (await fetch(`${service.url}/readyz`)).json()) as { replicas: { state: string; lagMs: number | null }[] }).replicas[0]!;
    // The warm-up's requests are in the counts too; the share is what tells. A replica lagging past
    // DATABASE_REPLICA_MAX_LAG_MS meanwhile (autovacuum after the seed, a busy machine) sends reads
    // to the primary, as it should.
    const line = `${scenario.name}: ${m.requestsPerSecond.toFixed(0)} req/s, p99 ${m.p99Ms} ms, ${m.errors} errors; transactions meanwhile: replica ${(r1 - r0).toLocaleString('en')}, primary ${(p1 - p0).toLocaleString('en')} (${((100 * (r1 - r0)) / (r1 - r0 + p1 - p0)).toFixed(1)}% on the replica); replica then ${seen.state}, lag ${seen.lagMs} ms`;
    lines.push(line);
    log(line);
    if (m.errors > 0) exitCode = 1;
  }

  // Read-after-write with the token: move one investor back and forth, read the list right after.
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  // From the interest step: to the commitment and back, and again.
  const steps = [(someone[0].step as string).replace(/\.interest$/, '.commitment'), someone[0].step as string];
  const investor = someone[0].investor_user_id as string;
  let stale = 0;
  let reads = 0;
  const [p0, r0] = [await commits(pair.primaryUrl), await commits(pair.replicaUrl)];
  for (let i = 0; i < 200; i++) {
    const target = steps[i % 2]!;
    const data = target.endsWith('.commitment') ? { committed_amount: '1000.00', currency: 'EUR' } : {};
    const move = await fetch(`${service.url}/deals/deal/${dealId}/jump-to-step`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ investorUserId: investor, targetStepId: target, data }),
    });
    if (move.status !== 201) throw new Error(`move: ${move.status} ${await move.text()}`);
    const consistency = move.headers.get('consistency-token');
    if (!consistency) throw new Error('a write without a Consistency-Token');
    // investor-data always reads the primary; the two lists read a replica when it has the move.
    const list = await fetch(`${service.url}/deals/deal/${dealId}/investor-data/${investor}`, { headers: { ...headers, 'consistency-token': consistency } });
    const byList = await fetch(`${service.url}/deals/deal/all-transactions?limit=1`, {
      method: 'POST',
      headers: { ...headers, 'consistency-token': consistency },
      body: '{}',
    });
    if (byList.status !== 200) throw new Error(`all-transactions: ${byList.status}`);
    const journey = (await list.json()) as { journey: { toStepId: string }[] };
    reads++;
    if (journey.journey.at(-1)?.toStepId !== target) stale++;
    const page = (await (
      await fetch(`${service.url}/deals/deal/${dealId}/all-investor-workflows?limit=100&query=${encodeURIComponent(someone[0].email)}`, {
        headers: { ...headers, 'consistency-token': consistency },
      })
    ).json()) as {
      output: { investor: { id: string }; journey: { toStepId: string }[] }[];
    };
    const mine = page.output.find((e) => e.investor.id === investor);
    reads++;
    if (mine?.journey.at(-1)?.toStepId !== target) stale++;
  }
  const [p1, r1] = [await commits(pair.primaryUrl), await commits(pair.replicaUrl)];
  const line = `read-after-write with the token: 200 moves, ${reads} reads, ${stale} stale; transactions meanwhile: replica ${(r1 - r0).toLocaleString('en')}, primary ${(p1 - p0).toLocaleString('en')}`;
  lines.push(line);
  log(line);
  if (stale > 0) exitCode = 1;
  process.stdout.write(`\n${lines.join('\n')}\n`);
} catch (err) {
  process.stderr.write(`bench:replica failed: ${(err as Error).stack ?? String(err)}\n`);
  exitCode = 1;
} finally {
  for (const stop of stops) await stop().catch(() => {});
  pair.destroy();
}
process.exit(exitCode);
