// `node bench/funnel.ts [--quick]`: the funnel of a deal of 100,000 investors and 1,000,000 events
// (quick: 10,000 and 100,000), over HTTP against the service in this process.
//
// Makes a throwaway database (a new PostgreSQL database beside DATABASE_URL's, or a temporary PGlite
// folder), a deal with the demo workflow, and its data in SQL (INSERT … SELECT over generate_series,
// as bench/scale-seed.ts): investors (a third of them professional), one journey each of ten events
// along five patterns (back and forth between steps, ending at complete, documents, withdrawn,
// commitment), two days apart with hours of jitter, the commitment captured. Events go in with
// session_replication_role = replica when the role may (no per-row foreign-key checks, no
// triggers), then the kept funnel is computed once from them (funnel_rebuild, the migration's
// backfill) and timed. Then, after VACUUM ANALYZE, times the routes (after 10 warm-up calls):
// GET …/funnel 200 times, with a classification filter (kept per class) 200 times, with entry filters
// (kept per cohort: every day, a tenth, a tenth and a class) 200 times each, the recount of the tenth
// from the stays once (checked equal), …/funnel/daily 50 times; the
// moves (800, since migration 0024 with no funnel work in their transaction); and the upkeep that
// takes them in from the audit log afterwards, per move, with and without the cohort sums. Prints the
// figures with the load average.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/http/app.ts';
import { putDeal } from '../src/operations/deals.ts';
import { newUuid, systemClock } from '../src/operations/deps.ts';
import { demoWorkflow } from '../src/operations/seed.ts';
import { createToken } from '../src/operations/tokens.ts';
import { putWorkflow } from '../src/operations/workflows.ts';
import { type FunnelRows, readFunnel, recountFunnel } from '../src/store/funnel.ts';
import { applyPendingFunnel, rebuildFunnel } from '../src/store/funnel-upkeep.ts';
import { recomputeCaptured } from '../src/store/journeys.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { createBenchDatabase } from './database.ts';
import { sampleCpu } from './processes.ts';

const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const INVESTORS = args.quick ? 10_000 : 100_000;
const EVENTS_EACH = 10;
const PATTERNS = [
  ['interest', 'commitment', 'interest', 'commitment', 'kyc', 'documents', 'kyc', 'documents', 'payment', 'complete'],
  ['interest', 'commitment', 'kyc', 'commitment', 'kyc', 'documents', 'payment', 'documents', 'payment', 'complete'],
  ['interest', 'commitment', 'interest', 'commitment', 'interest', 'commitment', 'kyc', 'documents', 'kyc', 'documents'],
  ['interest', 'commitment', 'interest', 'commitment', 'kyc', 'commitment', 'kyc', 'commitment', 'kyc', 'withdrawn'],
  ['interest', 'commitment', 'interest', 'commitment', 'interest', 'commitment', 'interest', 'commitment', 'interest', 'commitment'],
];
const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const percentile = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;

