// `node bench/audit-proofs.ts [--quick] [--entries N]`: what a deal's audit page and `verify` cost
// when the deal's entries sit in a large checkpoint. Makes a throwaway database (a new PostgreSQL
// database beside DATABASE_URL's, or a temporary PGlite folder), one deal with a workflow, and N
// entries (default 50,000; quick: 10,000), valid one-entry chains, one in 50 of them the deal's and
// the rest spread over 100 other deals; seals them into one checkpoint (timed), then times
// GET /deals/deal/{dealId}/audit?limit=50 (pages 1 and 3), `verify --deal` and the full
// `verify`. Prints the figures with the load average.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { chainEntry } from '../src/domain/audit.ts';
import { buildApp } from '../src/http/app.ts';
import { sealAll } from '../src/operations/audit.ts';
import { verifyAudit } from '../src/operations/audit-verify.ts';
import { putDeal } from '../src/operations/deals.ts';
import { newUuid, systemClock } from '../src/operations/deps.ts';
import { demoWorkflow } from '../src/operations/seed.ts';
import { createToken } from '../src/operations/tokens.ts';
import { putWorkflow } from '../src/operations/workflows.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { createBenchDatabase } from './database.ts';

const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false }, entries: { type: 'string' } } });
const ENTRIES = args.entries ? Number(args.entries) : args.quick ? 10_000 : 50_000;
const BATCH = 5000;
const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const percentile = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(2)} s`;

const database = await createBenchDatabase(process.env.DATABASE_URL || undefined);
const opened = await database.open({ timeoutMs: 3_600_000 });
try {
  log(`audit proofs bench on ${database.label}; ${ENTRIES.toLocaleString('en')} entries; ${os.cpus().length} cores; load ${load()}`);
  await migrateToLatest(opened.db);
  const db = opened.db;
  const deps = { db, clock: systemClock, newId: newUuid };
  const dealId = 'audit-bench';
  await putDeal(deps, dealId, { name: 'Audit bench', currency: 'EUR' });
  await putWorkflow(deps, dealId, demoWorkflow(dealId));

  let started = performance.now();
  for (let from = 0; from < ENTRIES; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, ENTRIES - from) }, (_, i) => {
      const n = from + i;
      const deal = n % 50 === 0 ? dealId : `other-${n % 100}`;
      const entry = chainEntry(
        { seq: 0, hash: null },
        {
          chain: `bench:${n}`,
          type: 'subscription.booked',
          principal: 'bench',
          tokenId: null,
          at: new Date(Date.UTC(2026, 0, 1, 0, 0, n % 60)).toISOString(),
          change: { n, dealId: deal, total: `${1000 + n}.00` },
        },
      );
      return { ...entry, dealId: deal };
    });
    await sql`insert into audit_log (chain, seq, xid, type, principal, token_id, at, change, deal_id, prev_hash, hash)
      select chain, 1, pg_current_xact_id(), 'subscription.booked', 'bench', null, at, change, deal_id, prev_hash, hash
      from unnest(${batch.map((e) => e.chain)}::text[], ${batch.map((e) => e.at)}::timestamptz[], ${batch.map((e) => JSON.stringify(e.change))}::jsonb[],
        ${batch.map((e) => e.dealId)}::text[], ${batch.map((e) => e.prevHash)}::text[], ${batch.map((e) => e.hash)}::text[])
        as e(chain, at, change, deal_id, prev_hash, hash)`.execute(db);
  }
  log(`entries: ${seconds(started)}`);
  started = performance.now();
  const sealed = await sealAll(deps);
  log(`sealing: ${seconds(started)} (${sealed.length} checkpoint(s), sizes ${sealed.map((c) => c.size).join(', ')}; load ${load()})`);
  await sql`vacuum analyze`.execute(db);

  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_TIMEOUT_MS: '600000', RATE_LIMIT_PER_MINUTE: '0' });
  const app = await buildApp({ ...deps, config });
  await app.ready();
  const token = (await createToken(db, { name: 'bench', role: 'admin' })).token;
  const time = async (label: string, run: () => Promise<void>, times: number, warmUp: number) => {
    for (let i = 0; i < warmUp; i++) await run();
    const ms: number[] = [];
    for (let i = 0; i < times; i++) {
      const t0 = performance.now();
      await run();
      ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    log(`${label}: p50 ${percentile(ms, 0.5).toFixed(1)} ms, max ${ms.at(-1)!.toFixed(1)} ms (${times} runs; load ${load()})`);
  };
  const page = (n: number) => async () => {
    const response = await app.inject({ method: 'GET', url: `/deals/deal/${dealId}/audit?limit=50&page=${n}`, headers: { authorization: `Bearer ${token}` } });
    if (response.statusCode !== 200) throw new Error(`audit page ${n}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    const body = JSON.parse(response.body) as { output: { inclusion: unknown }[] };
    if (body.output.length === 0 || body.output.some((e) => e.inclusion === null)) throw new Error(`audit page ${n}: entries without a proof`);
  };
  await time('GET …/audit?limit=50 (page 1)', page(1), 10, 2);
  await time('GET …/audit?limit=50 (page 3)', page(3), 10, 2);
  const verify = (options: { dealId?: string }) => async () => {
    const report = await verifyAudit({ db }, options);
    if (!report.ok) throw new Error(`verify: ${JSON.stringify(report.mismatch)}`);
  };
  await time(`verify --deal ${dealId} (${Math.ceil(ENTRIES / 50) + 1} entries)`, verify({ dealId }), 5, 1);
  await time('verify (everything)', verify({}), 3, 0);
  await app.close();
} finally {
  await opened.close();
  await database.drop();
}
