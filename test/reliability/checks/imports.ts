// Check 8, imports (docs/reference/imports.md), on a service process of its own:
// - endless line: one NDJSON line, one unterminated CSV quote (investors, moves, a CSV statement)
//   that never end are refused after 1 MiB (413, or the connection closed), the process lives, its
//   memory stays flat, nothing is stored;
// - invalid UTF-8 in a file (investor CSV, CSV and camt statements): 400 naming the line, nothing stored;
// - long import with its answer: a 60,000-line CSV statement answered synchronously although it
//   works far longer than REQUEST_TIMEOUT_MS, and a 30,000-entry camt.053 above the job threshold
//   followed through its import job to the outcome;
// - responsiveness: /healthz and workflow-status every 100 ms while the camt.053 is imported, p99
//   under 1 s.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { createClient, isProblem, sleep } from '../support/http.ts';
import { freshDatabase } from '../support/postgres.ts';
import { newResult, type CheckResult } from '../support/report.ts';
import { startInstance } from '../support/service.ts';
import { buildWorld } from '../support/world.ts';
import { camtStatement, csvStatement } from '../../support/statements.ts';

const MB = 1024 * 1024;
const REQUEST_TIMEOUT_MS = 2000;
const ENDLESS_BYTES = 64 * MB;

const rssOf = (pid: number | undefined) => {
  if (pid === undefined) return 0;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
};

/** Writes `head` then an endless line until the service answers or closes; what came back. */
function sendEndless(port: number, path: string, type: string, head: string, token: string) {
  return new Promise<{ status?: number; json?: any; closed?: string; written: number }>((resolve) => {
    let written = 0;
    let settled = false;
    const settle = (value: { status?: number; json?: any; closed?: string; written: number }) => {
      if (settled) return;
      settled = true;
      request.destroy();
      resolve(value);
    };
    const request = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers: { authorization: `Bearer ${token}`, 'content-type': type } });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      const at = written;
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          json = undefined;
        }
        settle({ status: response.statusCode!, json, written: at });
      });
      response.on('error', () => settle({ closed: 'response cut', written: at }));
    });
    request.on('error', (err: NodeJS.ErrnoException) => settle({ closed: err.code ?? err.message, written }));
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    const pump = () => {
      while (!settled && written < ENDLESS_BYTES) {
        const next = written === 0 ? Buffer.concat([Buffer.from(head), chunk]) : chunk;
        written += next.length;
        if (!request.write(next)) return void request.once('drain', pump);
      }
      if (!settled) request.end();
    };
    pump();
  });
}

const p99 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
};

