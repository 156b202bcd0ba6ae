// Check 3, hostile input: at least 20,000 requests generated with fast-check (seeded, the seed
// printed) from every route of /openapi.json and past its schema (support/hostile.ts). No answer
// may be a 5xx or missing, every error must be a problem document, and no refused request may
// change the database. A refused request is caught in the act by a change log (a statement trigger
// on every table, transactional, so rolled-back work leaves no trace), and the row counts and md5
// checksums of every table are compared across every stretch of refused requests (and after any
// refused request whose statements the log saw: only a net change is a failure).
import fc from 'fast-check';
import type pg from 'pg';
import { createClient, isProblem } from '../support/http.ts';
import { hintsOf, buildWorld } from '../support/world.ts';
import { hostileCases } from './hardening-cases.ts';
import { boundaryIntegers, type FuzzRequest, isIntegerParam, requestArbitrary } from '../support/hostile.ts';
import { fillPath, type Hints, loadOperations, type Operation, sampleValid } from '../support/openapi.ts';
import { changedTables, fingerprint, freshDatabase, requestWrittenTables } from '../support/postgres.ts';
import { seed } from '../support/random.ts';
import { newResult, type CheckResult } from '../support/report.ts';
import { startInstance } from '../support/service.ts';

const REQUESTS = Number(process.env.RELIABILITY_FUZZ_REQUESTS || 20_000);
const CHUNK = 250;

/** Installs the change log: every write to a service table, committed, adds a row to rel_changes. */
async function installChangeLog(pool: pg.Pool, tables: string[]) {
  await pool.query(`create table rel_changes (id bigserial primary key, table_name text not null, op text not null)`);
  await pool.query(`create function rel_log_change() returns trigger language plpgsql as $$
    begin insert into rel_changes (table_name, op) values (tg_table_name, tg_op); return null; end $$`);
  for (const table of tables) {
    // Authentication records a token's last use (at most once a minute): not a change of data.
    const events =
      table === 'api_tokens'
        ? 'insert or delete or update of id, name, role, investor_user_id, token_hash, revoked_at'
        : 'insert or update or delete or truncate';
    await pool.query(`create trigger rel_log_change after ${events} on "${table}" for each statement execute function rel_log_change()`);
  }
}

const lastChange = async (pool: pg.Pool) => Number((await pool.query(`select coalesce(max(id), 0) as n from rel_changes`)).rows[0].n);

const summarize = (r: FuzzRequest) => {
  const body =
    r.body === undefined
      ? ''
      : Buffer.isBuffer(r.body)
        ? `<${r.body.length} bytes>`
        : r.body.length > 200
          ? `${r.body.slice(0, 200)}… (${r.body.length} chars)`
          : r.body;
  return `${r.method} ${r.path.slice(0, 200)} [${r.tags.join('; ')}] ${JSON.stringify({ ...r.headers, authorization: r.headers.authorization?.slice(0, 20) })} ${body}`;
};

