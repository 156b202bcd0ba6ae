// GET /metrics: Prometheus text behind METRICS_TOKEN (never an API key or an investor's token), or on
// METRICS_LISTEN; request counters by route pattern and status move exactly as the requests did,
// and the gauges read from the database (webhook deliveries, reconciliation queue, funnel, import
// jobs) and the process metrics are there.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { startMetricsListener } from '../../src/main.ts';
import { observeGroupCommitBatch } from '../../src/metrics.ts';
import { client, expectProblem, startApp, startTestApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const MOVE_ROUTE = '/deals/deal/:dealId/jump-to-step';

/** Every sample of the text format: `name{a="b",…} value`. */
function parse(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of match[2]?.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g) ?? []) labels[k!] = v!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

const value = (samples: ReturnType<typeof parse>, name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);

describe('metrics', () => {
  const t = startApp({ env: { METRICS_TOKEN } });
  const admin = t.admin;
  const scrape = async () => {
    const response = await client(t.app).get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
    assert.equal(response.status, 200, response.text);
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.equal(response.headers['cache-control'], 'no-store');
    return parse(response.text);
  };

  test('no token, an API key, an investor token or a wrong token: 401, and nothing about the service', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const investorToken = await t.investorToken(investor);
    for (const authorization of [undefined, `Bearer ${t.adminToken}`, `Bearer ${investorToken}`, `Bearer ${METRICS_TOKEN}x`, METRICS_TOKEN]) {
      const response = await client(t.app).get('/metrics', authorization === undefined ? {} : { authorization });
      expectProblem(response, 401);
      assert.equal(response.headers['www-authenticate'], 'Bearer');
      assert.doesNotMatch(response.text, /dealflow_/);
    }
  });

  test('without METRICS_TOKEN there is no /metrics on the service port', async () => {
    const plain = await startTestApp();
    try {
      expectProblem(await client(plain.app).get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` }), 404);
    } finally {
      await plain.close();
    }
  });

  test('the request counters move as the requests did, by route pattern and status', async () => {
    const deal = await createDeal(admin);
    const investors = await Promise.all(Array.from({ length: 5 }, () => deal.addInvestor()));
    const before = await scrape();
    const moves = { method: 'POST', route: MOVE_ROUTE };
    const base201 = value(before, 'dealflow_http_requests_total', { ...moves, status_code: '201' });
    const base409 = value(before, 'dealflow_http_requests_total', { ...moves, status_code: '409' });
    const base404 = value(before, 'dealflow_http_requests_total', { route: 'unmatched', status_code: '404' });
    const baseDuration = value(before, 'dealflow_http_request_duration_seconds_count', { ...moves, status_code: '201' });

    for (const investor of investors) await deal.move(investor, 'interest');
    for (const investor of investors.slice(0, 3)) await deal.move(investor, 'commitment', { committed_amount: '1000.00', currency: 'EUR' });
    // A move from a position the caller no longer holds: 409, twice.
    for (const investor of investors.slice(0, 2)) {
      const refused = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
        investorUserId: investor,
        targetStepId: deal.step('commitment'),
        fromStepId: deal.step('interest'),
        data: { committed_amount: '1.00', currency: 'EUR' },
      });
      assert.ok(refused.status >= 400 && refused.status < 500, `${refused.status}`);
    }
    for (let i = 0; i < 4; i++) expectProblem(await admin.get(`/no-such-route-${i}`), 404);

    const afterLoad = await scrape();
    assert.equal(value(afterLoad, 'dealflow_http_requests_total', { ...moves, status_code: '201' }) - base201, 8);
    assert.equal(value(afterLoad, 'dealflow_http_request_duration_seconds_count', { ...moves, status_code: '201' }) - baseDuration, 8);
    const refusals = afterLoad.filter(
      (s) => s.name === 'dealflow_http_requests_total' && s.labels.route === MOVE_ROUTE && s.labels.status_code!.startsWith('4'),
    );
    assert.equal(
      refusals.reduce((n, s) => n + s.value, 0) -
        base409 -
        before
          .filter(
            (s) =>
              s.name === 'dealflow_http_requests_total' &&
              s.labels.route === MOVE_ROUTE &&
              s.labels.status_code!.startsWith('4') &&
              s.labels.status_code !== '409',
          )
          .reduce((n, s) => n + s.value, 0),
      2,
    );
    assert.equal(value(afterLoad, 'dealflow_http_requests_total', { route: 'unmatched', status_code: '404' }) - base404, 4);
    // The raw URLs never become labels.
    assert.ok(!afterLoad.some((s) => s.labels.route?.includes(deal.dealId) || s.labels.route?.includes('no-such-route')));
    // The duration is in seconds: a move takes far less than a minute.
    const sum =
      value(afterLoad, 'dealflow_http_request_duration_seconds_sum', { ...moves, status_code: '201' }) -
      value(before, 'dealflow_http_request_duration_seconds_sum', { ...moves, status_code: '201' });
    assert.ok(sum > 0 && sum < 60, `${sum}`);
  });

  test('statement errors by SQLSTATE, the database gauges, group commits and the process metrics', async () => {
    const before = await scrape();
    // A statement that fails in the database: a duplicate key.
    await t.database.db
      .insertInto('deals')
      .values({ deal_id: 'metrics-dup', name: 'x', currency: 'EUR' } as never)
      .execute()
      .catch(() => {});
    await t.database.db
      .insertInto('deals')
      .values({ deal_id: 'metrics-dup', name: 'x', currency: 'EUR' } as never)
      .execute()
      .catch(() => {});
    observeGroupCommitBatch(3);
    const samples = await scrape();
    assert.ok(value(samples, 'dealflow_db_statement_errors_total') > value(before, 'dealflow_db_statement_errors_total'), 'a failed statement is counted');
    assert.equal(value(samples, 'dealflow_group_commit_batch_size_count') - value(before, 'dealflow_group_commit_batch_size_count'), 1);
    for (const name of [
      'dealflow_webhook_deliveries_pending',
      'dealflow_webhook_oldest_due_seconds',
      'dealflow_outbox_lag_seconds',
      'dealflow_outbox_head_position',
      'dealflow_funnel_pending_journeys',
      'dealflow_funnel_lag_seconds',
      'dealflow_import_jobs',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      assert.ok(
        samples.some((s) => s.name === name),
        `${name} is reported`,
      );
    }
    assert.ok(value(samples, 'dealflow_outbox_head_position') > 0, 'the moves wrote outbox entries');
    assert.equal(value(samples, 'dealflow_import_jobs', { status: 'running' }), 0);
    assert.equal(value(samples, 'dealflow_metrics_database_read_errors_total'), value(before, 'dealflow_metrics_database_read_errors_total'));
  });

  test('METRICS_LISTEN: /metrics on an address of its own, with the token when one is set', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const config = loadConfig({ METRICS_LISTEN: `127.0.0.1:${port}`, METRICS_TOKEN });
    const close = await startMetricsListener(config, t.database.db, { info: () => {} });
    try {
      const url = `http://127.0.0.1:${port}/metrics`;
      assert.equal((await fetch(url)).status, 401);
      const ok = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /^# HELP/m);
      assert.equal((await fetch(`http://127.0.0.1:${port}/deals`)).status, 404);
    } finally {
      await close();
    }
  });
});