export async function imports(): Promise<CheckResult> {
  const result = newResult('8 imports');
  const started = performance.now();
  const db = await freshDatabase('imports');
  try {
    const service = await startInstance({ databaseUrl: db.url, env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
    const client = createClient(service.url);
    const admin = db.adminToken;
    const world = await buildWorld(client, admin);
    const dealId = world.a.dealId;
    const stored = async () => {
      const { rows } = await db.pool.query(
        `select (select count(*) from investors)::int as investors, (select count(*) from payment_statements)::int as statements,
          (select count(*) from workflow_events)::int as events`,
      );
      return JSON.stringify(rows[0]);
    };

    // Endless lines.
    const before = await stored();
    const rssBefore = rssOf(service.pid);
    let rssPeak = rssBefore;
    let refused = 0;
    for (const [path, type, head] of [
      ['/investors/import', 'application/x-ndjson', '{"id":"'],
      ['/investors/import', 'text/csv', 'id,remoteId\n"'],
      [`/deals/deal/${dealId}/jump-to-step/import`, 'text/csv', 'investorUserId,targetStepId\ni-1,"'],
      ['/payments/statements', 'text/csv', 'date,amount,currency,reference\n2026-01-02,1.00,EUR,"'],
    ] as const) {
      const sent = await sendEndless(service.port, path, type, head, admin);
      rssPeak = Math.max(rssPeak, rssOf(service.pid));
      if (sent.status !== undefined && (sent.status !== 413 || typeof sent.json?.detail !== 'string')) {
        result.failures.push(`${path} (${type}) endless line: ${sent.status} ${JSON.stringify(sent.json).slice(0, 200)}`);
      } else refused++;
      if (!service.alive()) {
        result.failures.push(`${path} (${type}) endless line: the service died:\n${service.output()}`);
        break;
      }
      const health = await client.get('/healthz');
      if (health.status !== 200) result.failures.push(`after an endless line on ${path}: /healthz ${health.status}`);
    }
    if (rssPeak - rssBefore > 64 * MB) result.failures.push(`memory grew by ${Math.round((rssPeak - rssBefore) / MB)} MiB while endless lines were sent`);
    if ((await stored()) !== before) result.failures.push(`endless lines stored something: ${before} → ${await stored()}`);

    // Invalid UTF-8.
    let badUtf8 = 0;
    const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    for (const [path, type, body, line] of [
      ['/investors/import', 'text/csv', bytes('id,remoteId\nu-1,r', [0xff], '\n'), 2],
      ['/investors/import', 'application/x-ndjson', bytes('{"id":"u-2"}\n{"id":"u-3","remoteId":"', [0xc3, 0x28], '"}\n'), 2],
      ['/payments/statements', 'text/csv', bytes('date,amount,currency,reference\n2026-01-02,1.00,EUR,x\n2026-01-03,2.00,EUR,', [0xed, 0xa0, 0x80], '\n'), 3],
      [
        '/payments/statements',
        'application/xml',
        bytes(
          '<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>',
          [0xc0, 0xaf],
          '</MsgId></GrpHdr></BkToCstmrStmt></Document>',
        ),
        2,
      ],
    ] as const) {
      const response = await client.request({ method: 'POST', path, headers: { authorization: `Bearer ${admin}`, 'content-type': type }, body });
      if (response.status !== 400 || !isProblem(response) || response.json.line !== line) {
        result.failures.push(`${path} (${type}) with invalid UTF-8 on line ${line}: ${response.status} ${response.text.slice(0, 200)}`);
      } else badUtf8++;
    }
    if ((await stored()) !== before) result.failures.push(`invalid UTF-8 stored something: ${before} → ${await stored()}`);

    // A long synchronous import keeps its answer.
    const csv = csvStatement(60_000, `rel-${Date.now()}`);
    const sync = await client.request({
      method: 'POST',
      path: '/payments/statements',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'text/csv' },
      body: csv,
      timeoutMs: 600_000,
    });
    if (sync.status !== 201 || sync.json?.statement?.lineCount !== 60_000)
      result.failures.push(`a 60,000-line CSV statement: ${sync.status} ${sync.error ?? sync.text.slice(0, 200)}`);

    // A 30,000-entry camt.053, as a job, while light reads go on.
    const camt = camtStatement(30_000, `rel-${Date.now()}`, { wordy: true });
    const health: number[] = [];
    const status: number[] = [];
    let importing = true;
    const reader = (async () => {
      while (importing) {
        const h = await client.get('/healthz');
        health.push(h.status === 200 ? h.ms : Number.POSITIVE_INFINITY);
        const s = await client.get(`/deals/deal/${dealId}/workflow-status`, admin);
        status.push(s.status === 200 ? s.ms : Number.POSITIVE_INFINITY);
        await sleep(100);
      }
    })();
    const jobStarted = performance.now();
    let job: any;
    try {
      const accepted = await client.request({
        method: 'POST',
        path: '/payments/statements',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/xml' },
        body: camt,
        timeoutMs: 120_000,
      });
      if (accepted.status !== 202 || typeof accepted.headers.location !== 'string') {
        result.failures.push(`a ${(camt.length / MB).toFixed(1)} MiB camt.053: ${accepted.status} ${accepted.text.slice(0, 200)}, not 202 with a Location`);
      } else {
        const deadline = Date.now() + 600_000;
        for (;;) {
          const read = await client.get(accepted.headers.location, admin);
          job = read.json;
          if (read.status !== 200 || job?.status !== 'running' || Date.now() > deadline) break;
          await sleep(500);
        }
        if (job?.status !== 'succeeded' || job.statementImport?.statement?.lineCount !== 30_000) {
          result.failures.push(`the camt.053 import job: ${JSON.stringify(job).slice(0, 300)}`);
        }
      }
    } finally {
      importing = false;
      await reader;
    }
    const jobMs = performance.now() - jobStarted;
    const healthP99 = p99(health);
    const statusP99 = p99(status);
    if (healthP99 > 1000 || statusP99 > 1000)
      result.failures.push(`light reads during the camt.053 import: p99 /healthz ${Math.round(healthP99)} ms, workflow-status ${Math.round(statusP99)} ms`);

    client.close();
    await service.stop();
    result.figures = {
      'endless lines refused': refused,
      'rss growth MiB': Math.round((rssPeak - rssBefore) / MB),
      'invalid UTF-8 400': badUtf8,
      '60k-line CSV statement ms': Math.round(sync.ms),
      'camt.053 MiB': (camt.length / MB).toFixed(1),
      '30k-entry camt job ms': Math.round(jobMs),
      'reads during it': health.length,
      'p99 healthz ms': Math.round(healthP99),
      'p99 workflow-status ms': Math.round(statusP99),
    };
    return result;
  } finally {
    result.ms = performance.now() - started;
    await db.drop();
  }
}
