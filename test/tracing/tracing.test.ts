// OpenTelemetry traces: a service started with OTEL_EXPORTER_OTLP_ENDPOINT sends its spans to an
// OTLP/HTTP receiver (a small HTTP server here, taking the JSON encoding); a move's server span is
// named by its route and carries the request id the client sent, which the problem documents and
// logs also carry; on PostgreSQL the move's statements are spans of the same trace. Without the
// variable, nothing is sent (and the SDK is not loaded).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { startServiceProcess } from '../support/service-process.ts';
import { onPostgres } from '../support/app.ts';
import { checkedFetch } from '../support/contract.ts';
import { investorBody } from '../support/fixtures.ts';
import { clusterUnavailable, createCluster, freePort, type ThrowawayCluster } from '../support/throwaway-cluster.ts';
import { workflowBody } from '../support/workflows.ts';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

/** An OTLP/HTTP receiver of JSON-encoded traces: every span it was sent. */
async function receiver(): Promise<{ url: string; spans: Span[]; posts: number; close(): Promise<void> }> {
  const spans: Span[] = [];
  const state = { posts: 0 };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (c: Buffer) => (body += c.toString()));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        state.posts++;
        const parsed = JSON.parse(body);
        for (const rs of parsed.resourceSpans ?? []) {
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              const attributes: Record<string, unknown> = {};
              for (const a of s.attributes ?? []) attributes[a.key] = a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? a.value.doubleValue;
              spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, attributes });
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get posts() {
      return state.posts;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const startService = (env: Record<string, string>) => startServiceProcess({ WEBHOOKS_DISPATCHER: 'off', ...env });

describe('tracing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-tracing-'));
  let cluster: ThrowawayCluster | undefined;
  let databaseEnv: Record<string, string>;
  const unavailable = onPostgres ? clusterUnavailable() : undefined;
  before(async () => {
    if (onPostgres && !unavailable) cluster = await createCluster();
    databaseEnv = cluster ? { DATABASE_URL: cluster.url } : { DATABASE_URL: '', DATA_DIR: join(dir, 'data') };
  });
  after(() => {
    cluster?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a move's spans reach an OTLP receiver, named by route, with the request id", { skip: unavailable ?? false, timeout: 300_000 }, async () => {
    const otlp = await receiver();
    const service = await startService({
      ...databaseEnv,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'dealflow-test',
    });
    try {
      const created = spawnSync(process.execPath, ['bin/dealflow.js', 'token', 'create', '--role', 'admin', '--name', 'tracing'], {
        env: { ...process.env, ...databaseEnv },
        encoding: 'utf8',
        timeout: 120_000,
      });
      assert.equal(created.status, 0, created.stderr);
      const token = /dfk_[A-Za-z0-9_-]+/.exec(created.stdout)![0];
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const dealId = `trace-${randomUUID().slice(0, 8)}`;
      assert.equal(
        (await checkedFetch(service.base, `/deals/deal/${dealId}`, { method: 'PUT', headers, body: JSON.stringify({ name: 'Traced', currency: 'EUR' }) }))
          .status,
        201,
      );
      assert.equal(
        (await checkedFetch(service.base, `/deals/deal/${dealId}/workflow`, { method: 'PUT', headers, body: JSON.stringify(workflowBody(dealId)) })).status,
        201,
      );
      assert.equal(
        (await checkedFetch(service.base, '/investors/traced-investor', { method: 'PUT', headers, body: JSON.stringify(investorBody()) })).status,
        201,
      );
      const requestId = `move-${randomUUID()}`;
      const move = await checkedFetch(service.base, `/deals/deal/${dealId}/jump-to-step`, {
        method: 'POST',
        headers: { ...headers, 'x-request-id': requestId, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ investorUserId: 'traced-investor', targetStepId: `${dealId}.interest`, data: {} }),
      });
      assert.equal(move.status, 201, move.text);
      assert.equal(move.headers['x-request-id'], requestId);
      // A refused request: the problem document carries the same kind of id as the trace.
      const problemId = `refused-${randomUUID()}`;
      const refused = await checkedFetch(service.base, `/deals/deal/${dealId}/jump-to-step`, {
        method: 'POST',
        headers: { ...headers, 'x-request-id': problemId },
        body: '{}',
      });
      assert.equal(refused.status, 400);
      assert.equal(refused.json.requestId, problemId);
      await service.stop(); // flushes the spans still buffered
      const server = otlp.spans.find((s) => s.attributes['dealflow.request_id'] === requestId);
      assert.ok(server, `a span carries the request id; got ${otlp.spans.map((s) => s.name).join(', ')}`);
      assert.equal(server.name, 'POST /deals/deal/:dealId/jump-to-step');
      assert.equal(server.attributes['http.route'], '/deals/deal/:dealId/jump-to-step');
      assert.ok(
        otlp.spans.some((s) => s.attributes['dealflow.request_id'] === problemId),
        'the refused request is traced with its id too',
      );
      assert.ok(!otlp.spans.some((s) => /healthz|readyz/.test(s.name)));
      const inTrace = otlp.spans.filter((s) => s.traceId === server.traceId);
      if (cluster) {
        const statements = inTrace.filter((s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql');
        assert.ok(statements.length > 0, `the move's statements are spans of its trace; got ${inTrace.map((s) => s.name).join(', ')}`);
      }
      process.stdout.write(
        `# ${otlp.spans.length} spans in ${otlp.posts} posts; the move's trace has ${inTrace.length}: ${[...new Set(inTrace.map((s) => s.name))].join(', ')}\n`,
      );
    } finally {
      await service.stop();
      await otlp.close();
    }
  });

  test('tracing is on only with an endpoint; OTLP over HTTP, protobuf unless told JSON', () => {
    assert.equal(loadConfig({}).tracing, undefined);
    assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'x' }).tracing, undefined);
    assert.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing, {
      tracesUrl: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'dealflow',
    });
    assert.deepEqual(
      loadConfig({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c.example/otlp/traces',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'df-eu',
      }).tracing,
      {
        tracesUrl: 'https://c.example/otlp/traces',
        protocol: 'http/json',
        serviceName: 'df-eu',
      },
    );
    assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' }), /OTEL_EXPORTER_OTLP_ENDPOINT/);
    assert.throws(
      () => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
      /OTEL_EXPORTER_OTLP_PROTOCOL: must be one of http\/protobuf, http\/json/,
    );
  });
});
