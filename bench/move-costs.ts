// `node bench/move-costs.ts postgres://…/postgres [--moves N] [--connections C] [--explain]`
//
// Where a move's database time goes. Makes a new database on the server the URL names (one of your
// own, with pg_stat_statements in shared_preload_libraries, `track = all`, `track_planning = on`,
// and `track_functions = all`), starts the service on it, makes the bench deal (bench/fixtures.ts),
// warms up, resets the statistics and runs N moves of the low-contention pattern through the HTTP
// API. Prints per statement (top level and nested, triggers' statements included) calls, plan and
// execution time per move, per trigger function its own time per move, the WAL written per move and
// the CPU of the database's backends per move. With --explain it then runs a few moves with
// auto_explain (analyze, nested statements) logging into the server's log.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { sealAll } from '../src/operations/audit.ts';
import { systemClock } from '../src/operations/deps.ts';
import { catchUpFunnel } from '../src/operations/funnel.ts';
import { openDatabase } from '../src/store/database.ts';
import { createFixtures, jumpBody, STEP_COUNT } from './fixtures.ts';
import { httpClient, inParallel } from './http.ts';
import { databaseCpuMs, runCli, startServer } from './processes.ts';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    moves: { type: 'string', default: '3000' },
    connections: { type: 'string', default: '1' },
    seed: { type: 'string', default: '0' },
    explain: { type: 'boolean', default: false },
  },
});
const serverUrl = positionals[0];
if (!serverUrl) throw new Error('usage: node bench/move-costs.ts postgres://user@host:port/database [--moves N] [--connections C] [--explain]');
const moves = Number(args.moves);
const connections = Number(args.connections);

const name = `dealflow_moves_${Date.now()}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`create database ${name}`);
const url = new URL(serverUrl);
url.pathname = `/${name}`;
const env = { DATABASE_URL: url.toString() };
const db = new pg.Client({ connectionString: url.toString() });
let service: Awaited<ReturnType<typeof startServer>> | undefined;
try {
  await runCli(env, ['migrate']);
  if (Number(args.seed) > 0) {
    // As bench/main.ts: seeded deals (other journeys in the same tables), settled before the service starts.
    for (const size of new Set([Number(args.seed), Math.ceil(Number(args.seed) / 10)]))
      await runCli(env, ['seed', '--investors', String(size), '--deals', '1']);
    const opened = await openDatabase({ ...loadConfig({}), databaseUrl: env.DATABASE_URL, databaseTimeoutMs: 3_600_000 });
    try {
      await catchUpFunnel(opened);
      await sealAll({ db: opened.db, clock: systemClock });
    } finally {
      await opened.close();
    }
  }
  await db.connect();
  await db.query('vacuum analyze');
  await db.query('create extension if not exists pg_stat_statements');
  const token = (await runCli(env, ['token', 'create', '--role', 'admin', '--name', 'moves'])).trim().split('\n').pop()!.trim();
  service = await startServer('service', ['src/cli/main.ts', 'serve', '--no-demo'], env, { healthPath: '/healthz' });
  const client = httpClient(service.url, token);
  const fixtures = await createFixtures(client, new Set(['PUT /deals/deal/{dealId}/workflow', 'POST /deals/deal/{dealId}/jump-to-step']), {
    manyInvestors: 1000,
    log: (line) => process.stdout.write(`· ${line}\n`),
  });
  let n = 0;
  const move = async () => {
    const i = n++;
    const investors = fixtures.manyInvestorIds;
    await client.must(
      [201],
      'POST',
      `/deals/deal/${fixtures.dealId}/jump-to-step`,
      jumpBody(fixtures, investors[i % investors.length]!, Math.floor(i / investors.length) % STEP_COUNT),
    );
  };
  const run = (count: number) => inParallel(Array.from({ length: count }), connections, move);
  await run(1500); // warm-up: every investor has a journey, every connection its prepared statements

  await db.query("select pg_stat_statements_reset(), pg_stat_reset(), pg_stat_reset_shared('wal')");
  const cpuBefore = databaseCpuMs(name);
  const started = Date.now();
  await run(moves);
  const seconds = (Date.now() - started) / 1000;
  const cpuAfter = databaseCpuMs(name);
  await new Promise((r) => setTimeout(r, 700)); // the statistics collector's flush
  let cpu = 0;
  for (const [pid, ms] of cpuAfter ?? []) cpu += ms - (cpuBefore?.get(pid) ?? 0);
  process.stdout.write(
    `\n${moves} moves on ${connections} connection(s) in ${seconds.toFixed(1)} s; database backends' CPU ${(cpu / moves).toFixed(3)} ms per move\n`,
  );

  const statements =
    await db.query(`select toplevel, calls, total_plan_time, total_exec_time, rows, shared_blks_hit + shared_blks_read as blocks, wal_records, wal_bytes, regexp_replace(query, '\\s+', ' ', 'g') as query
    from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) order by total_plan_time + total_exec_time desc limit 40`);
  process.stdout.write('\nper move: calls, plan ms, exec ms, buffers touched, WAL bytes (top level first, then nested)\n');
  for (const s of statements.rows) {
    process.stdout.write(
      `${s.toplevel ? 'top ' : '  nested'} ${(s.calls / moves).toFixed(2).padStart(6)} ${(s.total_plan_time / moves).toFixed(4).padStart(8)} ${(s.total_exec_time / moves).toFixed(4).padStart(8)} ${(Number(s.blocks) / moves).toFixed(1).padStart(6)} ${(Number(s.wal_bytes) / moves).toFixed(0).padStart(6)}  ${String(s.query).slice(0, 150)}\n`,
    );
  }
  const functions = await db.query('select funcname, calls, total_time, self_time from pg_stat_user_functions order by self_time desc');
  process.stdout.write('\nfunctions per move: calls, total ms, self ms\n');
  for (const f of functions.rows)
    process.stdout.write(
      `${(f.calls / moves).toFixed(2).padStart(6)} ${(f.total_time / moves).toFixed(4).padStart(8)} ${(f.self_time / moves).toFixed(4).padStart(8)}  ${f.funcname}\n`,
    );
  const wal = (await db.query('select wal_records, wal_fpi, wal_bytes, wal_write, wal_sync from pg_stat_wal')).rows[0];
  process.stdout.write(
    `\nWAL per move: ${(wal.wal_records / moves).toFixed(1)} records, ${(wal.wal_fpi / moves).toFixed(2)} full pages, ${(Number(wal.wal_bytes) / moves).toFixed(0)} bytes, ${(wal.wal_sync / moves).toFixed(2)} syncs\n`,
  );

  if (args.explain) {
    await db.query(`alter database ${name} set auto_explain.log_min_duration = 0`);
    await service.stop();
    service = await startServer('service', ['src/cli/main.ts', 'serve', '--no-demo'], env, { healthPath: '/healthz' });
    const explained = httpClient(service.url, token);
    for (let i = 0; i < 20; i++) {
      const investor = fixtures.manyInvestorIds[i]!;
      await explained.must(
        [201],
        'POST',
        `/deals/deal/${fixtures.dealId}/jump-to-step`,
        jumpBody(fixtures, investor, (Math.floor((1500 + moves) / 1000) + 3) % STEP_COUNT),
      );
    }
    process.stdout.write('\nauto_explain: twenty moves logged in the server log\n');
  }
} finally {
  await service?.stop();
  await db.end().catch(() => {});
  if (!process.env.KEEP) await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
