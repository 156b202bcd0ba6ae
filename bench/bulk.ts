// `node bench/bulk.ts [--quick] [--exports]`: bulk moves, imports and exports, end to end over HTTP.
//
// Makes a throwaway database (as npm run bench: a new PostgreSQL database when DATABASE_URL is set,
// a temporary PGlite folder otherwise), starts the service in this process on a free port, and
// times, each once after a small warm-up:
//   - POST …/jump-to-step/bulk with 1,000 first moves of distinct investors (5 requests),
//   - POST /investors/import of a 100,000-row CSV (quick: 10,000), then the same file again,
//   - POST …/jump-to-step/import of a 10,000-row moves CSV (quick: 2,000),
//   - the CSV exports of all-investor-workflows, all-transactions and all-payment-refernces of a
//     seeded deal of 100,000 investors (quick: 10,000); `--exports` times only these.
// Prints a table with the machine's load; the peak RSS of the process during an import or an export
// shows that memory does not grow with the file. The service is built as `serve` builds it (with
// its caches), and the exports are read as a stream and counted, never held whole by the bench, so
// the RSS is the service's working set, not the bench's copy of 30 MB of CSV.
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/http/app.ts';
import { Caches, connectCaches } from '../src/operations/caches.ts';
import { newUuid, systemClock } from '../src/operations/deps.ts';
import { seedScale } from '../src/operations/seed.ts';
import { sealAll } from '../src/operations/audit.ts';
import { catchUpFunnel } from '../src/operations/funnel.ts';
import { createToken } from '../src/operations/tokens.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { createBenchDatabase } from './database.ts';
import { sampleCpu } from './processes.ts';

const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false }, exports: { type: 'boolean', default: false } } });
const sizes = args.quick ? { investors: 10_000, moves: 2_000, exportDeal: 10_000 } : { investors: 100_000, moves: 10_000, exportDeal: 100_000 };
const BULK_REQUESTS = 5;
const BULK_SIZE = 1000;

