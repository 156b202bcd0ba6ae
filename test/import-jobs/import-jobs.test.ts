// Long imports keep their answer (docs/reference/imports.md): above IMPORT_JOB_THRESHOLD, or with
// `Prefer: respond-async`, an import answers 202 with the Location of an import job that reports
// progress and the outcome; a synchronous import is never cut by the connection timeout while it
// works; a job whose process stopped is reported failed (interrupted); an investor learns nothing
// of jobs not theirs. And the instance stays responsive while a big statement is imported.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, test } from 'node:test';
import { client, expectProblem, onPostgres, startApp } from '../support/app.ts';
import { createHash } from 'node:crypto';
import { insertJob } from '../../src/store/import-jobs.ts';
import { insertStatement } from '../../src/store/statements.ts';
import { createDeal } from '../support/deals.ts';
import { camtStatement, csvStatement } from '../support/statements.ts';

const HEADER =
  'id,remoteId,dataSource,teamUserId,kycCheckLevel,guid,externalId,userType,status,contact.title,contact.forename,contact.middleNames,contact.surname,contact.nickname,contact.dateOfBirth,contact.email,username,profilePhotoFileKey,name,fullName,tfaEnabled,compliance,classifications';
const csvLine = (id: string) =>
  `${id},crm-${id},crm,,2,guid-${id},,1,active,Dr,Grace,,Hopper,,1906-12-09,${id}@example.com,${id},,Grace Hopper,Grace Hopper,true,approved,[]`;

describe('import jobs', () => {
  const t = startApp({ env: { IMPORT_JOB_THRESHOLD: String(64 * 1024), REQUEST_TIMEOUT_MS: '1000' } });
  const admin = t.admin;
  let port: number;
  before(async () => {
    // Files above 64 KiB run as jobs; a request must arrive within a second (the slow-client guard).
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });

  const post = (url: string, type: string, payload: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': type, ...headers }, payload }).then((r) => ({
      status: r.statusCode,
      headers: r.headers,
      body: JSON.parse(r.body),
      text: r.body,
    }));

  /** Follows a job to its end, as a client would (GET its Location until it is no longer running). */
  const follow = async (location: string, token = t.adminToken) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const job = await client(t.app, token).get(location);
      assert.equal(job.status, 200, JSON.stringify(job.body));
      if (job.body.status !== 'running') return job.body;
      assert.ok(Date.now() < deadline, 'the job finished within 2 minutes');
      await sleep(100);
    }
  };

  test('a statement sent with Prefer: respond-async answers 202 with a job that ends with the import', async () => {
    const body = csvStatement(50, `async-${process.pid}`);
    const accepted = await post('/payments/statements', 'text/csv', body, { prefer: 'respond-async' });
    assert.equal(accepted.status, 202, accepted.text);
    assert.equal(accepted.headers['preference-applied'], 'respond-async');
    assert.equal(accepted.headers.location, `/imports/jobs/${accepted.body.id}`);
    assert.equal(accepted.body.kind, 'statement');
    assert.equal(accepted.body.bytes, Buffer.byteLength(body));
    const job = await follow(String(accepted.headers.location));
    assert.equal(job.status, 'succeeded', JSON.stringify(job));
    assert.equal(job.statementImport.statement.lineCount, 50);
    assert.equal(job.statementImport.duplicate, false);
    assert.deepEqual(job.statementImport.statuses, { queued: 50 });
    assert.equal(job.progress.stage, 'done');
    assert.ok(job.finishedAt);
    // The same file synchronously: the import on file, nothing new.
    const again = await post('/payments/statements', 'text/csv', body);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.statement.id, job.statementImport.statement.id);
  });

  test('an investor file above the threshold runs as a job; an investor is refused every job alike', async () => {
    const ids = Array.from({ length: 500 }, (_, i) => `job-inv-${process.pid}-${i}`);
    const file = [HEADER, ...ids.map(csvLine), 'short,row'].join('\n');
    assert.ok(file.length > 64 * 1024);
    const accepted = await post('/investors/import', 'text/csv', file);
    assert.equal(accepted.status, 202, accepted.text);
    const job = await follow(String(accepted.headers.location));
    assert.equal(job.status, 'succeeded', JSON.stringify(job));
    assert.deepEqual(job.report.summary, { rows: 501, created: 500, updated: 0, unchanged: 0, refused: 1 });
    assert.deepEqual(
      job.report.rows.map((r: { row: number; outcome: string }) => [r.row, r.outcome]),
      [[501, 'refused']],
    );
    assert.equal((await admin.get(`/investors/${ids[499]}`)).status, 200);

    const investor = await t.investorToken(ids[0]!);
    const hidden = await client(t.app, investor).get(String(accepted.headers.location));
    expectProblem(hidden, 403);
    expectProblem(await client(t.app, investor).get('/imports/jobs/00000000-0000-4000-8000-000000000000'), 403);
    expectProblem(await admin.get('/imports/jobs/00000000-0000-4000-8000-000000000000'), 404);

    // A header that does not fit is still a 400 of the request, not a failed job.
    const badHeader = await post('/investors/import', 'text/csv', [`${HEADER},nonsense`, ...ids.map(csvLine)].join('\n'));
    expectProblem(badHeader, 400);
  });

  test('a move file above the threshold runs as a job too (a dry run here)', async () => {
    const deal = await createDeal(admin);
    const rows = Array.from({ length: 2000 }, (_, i) => `nobody-${i},${deal.step('interest')}`);
    const accepted = await post(`/deals/deal/${deal.dealId}/jump-to-step/import?dryRun=true`, 'text/csv', ['investorUserId,targetStepId', ...rows].join('\n'));
    assert.equal(accepted.status, 202, accepted.text);
    assert.equal(accepted.body.dealId, deal.dealId);
    assert.equal(accepted.body.dryRun, true);
    const job = await follow(String(accepted.headers.location));
    assert.equal(job.status, 'succeeded', JSON.stringify(job).slice(0, 500));
    assert.equal(job.report.summary.rows, 2000);
  });

  test('a job whose process stopped is reported failed: interrupted, send the file again', async () => {
    const id = crypto.randomUUID();
    await insertJob(t.database.db, {
      id,
      kind: 'statement',
      dealId: null,
      dryRun: false,
      createdBy: 'someone',
      bytes: 10,
      progress: { stage: 'matching', done: 0, total: 10 },
      createdAt: new Date(Date.now() - 60_000),
    });
    const job = (await admin.get(`/imports/jobs/${id}`)).body;
    assert.equal(job.status, 'failed');
    assert.equal(job.problem.interrupted, true);
    assert.equal(job.problem.status, 503);
    assert.match(job.problem.detail, /Send the file again/);
  });

  test('a statement whose lines were being stored when its process stopped is finished by sending it again', async () => {
    const body = csvStatement(120, `resume-${process.pid}`);
    // As a process that stopped right after writing the statement leaves it: on file, lines not stored.
    await insertStatement(t.database.db, {
      id: crypto.randomUUID(),
      sha256: createHash('sha256').update(body).digest('hex'),
      format: 'csv',
      messageId: null,
      lineCount: 120,
      importedBy: 'x',
      importedAt: new Date(),
    });
    const again = await post('/payments/statements', 'text/csv', body);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.duplicate, false);
    assert.equal(again.body.statement.newLineCount, 120);
    assert.deepEqual(again.body.statuses, { queued: 120 });
    const lines = await admin.get(`/payments/lines?statementId=${again.body.statement.id}&limit=100&page=2`);
    assert.equal(lines.body.output.length, 20);
    const third = await post('/payments/statements', 'text/csv', body);
    assert.equal(third.status, 200, third.text);
    assert.equal(third.body.duplicate, true);
  });
});