export async function hostileInput(): Promise<CheckResult> {
  const result = newResult('3 hostile input');
  const started = performance.now();
  const db = await freshDatabase('fuzz');
  try {
    // No dispatcher: its background retries would change the database between requests.
    const service = await startInstance({
      databaseUrl: db.url,
      env: { JWT_SECRET: 'reliability-suite-secret-that-is-long-enough', WEBHOOKS_DISPATCHER: 'off' },
    });
    const client = createClient(service.url, { maxSockets: 4 });
    const operations = await loadOperations(client);
    const world = await buildWorld(client, db.adminToken);
    const investorToken = (await db.newToken('investor', world.a.investorUserId)).token;
    const hints = hintsOf(world.a);
    for (const [k, v] of Object.entries(hintsOf(world.b))) hints[k] = [...(hints[k] ?? []), ...v];
    const tables = await requestWrittenTables(db.pool);
    const arbitrary = requestArbitrary(operations, hints, { admin: db.adminToken, investor: investorToken });
    // Every integer parameter of every route × every boundary value, once each, before the random
    // requests (which draw them too): none may be a 5xx (1e22 and 2^63 used to reach the database
    // as an out-of-range bigint).
    const boundary = boundarySweep(operations, hints, db.adminToken);
    for (const request of boundary.requests) {
      const response = await client.request({ ...request, timeoutMs: 20_000 });
      if (response.status >= 500 || response.status === 0)
        result.failures.push(`boundary ${response.status || response.error}: ${summarize(request)} → ${response.text.slice(0, 300)}`);
      else if (response.status >= 400 && !isProblem(response)) result.failures.push(`boundary: not a problem document: ${summarize(request)}`);
    }
    await installChangeLog(db.pool, tables);

    process.stdout.write(`[3 hostile input] ${REQUESTS} requests over ${operations.length} routes, fast-check seed ${seed}\n`);
    const statuses: Record<string, number> = {};
    const perRoute = new Map<string, number>();
    let sent = 0;
    let refused = 0;
    let accepted = 0;
    let verifiedStretches = 0;
    let checksummed = 0;
    let transient = 0;
    let serverErrors = 0;
    let notProblems = 0;
    let slowest = 0;
    let changeMark = await lastChange(db.pool);
    let baseline = await fingerprint(db.pool, tables);
    let refusedSinceBaseline = 0;
    const compareFingerprint = async () => {
      if (refusedSinceBaseline === 0) return;
      const now = await fingerprint(db.pool, tables);
      const changed = changedTables(baseline, now);
      if (changed.length) result.failures.push(`a stretch of ${refusedSinceBaseline} refused requests changed ${changed.join(', ')} (row counts/md5)`);
      verifiedStretches++;
      checksummed += refusedSinceBaseline;
      baseline = now;
      refusedSinceBaseline = 0;
    };
    for (let chunk = 0; sent < REQUESTS; chunk++) {
      const requests = fc.sample(arbitrary, { seed: seed + chunk, numRuns: Math.min(CHUNK, REQUESTS - sent) });
      for (const [i, request] of requests.entries()) {
        const response = await client.request({ ...request, timeoutMs: 20_000 });
        sent++;
        slowest = Math.max(slowest, response.ms);
        const key = request.tags[0]!;
        perRoute.set(key, (perRoute.get(key) ?? 0) + 1);
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        const where = `#${chunk * CHUNK + i} (seed ${seed}, chunk ${chunk}, index ${i}) ${summarize(request)}`;
        if (response.status >= 500 || response.status === 0) {
          serverErrors++;
          if (serverErrors <= 20) result.failures.push(`${response.status || response.error}: ${where} → ${response.text.slice(0, 300)}`);
          if (!service.alive()) {
            result.failures.push(`the service died:\n${service.output()}`);
            await service.restart();
          }
        } else if (response.status >= 400 && !isProblem(response)) {
          notProblems++;
          if (notProblems <= 5)
            result.failures.push(`not a problem document (${response.status} ${response.headers['content-type']}): ${where} → ${response.text.slice(0, 200)}`);
        }
        const mark = await lastChange(db.pool);
        if (response.status >= 400) {
          refused++;
          refusedSinceBaseline++;
          if (mark !== changeMark) {
            // Statements ran: only a net change counts (an idempotency claim taken and released
            // again leaves the table as it was). Every request since the baseline was refused.
            const now = await fingerprint(db.pool, tables);
            const changed = changedTables(baseline, now);
            if (changed.length) {
              const { rows } = await db.pool.query(`select distinct table_name, op from rel_changes where id > $1`, [changeMark]);
              result.failures.push(
                `a refused request (${response.status}) changed ${changed.join(', ')} (${rows.map((r) => `${r.table_name} ${r.op}`).join(', ')}): ${where}`,
              );
              baseline = now;
            } else transient++;
          }
        } else {
          accepted++;
          // Accepted and written: the refused requests before it were each checked by the change
          // log; the checksum comparison starts again from here.
          if (mark !== changeMark) {
            baseline = await fingerprint(db.pool, tables);
            refusedSinceBaseline = 0;
          }
        }
        changeMark = mark;
        if (refusedSinceBaseline >= 20) await compareFingerprint();
      }
    }
    await compareFingerprint();
    // The holes a probe once found, each aimed at on purpose (hardening-cases.ts).
    const cases = await hostileCases(client, db, tables, service.url);
    result.failures.push(...cases.failures);
    if (serverErrors > 20) result.failures.push(`… ${serverErrors - 20} more answers ≥ 500 or missing`);
    if (notProblems > 5) result.failures.push(`… ${notProblems - 5} more errors that are not problem documents`);
    result.figures = {
      seed,
      'integer parameters': boundary.parameters,
      'boundary values each': boundaryIntegers.length,
      'boundary requests': boundary.requests.length,
      requests: sent,
      routes: operations.length,
      'fewest per route': Math.min(...perRoute.values()),
      refused,
      accepted,
      '5xx or no answer': serverErrors,
      'refused, checked by change log': refused,
      'refused, also by row counts + md5': checksummed,
      'checksum comparisons': verifiedStretches,
      'refused with writes undone': transient,
      'slowest ms': Math.round(slowest),
      statuses: Object.entries(statuses)
        .sort()
        .map(([s, n]) => `${s}×${n}`)
        .join(' '),
      ...cases.figures,
    };
    client.close();
    await service.stop();
    return result;
  } finally {
    result.ms = performance.now() - started;
    await db.drop();
  }
}

/** One request per integer parameter and boundary value, everything else valid (admin token). */
function boundarySweep(operations: Operation[], hints: Hints, adminToken: string): { parameters: number; requests: FuzzRequest[] } {
  const requests: FuzzRequest[] = [];
  let parameters = 0;
  for (const op of operations) {
    const params = [...op.pathParams.map((p) => ({ ...p, in: 'path' })), ...op.queryParams.map((q) => ({ ...q, in: 'query' }))].filter((p) =>
      isIntegerParam(p.schema),
    );
    parameters += params.length;
    for (const param of params) {
      for (const value of boundaryIntegers) {
        const values: Record<string, string> = {};
        for (const p of op.pathParams)
          values[p.name] = param.in === 'path' && p.name === param.name ? value : encodeURIComponent(String(sampleValid(p.schema, hints, p.name)));
        const body = op.body ? JSON.stringify(sampleValid(op.body, hints)) : undefined;
        requests.push({
          method: op.method,
          path: fillPath(op.path, values) + (param.in === 'query' ? `?${param.name}=${value}` : ''),
          headers: { authorization: `Bearer ${adminToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body } : {}),
          tags: [op.key, `boundary ${param.in} ${param.name}=${value}`],
        });
      }
    }
  }
  return { parameters, requests };
}
