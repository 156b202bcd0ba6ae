// `npm run bench [-- --quick] [-- --scale] [-- --only 1,4a] [-- --profile]`
//
// Makes a throwaway database (a new PostgreSQL database when DATABASE_URL is set, a temporary PGlite
// folder otherwise), seeds it with `dealflow seed`, measures the two baselines with the bare app in
// bench/baseline-server.ts, then starts the service (`dealflow serve`) as a child process and
// measures each scenario (docs/benchmarks.md) with autocannon after a warm-up. Prints a table and writes
// bench/results.json; removes the database at the end, whatever happened.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sealAll } from '../src/operations/audit.ts';
import { systemClock } from '../src/operations/deps.ts';
import { catchUpFunnel } from '../src/operations/funnel.ts';
import { startCommand } from '../scripts/start-command.ts';
import { createBenchDatabase } from './database.ts';
import { availableRoutes, createFixtures } from './fixtures.ts';
import { httpClient } from './http.ts';
import { type Measurement, measure, type Timing } from './load.ts';
import { type RunningChild, runCli, startServer } from './processes.ts';
import { checkTargets, renderScale, renderTable, type ScenarioResult, toResult } from './report.ts';
import { type BaselineKind, baselineScenarios, type Scenario, scaleScenarios, serviceScenarios } from './scenarios.ts';
import { FULL_SCALE, QUICK_SCALE, type ScaleSeedResult, seedScale, withEventIds } from './scale-seed.ts';
import { canSeed, discover, seed } from './seed.ts';
import { type StoreTiming, storeCases, timeStoreQueries } from './store-timings.ts';

const usage = `npm run bench [-- options]

  --quick      small data and short runs (a smoke run, under two minutes)
  --scale      a directory of 1,000,000 investors and 10,000,000 events, generated in SQL
               (bench/scale-seed.ts), and scenario 4 also on deals of 1,000, 10,000 and
               100,000 investors (with --quick: 20,000 investors, 100,000 events)
  --only IDS   run only these scenarios, e.g. --only 1,4a,6 (baselines always run)
  --profile    run the service with --cpu-prof; profiles land in bench/profiles/
  --node-options "FLAGS"
               run the service with these V8/Node flags instead of those \`npm start\` applies
               (e.g. "" for Node's defaults), to measure what the flags cost or save
  --help

DATABASE_URL set: a new database dealflow_bench_<time> on that server, dropped at the end.
Unset: PGlite in a temporary folder, removed at the end.`;

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    scale: { type: 'boolean', default: false },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    'node-options': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}

interface Profile {
  timing: Timing;
  /** Investors of the deal of scenarios 4 and 5, of the deal of scenario 6, and the --scale sizes. */
  largeDeal: number;
  referencesDeal: number;
  scaleDeals: number[];
  /** Investors moved in the low-contention jump scenario. */
  manyInvestors: number;
}

const profile: Profile = args.quick
  ? { timing: { warmupSeconds: 1, seconds: 3 }, largeDeal: 2_000, referencesDeal: 500, scaleDeals: [200, 2_000], manyInvestors: 100 }
  : { timing: { warmupSeconds: 3, seconds: 10 }, largeDeal: 100_000, referencesDeal: 10_000, scaleDeals: [1_000, 10_000, 100_000], manyInvestors: 1_000 };
const only = args.only ? new Set(args.only.split(',').map((s) => s.trim())) : undefined;
const log = (line: string) => process.stdout.write(`· ${line}\n`);
const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const started = Date.now();

