// Request metrics for every answer, and GET /metrics on the service's port when METRICS_TOKEN is
// set (docs/operations/README.md). /metrics is not part of the API: no API key or JWT opens it,
// only its own token, so an investor's token never reads it; it is not in openapi.json.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { observeRequest } from '../metrics.ts';
import { enableDefaultMetrics, metricsAuthorized, metricsContentType, scrapeMetrics } from '../operations/metrics.ts';
import type { AppContext } from './context.ts';
import { sendProblem } from './problems.ts';

/**
 * Counts and times every answer by its route's pattern (not the raw URL: the series stay a few
 * hundred); a request no route matched is `unmatched`. A plain hook: no promise per request.
 */
export function registerRequestMetrics(app: FastifyInstance, basePath: string): void {
  app.addHook('onResponse', (request, reply, done) => {
    const pattern = request.routeOptions.url;
    const route = pattern === undefined ? 'unmatched' : basePath && pattern.startsWith(basePath) ? pattern.slice(basePath.length) || '/' : pattern;
    observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

/** GET /metrics behind METRICS_TOKEN; nothing is registered without one. */
export function registerMetricsRoute(scope: FastifyInstance, ctx: AppContext): void {
  const token = ctx.config.metricsToken;
  if (token === undefined) return;
  enableDefaultMetrics();
  scope.get('/metrics', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
    if (!metricsAuthorized(token, request.headers.authorization)) {
      return sendProblem(reply, new AppError('unauthenticated', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>'));
    }
    return reply
      .header('Cache-Control', 'no-store')
      .type(metricsContentType)
      .send(await scrapeMetrics(ctx));
  });
}