const database = await createBenchDatabase(process.env.DATABASE_URL || undefined);
const opened = await database.open({ timeoutMs: 3_600_000 });
try {
  log(
    `funnel bench on ${database.label}; ${INVESTORS.toLocaleString('en')} investors, ${(INVESTORS * EVENTS_EACH).toLocaleString('en')} events; load ${load()}`,
  );
  await migrateToLatest(opened.db);
  const db = opened.db;
  const deps = { db, clock: systemClock, newId: newUuid };
  const dealId = 'funnel-bench';
  await putDeal(deps, dealId, { name: 'Funnel bench', currency: 'EUR' });
  await putWorkflow(deps, dealId, demoWorkflow(dealId));
  const { rows: roles } = await sql<{ superuser: boolean }>`select rolsuper as superuser from pg_roles where rolname = current_user`.execute(db);
  const bypass = roles[0]?.superuser === true && database.kind === 'postgres';
  const patterns = sql`array[${sql.join(PATTERNS.map((p) => sql`array[${sql.join(p.map((s) => sql.lit(s)))}]`))}]::text[][]`;

  let started = performance.now();
  await sql`
    insert into investors (id, remote_id, data_source, team_user_id, kyc_check_level, contact, full_name, email, status, created_at, updated_at)
    select 'fb-' || n, 'crm-' || n, 'crm', null, 2,
      jsonb_build_object('guid', 'guid-' || n, 'externalId', null, 'userType', 1, 'status', 'active',
        'contact', jsonb_build_object('forename', 'Inv', 'middleNames', null, 'surname', 'Estor ' || n, 'title', null, 'nickname', null,
          'dateOfBirth', '1970-01-01', 'email', 'fb' || n || '@example.com'),
        'username', 'fb' || n, 'profilePhotoFileKey', null, 'name', 'Inv Estor ' || n,
        'classifications', jsonb_build_array(jsonb_build_object('investorClassId', 'c', 'organisation', null,
          'investorClass', case when n % 3 = 0 then 'professional' else 'sophisticated' end, 'name', 'Class')),
        'fullName', 'Inv Estor ' || n, 'tfaEnabled', false, 'compliance', 'approved'),
      'Inv Estor ' || n, 'fb' || n || '@example.com', 'active', now(), now()
    from generate_series(1, ${INVESTORS}) n`.execute(db);
  log(`investors: ${((performance.now() - started) / 1000).toFixed(1)} s`);

  started = performance.now();
  await db.transaction().execute(async (trx) => {
    await sql`
      insert into journeys (deal_id, investor_user_id, current_step_id, event_count, payment_reference, started_at, moved_at, workflow_version)
      select ${dealId}, 'fb-' || n, ${dealId} || '.' || (${patterns})[1 + n % ${PATTERNS.length}][${EVENTS_EACH}], ${EVENTS_EACH},
        'RF' || lpad((98 - ((body || '271500')::numeric % 97))::text, 2, '0') || body,
        start + interval '2 days' + (abs(hashint8(n * 100 + 1)) % 47) * interval '1 hour',
        start + ${EVENTS_EACH} * interval '2 days', 1
      from generate_series(1, ${INVESTORS}) n,
        lateral (select '8' || lpad(n::text, 14, '0') as body, now() - interval '400 days' + (n % 300) * interval '1 day' as start) s`.execute(trx);
    if (bypass) await sql`set local session_replication_role = replica`.execute(trx);
    await sql`
      with e as (
        select n, e, (${patterns})[1 + n % ${PATTERNS.length}][e] as name, (${patterns})[1 + n % ${PATTERNS.length}][e - 1] as previous,
          now() - interval '400 days' + (n % 300) * interval '1 day' + e * interval '2 days' + (abs(hashint8(n * 100 + e)) % 47) * interval '1 hour' as at
        from generate_series(1, ${INVESTORS}) n, generate_series(1, ${EVENTS_EACH}) e
      ), inserted as (
        insert into workflow_events (id, deal_id, investor_user_id, seq, from_step_id, to_step_id, data, created_by_user_id, created_at, workflow_version)
        select gen_random_uuid(), ${dealId}, 'fb-' || n, e, ${dealId} || '.' || previous, ${dealId} || '.' || name,
          case when name = 'commitment' then jsonb_build_object('committed_amount', (1000 + n % 50000) || '.' || lpad((n % 100)::text, 2, '0'),
            'currency', case when n % 7 = 0 then 'USD' else 'EUR' end) else '{}'::jsonb end,
          'bench', at, 1
        from e returning id
      )
      -- No revision rows: an event never edited is its own revision 1 (migration 0034).
      select count(*) from inserted`.execute(trx);
    // What a move's write keeps on the journey row (migration 0021), from the events just written.
    await recomputeCaptured(trx, dealId);
  });
  log(`journeys and events: ${((performance.now() - started) / 1000).toFixed(1)} s (triggers ${bypass ? 'bypassed' : 'ran per statement'})`);
  if (bypass) {
    started = performance.now();
    await rebuildFunnel(db, dealId);
    log(
      `funnel_rebuild (the kept funnel from ${(INVESTORS * EVENTS_EACH).toLocaleString('en')} events): ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  started = performance.now();
  await sql`vacuum analyze`.execute(db);
  log(`vacuum analyze: ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_TIMEOUT_MS: '60000', RATE_LIMIT_PER_MINUTE: '0' });
  const app = await buildApp({ ...deps, config });
  await app.ready();
  const token = (await createToken(db, { name: 'bench', role: 'admin' })).token;
  const time = async (label: string, url: string, times: number, warmUp = 10) => {
    for (let i = 0; i < warmUp; i++) await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    const ms: number[] = [];
    for (let i = 0; i < times; i++) {
      const t0 = performance.now();
      const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      ms.push(performance.now() - t0);
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    }
    ms.sort((a, b) => a - b);
    log(`${label}: p50 ${percentile(ms, 0.5).toFixed(1)} ms, p99 ${percentile(ms, 0.99).toFixed(1)} ms (${times} calls; load ${load()})`);
  };
  const first = await app.inject({ method: 'GET', url: `/deals/deal/${dealId}/funnel`, headers: { authorization: `Bearer ${token}` } });
  const funnel = JSON.parse(first.body) as { investors: number; steps: { stepId: string; standing: number; entered: number; timeInStep: unknown }[] };
  log(
    `funnel: ${funnel.investors.toLocaleString('en')} investors; ${funnel.steps.map((s) => `${s.stepId.slice(dealId.length + 1)} ${s.standing}/${s.entered}`).join(', ')}`,
  );
  await time('GET …/workflow-status (a baseline read of the same run)', `/deals/deal/${dealId}/workflow-status`, 200);
  await time('GET …/funnel', `/deals/deal/${dealId}/funnel`, 200);
  await time('GET …/funnel?classification=professional (kept per class)', `/deals/deal/${dealId}/funnel?classification=professional`, 200);
  // The entry filter from the sums kept per cohort (migration 0020): a range of every entry day, and
  // one of about a tenth of them (30 of the 300 days), alone and with a class; then the recount from
  // the stays (what the route did before 0020) of the tenth, for comparison, checked equal.
  const { rows: span } = await sql<{
    first: string;
  }>`select min(started_at at time zone 'UTC')::date::text as first from journeys where deal_id = ${dealId}`.execute(db);
  const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
  const tenth = `enteredFrom=${addDays(span[0]!.first, 100)}&enteredTo=${addDays(span[0]!.first, 129)}`;
  await time('GET …/funnel?enteredFrom=2000-01-01 (kept per cohort, every journey)', `/deals/deal/${dealId}/funnel?enteredFrom=2000-01-01`, 200);
  await time(`GET …/funnel?${tenth} (kept per cohort, a tenth)`, `/deals/deal/${dealId}/funnel?${tenth}`, 200);
  await time(`GET …/funnel?${tenth}&classification=professional`, `/deals/deal/${dealId}/funnel?${tenth}&classification=professional`, 200);
  const tenthFilter = { enteredFrom: addDays(span[0]!.first, 100), enteredTo: addDays(span[0]!.first, 129) };
  started = performance.now();
  const recounted = await recountFunnel(db, dealId, tenthFilter);
  log(`recount of the tenth from the stays (before 0020): ${(performance.now() - started).toFixed(0)} ms (load ${load()})`);
  const order = (r: FunnelRows) => JSON.stringify([r.steps, r.transitions, r.money, r.pending].map((a) => [...a].map((x) => JSON.stringify(x)).sort()));
  if (order(recounted) !== order(await readFunnel(db, dealId, tenthFilter))) throw new Error('the kept cohort figures differ from the recount');
  await time('GET …/funnel/daily (30 days)', `/deals/deal/${dealId}/funnel/daily`, 50);

  // Moves: first moves of fresh investors (to interest), then their second (to commitment,
  // capturing the amount).
  await sql`insert into investors (id, remote_id, data_source, team_user_id, kyc_check_level, contact, full_name, email, status, created_at, updated_at)
    select 'fm-' || i, remote_id || '-m', data_source, team_user_id, kyc_check_level, contact, full_name, email, status, created_at, updated_at
    from investors, generate_series(1, 400) i where id = 'fb-1'`.execute(db);
  const call = (investorUserId: string, target: string, data: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: `/deals/deal/${dealId}/jump-to-step`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ investorUserId, targetStepId: `${dealId}.${target}`, data }),
    });
  const moves: number[] = [];
  for (let i = 1; i <= 400; i++) {
    for (const [target, data] of [
      ['interest', {}],
      ['commitment', { committed_amount: '1000.00', currency: 'EUR' }],
    ] as const) {
      const t0 = performance.now();
      const response = await call(`fm-${i}`, target, data);
      moves.push(performance.now() - t0);
      if (response.statusCode !== 201) throw new Error(`move: ${response.statusCode} ${response.body.slice(0, 300)}`);
    }
  }
  const sortedMoves = moves.sort((a, b) => a - b);
  log(
    `jump-to-step (the funnel wholly off its transaction): p50 ${percentile(sortedMoves, 0.5).toFixed(2)} ms, p99 ${percentile(sortedMoves, 0.99).toFixed(2)} ms (800 moves; load ${load()})`,
  );
  // The upkeep's share, off the moves' path: taking the 800 moves in from the audit log, in four
  // transactions of 200 entries, alternately without the cohort sums' triggers (the upkeep before
  // migration 0020) and with them; wall time and CPU (this process and the database's backends).
  const cohortTriggers = [
    'funnel_stays funnel_cohort_stays_insert',
    'funnel_stays funnel_cohort_stays_update',
    'funnel_positions funnel_cohort_positions_insert',
    'funnel_positions funnel_cohort_positions_update',
  ];
  const upkeep: Record<'with' | 'without', { ms: number; cpu: number; moves: number }> = {
    with: { ms: 0, cpu: 0, moves: 0 },
    without: { ms: 0, cpu: 0, moves: 0 },
  };
  for (let chunk = 0; chunk < 4; chunk++) {
    const mode = chunk % 2 === 0 ? 'without' : 'with';
    for (const t of cohortTriggers)
      await sql.raw(`alter table ${t.split(' ')[0]} ${mode === 'with' ? 'enable' : 'disable'} trigger ${t.split(' ')[1]}`).execute(db);
    const cpu = sampleCpu(process.pid, database.name);
    started = performance.now();
    await applyPendingFunnel(db, 200);
    upkeep[mode].ms += performance.now() - started;
    const used = cpu.stop();
    upkeep[mode].cpu += (used.databaseMs ?? 0) + used.loadMs;
    upkeep[mode].moves += 200;
  }
  for (const t of cohortTriggers) await sql.raw(`alter table ${t.split(' ')[0]} enable trigger ${t.split(' ')[1]}`).execute(db);
  for (const mode of ['without', 'with'] as const) {
    const u = upkeep[mode];
    log(
      `upkeep ${mode} the cohort sums: ${u.moves} moves in ${u.ms.toFixed(0)} ms, ${(u.ms / u.moves).toFixed(3)} ms and ${(u.cpu / u.moves).toFixed(3)} ms CPU (bench + database) per move (load ${load()})`,
    );
  }
  await app.close();
} finally {
  await opened.close();
  await database.drop();
}