const database = await createBenchDatabase(process.env.DATABASE_URL || undefined);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dealflow-bench-bulk-'));
const results: { scenario: string; rows: number; seconds: number; target?: string; peakRssMb?: number; cpu?: string }[] = [];
const opened = await database.open();
try {
  await migrateToLatest(opened.db);
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_TIMEOUT_MS: '60000', REQUEST_TIMEOUT_MS: '120000', RATE_LIMIT_PER_MINUTE: '0' });
  const deps = { db: opened.db, clock: systemClock, newId: newUuid };
  const caches = new Caches();
  const unlisten = await connectCaches(opened, caches);
  const app = await buildApp({ ...deps, caches, config });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const token = (await createToken(opened.db, { name: 'bench', role: 'admin' })).token;
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(base + url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && typeof body !== 'object' ? {} : body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : typeof body === 'string' || body instanceof ReadableStream ? { body: body as string } : { body: JSON.stringify(body) }),
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 500)}`);
    // A file over the job threshold (8 MiB: the 100,000-row investor file) is answered 202 and
    // imported as a job: the import has taken the time until the job is finished, not until the 202.
    const location = response.headers.get('location');
    if (response.status === 202 && location) return finished(location);
    return text;
  };
  const finished = async (location: string): Promise<string> => {
    for (;;) {
      const job = await call('GET', location);
      const { status } = JSON.parse(job) as { status: string };
      if (status === 'failed') throw new Error(`${location}: the job failed: ${job.slice(0, 500)}`);
      if (status === 'succeeded') return job;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  // CPU time alongside the wall time: on a machine shared with other work, the seconds vary with
  // the load and the CPU time (this process, which is both the service and the client, and the
  // PostgreSQL backends of the bench's database) much less.
  const timed = async <T>(work: () => Promise<T>) => {
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const cpu = sampleCpu(process.pid, database.name);
    const started = performance.now();
    try {
      const value = await work();
      const used = cpu.stop();
      const s = (ms: number | undefined) => (ms === undefined ? '?' : (ms / 1000).toFixed(2));
      return {
        value,
        seconds: (performance.now() - started) / 1000,
        peakRssMb: Math.round(peak / 1e6),
        cpu: database.name ? `${s(used.serviceMs)}+${s(used.databaseMs)}` : s(used.serviceMs),
      };
    } finally {
      clearInterval(sampler);
    }
  };
  const fileBody = (file: string) => ReadableStream.from(createReadStream(file)) as ReadableStream;

  if (!args.exports) {
    // A deal with the demo workflow (seedScale with no investors makes one).
    const { dealIds } = await seedScale(deps, { investors: 1, deals: 1 });
    const dealId = dealIds[0]!;
    const step = (name: string) => `${dealId}.${name}`;

    // Investors: a CRM file.
    const header =
      'id,remoteId,dataSource,kycCheckLevel,guid,userType,status,contact.forename,contact.surname,contact.email,username,name,fullName,tfaEnabled,compliance,classifications';
    const investorsFile = path.join(tmp, 'investors.csv');
    const out = createWriteStream(investorsFile);
    out.write(`${header}\n`);
    for (let i = 1; i <= sizes.investors; i++) {
      const id = `crm-${i}`;
      if (!out.write(`${id},r-${i},crm,2,g-${i},1,active,Inv${i},Estor,${id}@example.com,${id},Inv${i} Estor,Inv${i} Estor,false,approved,\n`))
        await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const first = await timed(() => call('POST', '/investors/import', fileBody(investorsFile), { 'content-type': 'text/csv' }));
    results.push({
      scenario: 'investor import, new rows',
      rows: sizes.investors,
      seconds: first.seconds,
      target: '100,000 rows < 30 s (PostgreSQL)',
      peakRssMb: first.peakRssMb,
    });
    const again = await timed(() => call('POST', '/investors/import', fileBody(investorsFile), { 'content-type': 'text/csv' }));
    results.push({ scenario: 'investor import, same file again (unchanged)', rows: sizes.investors, seconds: again.seconds, peakRssMb: again.peakRssMb });

    // Bulk: 1,000 first moves of distinct investors per request.
    const commitment = { committed_amount: '25000.00', currency: 'EUR' };
    await call('POST', `/deals/deal/${dealId}/jump-to-step/bulk`, { moves: [{ investorUserId: 'crm-1', targetStepId: step('interest'), data: {} }] });
    const bulkTimes: { seconds: number; cpu: string }[] = [];
    for (let r = 0; r < BULK_REQUESTS; r++) {
      const moves = Array.from({ length: BULK_SIZE }, (_, i) => ({
        investorUserId: `crm-${2 + r * BULK_SIZE + i}`,
        targetStepId: step('commitment'),
        data: commitment,
      }));
      const { value, seconds, cpu } = await timed(() => call('POST', `/deals/deal/${dealId}/jump-to-step/bulk`, { moves }));
      const applied = (JSON.parse(value) as { results: { status: number }[] }).results.filter((x) => x.status === 201).length;
      if (applied !== BULK_SIZE) throw new Error(`bulk request ${r}: ${applied} of ${BULK_SIZE} applied`);
      bulkTimes.push({ seconds, cpu });
    }
    bulkTimes.sort((a, b) => a.seconds - b.seconds);
    const median = bulkTimes[Math.floor(BULK_REQUESTS / 2)]!;
    results.push({
      scenario: `bulk moves, ${BULK_SIZE} per request (median of ${BULK_REQUESTS})`,
      rows: BULK_SIZE,
      seconds: median.seconds,
      cpu: median.cpu,
      target: '1,000 moves < 1 s (PostgreSQL)',
    });

    // Moves from a file: the next investors to commitment.
    const offset = 2 + BULK_REQUESTS * BULK_SIZE;
    const lines = ['investorUserId,targetStepId,committed_amount,currency'];
    for (let i = 0; i < sizes.moves; i++) lines.push(`crm-${offset + i},${step('commitment')},25000.00,EUR`);
    const moved = await timed(() => call('POST', `/deals/deal/${dealId}/jump-to-step/import`, lines.join('\n'), { 'content-type': 'text/csv' }));
    results.push({ scenario: 'move import (bulk rules, batches of 500)', rows: sizes.moves, seconds: moved.seconds, cpu: moved.cpu });
  }

  // Exports of a seeded deal.
  const seeded = (await seedScale(deps, { investors: sizes.exportDeal, deals: 1 })).dealIds[0]!;
  // What the service's background work would have done during the seed (the funnel's upkeep of
  // the seeded journeys, the audit checkpoints), done before the exports are timed.
  await catchUpFunnel(deps, 'now');
  await sealAll(deps);
  for (const [name, method, url] of [
    ['export all-investor-workflows', 'GET', `/deals/deal/${seeded}/all-investor-workflows`],
    ['export all-payment-refernces', 'GET', `/deals/deal/${seeded}/all-payment-refernces`],
    ['export all-transactions', 'POST', '/deals/deal/all-transactions'],
  ] as const) {
    const {
      value: lines,
      seconds,
      peakRssMb,
      cpu,
    } = await timed(async () => {
      const response = await fetch(base + url, { method, headers: { authorization: `Bearer ${token}`, accept: 'text/csv' } });
      if (response.status !== 200) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
      let count = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) for (const byte of chunk) if (byte === 10) count++;
      return count;
    });
    results.push({ scenario: name, rows: lines - 1, seconds, target: '100,000 rows < 5 s', peakRssMb, cpu });
  }
  await app.close();
  await unlisten();
  caches.close();
} finally {
  await opened.close();
  await database.drop();
  rmSync(tmp, { recursive: true, force: true });
}

process.stdout.write(
  `\n${database.kind}, ${os.cpus().length} cores, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
process.stdout.write(
  `${'scenario'.padEnd(50)} ${'rows'.padStart(8)} ${'seconds'.padStart(8)} ${'rows/s'.padStart(8)} ${'peak RSS'.padStart(9)} ${'CPU s'.padStart(11)}  target\n`,
);
for (const r of results) {
  process.stdout.write(
    `${r.scenario.padEnd(50)} ${String(r.rows).padStart(8)} ${r.seconds.toFixed(2).padStart(8)} ${String(Math.round(r.rows / r.seconds)).padStart(8)} ${(r.peakRssMb ? `${r.peakRssMb} MB` : '').padStart(9)} ${(r.cpu ?? '').padStart(11)}  ${r.target ?? ''}\n`,
  );
}