const database = await createBenchDatabase(process.env.DATABASE_URL || undefined);
const children = new Set<RunningChild>();
let cleaning: Promise<void> | undefined;
const cleanUp = () =>
  (cleaning ??= (async () => {
    for (const child of children) await child.stop().catch(() => {});
    await database.drop().catch((err: Error) => process.stderr.write(`could not remove ${database.label}: ${err.message}\n`));
  })());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping and removing ${database.label}\n`);
    void cleanUp().then(() => process.exit(130));
  });
}

async function start(name: string, args: string[], options: { healthPath: string; nodeOptions?: string[] }) {
  const child = await startServer(name, args, database.env, options);
  children.add(child);
  return {
    child,
    async stop() {
      await child.stop();
      children.delete(child);
    },
  };
}

/** Measures each scenario; a crash of the server under test ends the run. */
async function runAll(scenarios: Scenario[], child: RunningChild, token: string, baselines: Partial<Record<BaselineKind, Measurement>>) {
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) {
    if (only && !scenario.id.startsWith('B-') && !only.has(scenario.id)) continue;
    if ('unavailable' in scenario.load) {
      log(`${scenario.id.padEnd(4)} ${scenario.name}: ${scenario.load.unavailable}`);
      results.push(toResult(scenario, undefined, baselines));
      continue;
    }
    const measurement = await Promise.race([measure(child.url, scenario.load, profile.timing, token, child.pid, database.name), child.crashed]);
    const result = toResult(scenario, measurement, baselines);
    results.push(result);
    // Slowness is reported, never fatal; a scenario that got no answer right is a broken bench.
    if (measurement.requestsPerSecond === 0) broken.push(`${scenario.id} (${measurement.firstError ?? 'no response'})`);
    log(
      `${scenario.id.padEnd(4)} ${scenario.name}: ${measurement.requestsPerSecond.toFixed(0)} req/s, p50 ${measurement.p50Ms} ms, p99 ${measurement.p99Ms} ms` +
        (measurement.errors ? `, ${measurement.errors} errors (first: ${measurement.firstError ?? 'connection error'})` : '') +
        (measurement.tolerated ? `, ${measurement.tolerated} tolerated` : ''),
    );
    for (const answer of measurement.unexpected ?? []) log(`     unexpected: ${answer}`);
  }
  return results;
}

let exitCode = 0;
const broken: string[] = [];
let scaleSeed: ScaleSeedResult | undefined;
let storeTimings: StoreTiming[] = [];
try {
  log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; load average ${load()}`);
  log(`database: ${database.label}`);
  await runCli(database.env, ['migrate']);
  const tokenOutput = await runCli(database.env, ['token', 'create', '--role', 'admin', '--name', 'bench']);
  const token = tokenOutput.trim().split('\n').pop()!.trim();

  // The seeded deals serve the list scenarios (4, 5, 6) only: `--only` without them skips the seed.
  const needsSeed = !only || [...only].some((id) => /^[456]/.test(id));
  const seedable = needsSeed && (await canSeed(database));
  const sizes = [...new Set([profile.largeDeal, profile.referencesDeal, ...(args.scale ? profile.scaleDeals : [])])].sort((a, b) => b - a);
  if (args.scale) {
    // A directory of a million investors and ten million events, generated in SQL (bench/scale-seed.ts).
    const plan = { ...(args.quick ? QUICK_SCALE : FULL_SCALE), dealSizes: sizes };
    const opened = await database.open({ timeoutMs: 3_600_000 });
    try {
      scaleSeed = await withEventIds(opened.db, () => seedScale(opened.db, plan, log));
    } finally {
      await opened.close();
    }
    log(`seeded in ${scaleSeed.seconds.total.toFixed(0)} s (investors ${scaleSeed.seconds.investors.toFixed(0)} s)`);
  } else if (seedable) await seed(database, { dealSizes: sizes }, log);
  else if (needsSeed) log('dealflow seed is not in this build: the scenarios on seeded deals are not available');
  if (seedable || args.scale) {
    // What a service running during the seed would have done in the background: the funnel's
    // upkeep of every seeded journey and the audit checkpoints over their entries. Done here, so
    // the scenarios measure the steady state, not the catch-up after a bulk load.
    const settling = Date.now();
    const opened = await database.open({ timeoutMs: 3_600_000 });
    try {
      const applied = await catchUpFunnel(opened);
      const sealed = await sealAll({ db: opened.db, clock: systemClock });
      log(
        `settled: the funnel applied ${applied.toLocaleString('en')} noted journeys, ${sealed.length} checkpoints sealed, in ${((Date.now() - settling) / 1000).toFixed(1)} s`,
      );
    } finally {
      await opened.close();
    }
  }
  const analyzing = Date.now();
  const discovered = await discover(database, args.scale ? sizes : undefined);
  if (scaleSeed) log(`vacuum analyze and discovery: ${((Date.now() - analyzing) / 1000).toFixed(0)} s`);
  if (args.scale && database.kind === 'postgres') {
    // The list queries through the store, before the service runs (PGlite: one process at a time).
    const opened = await database.open({ timeoutMs: 60_000 });
    try {
      const large = discovered.deals.find((d) => d.investors === profile.largeDeal);
      storeTimings = await timeStoreQueries(
        opened.db,
        storeCases(
          [...discovered.deals].sort((a, b) => a.investors - b.investors),
          [undefined, large?.query, discovered.common?.query].filter((q, i) => i === 0 || q !== undefined),
        ),
      );
    } finally {
      await opened.close();
    }
    for (const t of storeTimings) log(`${t.name}: p50 ${t.p50.toFixed(2)} ms, p99 ${t.p99.toFixed(2)} ms (total ${t.total.toLocaleString('en')})`);
  }
  const dealOfSize = (size: number) => discovered.deals.find((d) => d.investors === size) ?? undefined;

  // Baselines first, on their own (PGlite allows one process on the folder at a time).
  log('baselines: bench/baseline-server.ts');
  const baseline = await start('baseline', [fileURLToPath(new URL('./baseline-server.ts', import.meta.url))], { healthPath: '/healthz' });
  const baselineResults = await runAll(baselineScenarios(), baseline.child, '', {});
  await baseline.stop();
  const baselines: Partial<Record<BaselineKind, Measurement>> = {
    read: baselineResults.find((r) => r.id === 'B-read')?.measurement,
    'read-1': baselineResults.find((r) => r.id === 'B-read-1')?.measurement,
    write: baselineResults.find((r) => r.id === 'B-write')?.measurement,
  };

  log('service: dealflow serve');
  // The service runs as `npm start` runs it (package.json: its flags and the built entry point), so
  // its memory is what production sees.
  const npmStart = startCommand();
  const v8Flags = args['node-options'] !== undefined ? args['node-options'].split(/\s+/).filter(Boolean) : npmStart.nodeFlags;
  log(`service flags: ${v8Flags.join(' ') || '(none)'}`);
  const nodeOptions = [...v8Flags, ...(args.profile ? ['--cpu-prof', `--cpu-prof-dir=${fileURLToPath(new URL('./profiles', import.meta.url))}`] : [])];
  const service = await start('service', [npmStart.entry, ...npmStart.args, '--no-demo'], { healthPath: '/healthz', nodeOptions });
  const routes = await availableRoutes(service.child.url);
  const fixtures = await createFixtures(httpClient(service.child.url, token), routes, { manyInvestors: profile.manyInvestors, log });
  const largeDeal = dealOfSize(profile.largeDeal);
  const scenarios = serviceScenarios({
    fixtures,
    routes,
    ...(largeDeal ? { largeDeal } : {}),
    ...(dealOfSize(profile.referencesDeal) ? { referencesDeal: dealOfSize(profile.referencesDeal)! } : {}),
    activeInvestors: discovered.activeInvestors,
    ...(discovered.common ? { common: discovered.common } : {}),
    deepPage: Math.max(1, Math.min(500, Math.floor((largeDeal?.investors ?? 0) / 20))),
  });
  // The funnel's freshness while the service is under the scenarios' load (the moves of 3a and 3b
  // among them): its reported lag, sampled every 100 ms.
  const lagSampler = sampleFunnelLag(httpClient(service.child.url, token), fixtures.dealId, routes);
  const results = [...baselineResults, ...(await runAll(scenarios, service.child, token, baselines))];
  const funnelLag = await lagSampler.stop();
  if (funnelLag)
    log(`funnel lag under load: p50 ${funnelLag.p50} s, p99 ${funnelLag.p99} s, max ${funnelLag.max} s (${funnelLag.samples} samples every 100 ms)`);
  const scale = args.scale
    ? await runAll(
        scaleScenarios(
          profile.scaleDeals.flatMap((size) => dealOfSize(size) ?? []),
          routes,
        ),
        service.child,
        token,
        baselines,
      )
    : [];
  await service.stop();

  const serviceRuns = [...results, ...scale].filter((r) => !r.id.startsWith('B-') && r.measurement);
  const peaks = serviceRuns.map((r) => r.measurement!.peakRssBytes ?? 0);
  const peakRssBytes = peaks.length ? Math.max(...peaks) : undefined;
  const targets = checkTargets(results, scale, peakRssBytes);
  const machine = {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model.trim(),
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    loadAverageAtEnd: os.loadavg(),
    node: process.version,
    database: database.kind,
  };
  process.stdout.write(`\n${renderTable(results, targets)}\n`);
  if (args.scale) process.stdout.write(`\n${renderScale(scale)}\n`);
  if (storeTimings.length > 0) {
    process.stdout.write(`\nList queries through the store (in the bench process, 1 at a time):\n`);
    for (const t of storeTimings)
      process.stdout.write(
        `  ${t.name.padEnd(90)} p50 ${t.p50.toFixed(2).padStart(7)} ms  p99 ${t.p99.toFixed(2).padStart(7)} ms  total ${t.total.toLocaleString('en')}\n`,
      );
  }
  if (funnelLag)
    process.stdout.write(
      `\nFunnel lag while the scenarios ran: p50 ${funnelLag.p50} s, p99 ${funnelLag.p99} s, max ${funnelLag.max} s (${funnelLag.samples} samples)\n`,
    );
  if (scaleSeed)
    process.stdout.write(
      `Seeded ${scaleSeed.journeys.toLocaleString('en')} journeys and ${scaleSeed.events.toLocaleString('en')} events in ${scaleSeed.seconds.total.toFixed(0)} s\n`,
    );
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `\n${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.database}, load average ${load()} (1, 5, 15 min); ` +
      `${args.quick ? 'quick' : 'full'} run in ${seconds.toFixed(0)} s; service peak RSS ${peakRssBytes ? (peakRssBytes / 2 ** 20).toFixed(0) : '?'} MB\n`,
  );
  const file = fileURLToPath(new URL('./results.json', import.meta.url));
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), mode: args.quick ? 'quick' : 'full', seconds, machine, timing: profile.timing, scaleSeed, storeTimings, funnelLag, results, scale, targets }, null, 2)}\n`,
  );
  log(`wrote ${file}`);
  if (broken.length > 0) {
    process.stderr.write(`bench failed: no successful response in ${broken.join('; ')}\n`);
    exitCode = 1;
  }
} catch (err) {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
  exitCode = 1;
} finally {
  await cleanUp();
}
process.exit(exitCode);

/** Samples GET …/funnel's `lag` every 100 ms until stopped; undefined when the build reports none. */
function sampleFunnelLag(client: ReturnType<typeof httpClient>, dealId: string, routes: Set<string>) {
  const lags: number[] = [];
  let running = routes.has('GET /deals/deal/{dealId}/funnel');
  const loop = (async () => {
    while (running) {
      const reply = await client.call('GET', `/deals/deal/${dealId}/funnel`).catch(() => undefined);
      if (typeof reply?.body?.lag === 'number') lags.push(reply.body.lag);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      if (lags.length === 0) return undefined;
      const sorted = [...lags].sort((a, b) => a - b);
      const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
      return { samples: lags.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1)! };
    },
  };
}