describe('a synchronous import longer than the connection timeout, and responsiveness during imports', () => {
  const t = startApp({ env: { REQUEST_TIMEOUT_MS: '1000' } });
  const admin = t.admin;
  let port: number;
  before(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });

  const postOverSocket = (path: string, type: string, body: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const request = http.request(
        { host: '127.0.0.1', port, method: 'POST', path, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': type, ...headers } },
        (response) => {
          let text = '';
          response.on('data', (c) => (text += c));
          response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });

  /** Light reads every 100 ms while `work` runs: their slowest answers, in ms. */
  const whileReading = async <T>(dealId: string, work: () => Promise<T>) => {
    const health: number[] = [];
    const status: number[] = [];
    let done = false;
    const reader = (async () => {
      while (!done) {
        let at = Date.now();
        assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
        health.push(Date.now() - at);
        at = Date.now();
        const read = await fetch(`http://127.0.0.1:${port}/deals/deal/${dealId}/workflow-status`, { headers: { authorization: `Bearer ${t.adminToken}` } });
        assert.equal(read.status, 200);
        await read.arrayBuffer();
        status.push(Date.now() - at);
        await sleep(100);
      }
    })();
    try {
      return { result: await work(), health: Math.max(...health), status: Math.max(...status), reads: health.length };
    } finally {
      done = true;
      await reader;
    }
  };

  test('a statement import that works longer than REQUEST_TIMEOUT_MS answers on the same connection', async (ctx) => {
    const deal = await createDeal(admin);
    // Long enough to outlast the one-second timeout: PostgreSQL stores lines some times faster.
    const n = onPostgres ? 30_000 : 4000;
    const body = csvStatement(n, `held-${process.pid}`);
    const { result, health, status, reads } = await whileReading(deal.dealId, async () => {
      const started = Date.now();
      const answer = await postOverSocket('/payments/statements', 'text/csv', body);
      return { answer, took: Date.now() - started };
    });
    assert.equal(result.answer.status, 201, result.answer.text);
    assert.equal(JSON.parse(result.answer.text).statement.lineCount, n);
    // The import worked in silence for longer than the connection's idle timeout.
    ctx.diagnostic(`${n}-line CSV statement: ${result.took} ms; slowest healthz ${health} ms, workflow-status ${status} ms over ${reads} reads`);
    assert.ok(result.took > 1000, `the import took ${result.took} ms`);
    assert.ok(reads > 0);
    assert.ok(health < 3000 && status < 3000, `slowest light reads during the import: healthz ${health} ms, workflow-status ${status} ms`);
  });

  test('while a 20,000-entry camt.053 is imported as a job, light reads answer promptly', async (ctx) => {
    const deal = await createDeal(admin);
    const body = camtStatement(20_000, `big-${process.pid}`);
    const { result, health, status, reads } = await whileReading(deal.dealId, async () => {
      const accepted = await postOverSocket('/payments/statements', 'application/xml', body, { prefer: 'respond-async' });
      assert.equal(accepted.status, 202, accepted.text);
      for (;;) {
        const job = (await admin.get(String(accepted.headers.location))).body;
        if (job.status !== 'running') return job;
        await sleep(200);
      }
    });
    assert.equal(result.status, 'succeeded', JSON.stringify(result));
    assert.equal(result.statementImport.statement.lineCount, 20_000);
    ctx.diagnostic(
      `20,000-entry camt.053 (${(body.length / 1024 / 1024).toFixed(1)} MiB): slowest healthz ${health} ms, workflow-status ${status} ms over ${reads} reads`,
    );
    assert.ok(reads > 3);
    assert.ok(health < 3000 && status < 3000, `slowest light reads during the import: healthz ${health} ms, workflow-status ${status} ms`);
  });
});
