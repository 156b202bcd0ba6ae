// `npm run bench:pglite-memory [-- --node-options "FLAGS"] [-- --env NAME=VALUE] [-- --seconds N]`
//
// The resident memory of the service on PGlite (docs/benchmarks.md,
// "Memory"). Starts `dealflow serve` as `npm start` does (the V8 flags of package.json's start
// script, the demo seed of a first start) on a new temporary DATA_DIR and reports, for that one
// process, the high-water mark of its resident set (VmHWM, /proc/PID/status):
//   (a) the first start on the new folder: at readiness and after the background settles,
//   (b) a second start on the same folder, the same way,
//   (c) under a short load through the HTTP API (a deal with a workflow, investors, moves at
//       10 connections, then list reads at 1), with the high-water mark reset before it,
// then the resident set after the load (steady state) and moves a second, so a flag's cost in
// throughput shows beside what it saves. Removes the folder at the end, whatever happened.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startCommand } from '../scripts/start-command.ts';
import { availableRoutes, createFixtures, type Fixtures, STEP_COUNT, jumpBody } from './fixtures.ts';
import { httpClient } from './http.ts';
import { type Measurement, measure } from './load.ts';
import { freePort, root } from './processes.ts';

const usage = `npm run bench:pglite-memory [-- options]

  --node-options "FLAGS"  the service's V8/Node flags instead of those of \`npm start\`
  --extra "FLAGS"         flags added after those of \`npm start\`
  --env NAME=VALUE        an environment variable for the service (repeatable), e.g. MALLOC_ARENA_MAX=2
  --seconds N             measured seconds of each load (default 10; 1 s of warm-up before each)
  --rounds N              rounds of the two loads (default 1); the last round's figures are reported
  --settle N              seconds a start is left idle after readiness before its peak is read (default 8)
  --investors N           directory entries to move (default 300)
  --help`;

const { values: args } = parseArgs({
  options: {
    'node-options': { type: 'string' },
    extra: { type: 'string' },
    env: { type: 'string', multiple: true },
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '1' },
    settle: { type: 'string', default: '8' },
    investors: { type: 'string', default: '300' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}

const MB = 2 ** 20;
const mb = (bytes: number | undefined) => (bytes === undefined ? '?' : `${(bytes / MB).toFixed(0)} MB`);
const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const log = (line: string) => process.stdout.write(`· ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const words = (s: string | undefined) => (s ?? '').split(/\s+/).filter(Boolean);

// The flags of `npm start`, read from package.json so this cannot drift from what production runs.
const npmStart = startCommand();
const flags = [...(args['node-options'] !== undefined ? words(args['node-options']) : npmStart.nodeFlags), ...words(args.extra)];
const extraEnv = Object.fromEntries((args.env ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
const seconds = Number(args.seconds);
const settleMs = Number(args.settle) * 1000;
const rounds = Math.max(1, Number(args.rounds));

/** VmHWM and VmRSS of a process in bytes (Linux /proc). */
function memory(pid: number): { peak: number; resident: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { peak: kb('VmHWM'), resident: kb('VmRSS') };
}

/** Resets a process's VmHWM to its current resident set (Linux ≥ 4.0, our own child). */
const resetPeak = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

interface Service {
  url: string;
  pid: number;
  output: () => string;
  stop(): Promise<void>;
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dealflow-pglite-memory-'));
let running: Service | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the service and removing ${dataDir}\n`);
    void (running?.stop() ?? Promise.resolve()).finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(130);
    });
  });
}

async function startService(): Promise<{ service: Service; readyMs: number }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...extraEnv };
  delete env.DATABASE_URL;
  const started = Date.now();
  const child: ChildProcess = spawn(process.execPath, [...flags, npmStart.entry, ...npmStart.args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const service: Service = {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  running = service;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}) while starting:\n${output}`);
    try {
      if ((await fetch(`${service.url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 180_000) throw new Error(`the service did not answer /healthz within 180 s:\n${output}`);
    await sleep(100);
  }
  return { service, readyMs: Date.now() - started };
}

/** Readiness, then `settleMs` idle (V8 keeps compiling in the background): the start's figures. */
async function measureStart(label: string) {
  const { service, readyMs } = await startService();
  const atReady = memory(service.pid);
  await sleep(settleMs);
  const settled = memory(service.pid);
  log(
    `${label}: ready in ${(readyMs / 1000).toFixed(1)} s; peak ${mb(atReady.peak)} at readiness, ${mb(settled.peak)} after ${settleMs / 1000} s; resident ${mb(settled.resident)} (load ${load()})`,
  );
  return { service, readyMs, peakAtReady: atReady.peak, peak: settled.peak, resident: settled.resident };
}

/** CPU time of the service (PostgreSQL's work included: PGlite runs in it) per answered request. */
const cpu = (m: Measurement) => m.cpuPerRequestMs?.service?.toFixed(2) ?? '?';

