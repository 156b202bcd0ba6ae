// buildApp assembles the Fastify application without listening, so tests use app.inject().
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { registerAjvFormats, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { checkDatabase, READINESS_ANSWER_MS, READINESS_BOUND_MS, within } from '../operations/readiness.ts';
import type { Api, AppContext } from './context.ts';
import { registerApiRoutes } from './api-scope.ts';
import { createAuthenticator } from './auth.ts';
import { clientErrorHandler } from './client-errors.ts';
import { errorToProblem, isClientAbort } from './errors.ts';
import { registerJsonBody } from './json-body.ts';
import { registerMetricsRoute, registerRequestMetrics } from './metrics.ts';
import { registerQueryEncoding } from './query-encoding.ts';
import { sendProblem } from './problems.ts';
import { serializerCompiler } from './serialization.ts';
import { validatorCompiler } from './validation.ts';
import { documentRoute, finishDocument } from './openapi-document.ts';
import { apiVersion } from './openapi-operations.ts';
import { registerConsoleApp, registerPortalApp } from './web-apps.ts';
import { registerCookieApi } from './cookie-api.ts';
import { consoleDoor, portalDoor } from './sign-in-door.ts';
import { DatabaseUnavailableProblem, Problem } from './schemas/problems.ts';

export type { Api, AppContext } from './context.ts';

export interface BuildOptions {
  /** Fastify logger options; false in tests. */
  logger?: FastifyServerOptions['logger'];
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Trusts the nearest `n` proxies (proxy-addr's hop count; Fastify's types name only the function form). */
const hops = (n: number) => (_address: string, hop: number) => hop < n;

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<Api> {
  const { config } = ctx;
  const sweepMs = Math.max(250, Math.min(1000, Math.floor(config.requestTimeoutMs / 4)));
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    // connectionTimeout is the socket's idle timeout: it guards against clients that send slowly,
    // but would also cut a request whose handler works long without writing (a big synchronous
    // import): the import routes lift it once their body has arrived (routes/import-jobs.ts,
    // holdConnection), and imports above IMPORT_JOB_THRESHOLD answer 202 with an import job. It
    // runs two sweeps past REQUEST_TIMEOUT_MS, so a request still arriving (a chunked upload that
    // sends nothing after its headers) meets the request timeout first and is answered 408, rather
    // than its idle socket being closed without a word.
    connectionTimeout: config.requestTimeoutMs + 2 * sweepMs,
    // Node enforces requestTimeout and headersTimeout only when it sweeps its connections, every
    // 30 s by default: a client trickling a header byte at a time held a socket for 30 s past
    // REQUEST_TIMEOUT_MS (found by the reliability suite). Sweep often enough that a slow
    // client is cut off within a second of its deadline.
    http: {
      connectionsCheckingInterval: sweepMs,
      headersTimeout: config.requestTimeoutMs,
    },
    return503OnClosing: true,
    // The client's address (rate limits per address, logs) from X-Forwarded-For only through the proxies named.
    trustProxy: typeof config.trustProxy === 'number' ? hops(config.trustProxy) : config.trustProxy,
    clientErrorHandler,
    // Request ids: the caller's X-Request-Id when it is a plain token, otherwise a new UUID.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { maxParamLength: 500 },
    // Bad URLs and over-long path parameters, rejected by the router before any route runs.
    // No route ran, so no onSend hook: the request id header is set here (the contract promises it).
    frameworkErrors: (error, request, reply) =>
      sendProblem(
        reply.header('X-Request-Id', request.id),
        new AppError('validation', error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long' : 'The URL is malformed'),
      ),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Bodies are validated as sent; query and path parameters are converted from text (TypeBox
  // compiler: Value.Convert applies to every part but the body).
  registerAjvFormats();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerJsonBody(app);
  // The request id header, set first so that every answer carries it, errors included (the error
  // handler keeps headers already set). A plain hook: an async one costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  registerRequestMetrics(app as unknown as FastifyInstance, config.basePath);
  // With tracing on (OTEL_EXPORTER_OTLP_ENDPOINT; src/telemetry.ts started it), the request's
  // server span is named by its route and carries the request id, as the logs and problems do.
  // Without it, the API module is not even loaded.
  if (config.tracing) {
    const { trace } = await import('@opentelemetry/api');
    app.addHook('onRequest', (request, _reply, done) => {
      const span = trace.getActiveSpan();
      if (span) {
        const route = request.routeOptions.url;
        span.setAttribute('dealflow.request_id', String(request.id));
        if (route !== undefined) {
          span.setAttribute('http.route', route);
          span.updateName(`${request.method} ${route}`);
        }
      }
      done();
    });
  }
  registerQueryEncoding(app);
  app.setErrorHandler((error, request, reply) => {
    const appError = errorToProblem(error, config.bodyLimit);
    if (isClientAbort(error)) request.log.info({ code: (error as { code?: string }).code }, 'client aborted the request');
    else if (appError.kind === 'internal') request.log.error({ err: error }, 'unhandled error');
    else if (appError.kind === 'database-unavailable') {
      request.log.warn({ err: error }, 'database unavailable');
      reply.header('Retry-After', '5');
    } else if (appError.kind === 'outcome-unknown') {
      request.log.warn({ err: error }, 'outcome of a commit unknown');
      reply.header('Retry-After', '1');
    }
    return sendProblem(reply, appError);
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, new AppError('not-found', `No route ${request.method} ${request.url.split('?')[0]}`)));

  // Every route gets its operationId, security and problem responses (openapi-document.ts).
  app.addHook('onRoute', (route) => documentRoute(route, config.basePath));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'dealflow',
        version: apiVersion,
        description: 'Runs investors through private-market deals. Errors are RFC 9457 problem documents.',
      },
      servers: [{ url: config.basePath || '/' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key (dfk_…) or JWT' } } },
    },
    // Schemas added with addSchema are components named by their $id, not def-0.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transformObject: (documents) => finishDocument('openapiObject' in documents ? documents.openapiObject : documents.swaggerObject) as never,
    transform: ({ schema, url }) => ({ schema, url: url.startsWith(config.basePath) ? url.slice(config.basePath.length) || '/' : url }),
  });

  // Public scope: probes, the OpenAPI document and its UI, the console app.
  await app.register(
    async (scope) => {
      await scope.register(swaggerUi, { routePrefix: '/docs' });
      await registerConsoleApp(scope, config.basePath);
      await registerPortalApp(scope, config.basePath);
      registerMetricsRoute(scope, ctx);
      scope.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
      scope.get('/healthz', { schema: probeSchema('The process is up', 'ok'), config: { public: true } }, async () => ({ status: 'ok' as const }));
      scope.get(
        '/readyz',
        { schema: probeSchema('The service is ready: a write commits on the database (answered within 1 s)', 'ready'), config: { public: true } },
        async (_request, reply) => {
          // The bound counts from the request's arrival (a busy instance may have queued it), and
          // leaves room to write the answer: a probe with a 1 s timeout gets a 503, not a timeout.
          const deadline = Date.now() + READINESS_BOUND_MS - READINESS_ANSWER_MS - reply.elapsedTime;
          // Asked together, each within the bound: the commit, and (several hosts) what each host is.
          const hostsAsked = (ctx.hostStatus?.() ?? Promise.resolve(undefined)).catch(() => undefined);
          // At least 100 ms for the commit, so a healthy database is not reported down by a busy instance.
          const database = await checkDatabase(ctx, Math.max(100, deadline - Date.now()));
          if (!database.answers) {
            reply.header('Retry-After', '5');
            return sendProblem(reply, new AppError('database-unavailable', `The database does not answer: ${database.reason}`));
          }
          // Replicas are reported, not required: reads fall back to the primary.
          const replicas = ctx.replicaStatus?.() ?? [];
          // Several hosts in DATABASE_URL: the one that takes writes now, and what each one is.
          const hosts = await within(deadline - Date.now(), hostsAsked, undefined);
          return {
            status: 'ready' as const,
            ...(hosts ? { primary: hosts.primary, hosts: hosts.hosts } : {}),
            ...(replicas.length > 0 ? { replicas } : {}),
          };
        },
      );
    },
    { prefix: config.basePath },
  );

  // Authenticated scope: the API.
  await app.register(async (scope) => registerApiRoutes(scope, ctx, createAuthenticator(ctx.db, config.jwt, ctx.clock, ctx.caches)), {
    prefix: config.basePath,
  });

  // The investor portal's and the console's sign-in, and the API again behind each one's session cookie.
  await app.register(async (scope) => registerCookieApi(scope, ctx, portalDoor), { prefix: `${config.basePath}/portal/api` });
  await app.register(async (scope) => registerCookieApi(scope, ctx, consoleDoor), { prefix: `${config.basePath}/console/api` });

  return app as unknown as Api;
}

/** The probes' schema: 200 `{ status }`, and for readiness a 503 problem when the database is down. */
const probeSchema = (summary: string, status: string) => ({
  tags: ['probes'],
  summary,
  response: {
    200: Type.Object(
      {
        status: Type.Literal(status),
        // /readyz with DATABASE_REPLICA_URLS: each replica as last seen (docs/guides/postgresql-and-replicas.md).
        ...(status === 'ready'
          ? {
              // /readyz with several hosts in DATABASE_URL (docs/guides/failover.md).
              primary: Type.Optional(
                Type.Union([Type.String(), Type.Null()], { description: 'host:port of DATABASE_URL that takes the writes now; null while none is known to' }),
              ),
              hosts: Type.Optional(
                Type.Array(
                  Type.Object({
                    name: Type.String({ description: 'host:port, as in DATABASE_URL' }),
                    role: Type.Union([
                      Type.Literal('primary'),
                      Type.Literal('standby'),
                      Type.Literal('read-only'),
                      Type.Literal('unreachable'),
                      Type.Literal('unknown'),
                    ]),
                    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the host does not take writes, as last seen' }),
                  }),
                  { description: 'Every host of DATABASE_URL as last seen' },
                ),
              ),
              replicas: Type.Optional(
                Type.Array(
                  Type.Object({
                    name: Type.String({ description: 'host:port/database' }),
                    state: Type.Union([Type.Literal('starting'), Type.Literal('up'), Type.Literal('lagging'), Type.Literal('down')]),
                    lagMs: Type.Union([Type.Number(), Type.Null()]),
                    replayLsn: Type.Union([Type.String(), Type.Null()]),
                    error: Type.Union([Type.String(), Type.Null()]),
                    servesReads: Type.Boolean({ description: 'Whether reads without a consistency token go to this replica now' }),
                  }),
                ),
              ),
            }
          : {}),
      },
      { description: summary },
    ),
    // Refused by the HTTP layer before any route runs: malformed, headers over 16 KiB, too slow.
    '4XX': { description: 'A request the HTTP layer refuses', content: { 'application/problem+json': { schema: Problem } } },
    ...(status === 'ready'
      ? { 503: { description: 'The database does not answer', content: { 'application/problem+json': { schema: DatabaseUnavailableProblem } } } }
      : {}),
  },
});
