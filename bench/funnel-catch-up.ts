// `node bench/funnel-catch-up.ts [--events 1000000] [--batches 2000,rebuild]`: how long the kept
// funnel takes to catch up with the audit log after a bulk load, as after a restore, a migration or
// an outage.
//
// Makes a throwaway database (as npm run bench), seeds it as `bench --scale` does (bench/scale-seed.ts,
// the directory a tenth of the events, deals of 100,000, 10,000 and 1,000 investors and filler
// deals up to the events asked for), which ends with the service's catch-up (catchUpFunnel, 'now';
// its line "funnel taken in from the audit log in N s"). Then, per batch size asked for, empties the
// kept funnel, puts its cursor back to the log's start and times the catch-up again: in upkeep
// transactions of that many entries (2000: the upkeep's batch), or `rebuild`, the deals recomputed
// (funnel_catch_up, migration 0031), with the CPU time of the database's backends (PostgreSQL).
import os from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { applyPendingFunnel, catchUpFunnelByRebuild } from '../src/store/funnel-upkeep.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { createBenchDatabase } from './database.ts';
import { sampleCpu } from './processes.ts';
import { seedScale, withEventIds } from './scale-seed.ts';

const { values: args } = parseArgs({ options: { events: { type: 'string', default: '1000000' }, batches: { type: 'string', default: '2000' } } });
const events = Number(args.events);
const database = await createBenchDatabase(process.env.DATABASE_URL || undefined);
const opened = await database.open({ timeoutMs: 3_600_000 });
try {
  await migrateToLatest(opened.db);
  const directory = Math.max(10_000, events / 10);
  const plan = { directory, dealSizes: [100_000, 10_000, 1_000].filter((n) => n <= directory), events, fillerDealSize: Math.min(50_000, directory) };
  const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
  const result = await withEventIds(opened.db, () => seedScale(opened.db, plan, log));
  log(`${result.events.toLocaleString('en')} events, ${result.journeys.toLocaleString('en')} journeys`);
  const tables = [
    'funnel_pending',
    'funnel_stays',
    'funnel_positions',
    'funnel_counts',
    'funnel_transitions',
    'funnel_money',
    'funnel_daily',
    'funnel_durations',
    'funnel_cohort_counts',
    'funnel_cohort_transitions',
    'funnel_cohort_money',
    'funnel_cohort_durations',
  ];
  for (const mode of args.batches.split(',')) {
    const batch = Number(mode);
    await opened.db.transaction().execute(async (trx) => {
      await sql`select set_config('dealflow.funnel_rebuilding', 'on', true)`.execute(trx);
      for (const table of tables) await sql`delete from ${sql.table(table)}`.execute(trx);
      await sql`update funnel_upkeep set followed_xid = '0', followed_position = 0 where id = 1`.execute(trx);
    });
    await sql`vacuum analyze`.execute(opened.db);
    const cpu = sampleCpu(process.pid, database.name);
    const started = Date.now();
    let transactions = 0;
    if (mode === 'rebuild') transactions += (await catchUpFunnelByRebuild(opened.db, 1)) > 0 ? 1 : 0;
    while ((await applyPendingFunnel(opened.db, mode === 'rebuild' ? 2000 : batch)) > 0) transactions++;
    const used = cpu.stop();
    log(
      `catch-up ${mode === 'rebuild' ? 'by recomputing the deals (funnel_catch_up)' : `in transactions of ${batch.toLocaleString('en')} entries`}: ${((Date.now() - started) / 1000).toFixed(1)} s, ${transactions} transactions, ` +
        `CPU ${((used.serviceMs ?? 0) / 1000).toFixed(1)} + ${((used.databaseMs ?? 0) / 1000).toFixed(1)} s (this process + database)`,
    );
  }
} finally {
  await opened.close();
  await database.drop();
}
process.stdout.write(
  `${database.kind}, ${os.cpus().length} cores, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