/** Cycles every investor through the steps, as bench scenario 3a does. */
function jumps(fixtures: Fixtures, investors: string[]) {
  let count = 0;
  return () => {
    const n = count++;
    return jumpBody(fixtures, investors[n % investors.length]!, Math.floor(n / investors.length) % STEP_COUNT);
  };
}

let exitCode = 0;
try {
  log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}; load average ${load()}`,
  );
  log(
    `service: node ${flags.join(' ')} ${[npmStart.entry, ...npmStart.args].join(' ')}${Object.keys(extraEnv).length ? ` (env ${args.env!.join(' ')})` : ''}; DATA_DIR ${dataDir}`,
  );

  const first = await measureStart('(a) first start, new folder');
  const token = /Admin token \(shown once, keep it\): (\S+)/.exec(first.service.output())?.[1];
  if (!token) throw new Error(`no admin token in the first start's output:\n${first.service.output()}`);
  await first.service.stop();

  const second = await measureStart('(b) second start, same folder');
  const { service } = second;
  resetPeak(service.pid);
  const client = httpClient(service.url, token);
  const routes = await availableRoutes(service.url);
  const fixtures = await createFixtures(client, routes, { manyInvestors: Number(args.investors), log });
  const timing = { warmupSeconds: 1, seconds };
  // Rounds of moves then list reads; the figures reported are the last round's, when V8 has
  // compiled what the load needs (the earlier rounds are printed, to show the warm-up).
  let moves!: Measurement;
  let lists!: Measurement;
  const jumping = jumps(fixtures, fixtures.manyInvestorIds);
  for (let round = 1; round <= rounds; round++) {
    const label = rounds > 1 ? ` [round ${round}/${rounds}]` : '';
    moves = await measure(
      service.url,
      { method: 'POST', path: `/deals/deal/${fixtures.dealId}/jump-to-step`, body: jumping, expect: [201], connections: 10 },
      timing,
      token,
      service.pid,
    );
    log(
      `moves (10 connections)${label}: ${moves.requestsPerSecond.toFixed(0)}/s, p50 ${moves.p50Ms} ms, p99 ${moves.p99Ms} ms, ${cpu(moves)} ms of service CPU each, ${moves.errors} errors${moves.firstError ? ` (first: ${moves.firstError})` : ''} (load ${load()})`,
    );
    lists = await measure(
      service.url,
      { method: 'GET', path: `/deals/deal/${fixtures.dealId}/all-investor-workflows?page=1`, expect: [200], connections: 1 },
      timing,
      token,
      service.pid,
    );
    log(
      `list reads (1 connection)${label}: ${lists.requestsPerSecond.toFixed(0)}/s, p50 ${lists.p50Ms} ms, ${cpu(lists)} ms of service CPU each, ${lists.errors} errors${lists.firstError ? ` (first: ${lists.firstError})` : ''} (load ${load()})`,
    );
  }
  const underLoad = memory(service.pid);
  await sleep(settleMs);
  const steady = memory(service.pid);
  log(`(c) under load: peak ${mb(underLoad.peak)}; steady state ${settleMs / 1000} s after: resident ${mb(steady.resident)} (load ${load()})`);
  await service.stop();

  const summary = {
    date: new Date().toISOString(),
    node: process.version,
    flags,
    env: extraEnv,
    loadAverage: os.loadavg(),
    firstStart: { peakMB: first.peak / MB, peakAtReadyMB: first.peakAtReady / MB, residentMB: first.resident / MB, readySeconds: first.readyMs / 1000 },
    secondStart: { peakMB: second.peak / MB, peakAtReadyMB: second.peakAtReady / MB, residentMB: second.resident / MB, readySeconds: second.readyMs / 1000 },
    underLoad: { peakMB: underLoad.peak / MB },
    steadyStateMB: steady.resident / MB,
    movesPerSecond: moves.requestsPerSecond,
    moveCpuMs: moves.cpuPerRequestMs?.service,
    listReadsPerSecond: lists.requestsPerSecond,
    listReadCpuMs: lists.cpuPerRequestMs?.service,
  };
  const f = (n: number) => n.toFixed(0);
  process.stdout.write(
    `\nPGlite service (${flags.join(' ') || 'no flags'}), load average ${load()}:\n` +
      `  first start:  peak ${f(summary.firstStart.peakMB)} MB, resident ${f(summary.firstStart.residentMB)} MB\n` +
      `  second start: peak ${f(summary.secondStart.peakMB)} MB, resident ${f(summary.secondStart.residentMB)} MB\n` +
      `  under load:   peak ${f(summary.underLoad.peakMB)} MB; steady state ${f(summary.steadyStateMB)} MB\n` +
      `  moves ${f(summary.movesPerSecond)}/s (${cpu(moves)} ms of service CPU each), list reads ${f(summary.listReadsPerSecond)}/s (${cpu(lists)} ms each)\n` +
      `${JSON.stringify(summary)}\n`,
  );
  if (moves.requestsPerSecond === 0 || lists.requestsPerSecond === 0) {
    process.stderr.write('bench failed: a load got no successful response\n');
    exitCode = 1;
  }
} catch (err) {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
  exitCode = 1;
} finally {
  await running?.stop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
