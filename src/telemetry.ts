// OpenTelemetry traces, only when OTEL_EXPORTER_OTLP_ENDPOINT (or …_TRACES_ENDPOINT) is set
// (config.ts, `tracing`). Without it nothing of this file or of the SDK is loaded: `serve` and
// `worker` import it on demand, so tracing off costs nothing.
//
// Instrumentation patches modules as they load, so this starts before the service's code is
// imported (cli/commands.ts calls it before importing main.ts). Our code is ES modules and imports
// `pg` and Node's `http` from them, which CommonJS require hooks do not see: import-in-the-middle's
// loader hook is registered first, in-thread through module.registerHooks() on Node 24 (its
// register-hooks entry), or through module.register() where that is not supported. This replaces
// the `--import @opentelemetry/...register` flag other set-ups pass to node, so neither `npm start`
// nor bin/dealflow.js needs a flag.
//
// What is traced: each HTTP request (a server span named by the route pattern, with the request
// id as `dealflow.request_id`, set in http/app.ts) and each PostgreSQL statement under it (pg's
// instrumentation; PGlite runs in-process and has none), and the webhook dispatcher's outgoing
// requests. Spans go to `<endpoint>/v1/traces` over OTLP/HTTP, protobuf by default or JSON
// (OTEL_EXPORTER_OTLP_PROTOCOL=http/json), in batches.
import module from 'node:module';
import type { TracingConfig } from './config.ts';

/** Starts tracing; returns the function that flushes the spans still buffered and stops. */
export async function startTracing(config: TracingConfig): Promise<() => Promise<void>> {
  const include = ['pg', 'pg-pool', 'http', 'https', 'node:http', 'node:https', 'fastify'];
  const hooks = await import('import-in-the-middle/register-hooks.mjs');
  if (hooks.supportsSyncHooks()) hooks.register({ include });
  else module.register('import-in-the-middle/hook.mjs', import.meta.url, { data: { include } });

  const [{ NodeSDK }, { HttpInstrumentation }, { PgInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  const { OTLPTraceExporter } =
    config.protocol === 'http/json' ? await import('@opentelemetry/exporter-trace-otlp-http') : await import('@opentelemetry/exporter-trace-otlp-proto');
  const sdk = new NodeSDK({
    serviceName: config.serviceName,
    traceExporter: new OTLPTraceExporter({ url: config.tracesUrl }),
    // Traces only: the metrics are Prometheus' (GET /metrics), the logs pino's JSON lines.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes every few seconds would drown the requests that matter.
        ignoreIncomingRequestHook: (request) => /\/(healthz|readyz|metrics)(\?|$)/.test(request.url ?? ''),
        // The exporter's own posts to the collector.
        ignoreOutgoingRequestHook: (request) => String(request.path ?? '').endsWith('/v1/traces'),
      }),
      // Statements under a request only: the upkeeps' every-second polls would be most of the spans.
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
    ],
  });
  sdk.start();
  return () => sdk.shutdown().catch(() => {});
}
