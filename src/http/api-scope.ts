// The API's routes with everything around them: consistency tokens, authentication and the role
// check, storable parameters, the per-token rate limit. Registered twice: under the base path with
// bearer tokens (app.ts), and under ${BASE_PATH}/portal/api with the portal's session cookie
// (portal-api.ts), so both serve the same operations under the same rules.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { type Authenticate, registerAuth } from './auth.ts';
import { registerConsistency } from './consistency.ts';
import type { Api, AppContext } from './context.ts';
import { routes } from './routes/index.ts';
import { registerStorableText } from './storable-text.ts';

export async function registerApiRoutes(scope: FastifyInstance, ctx: AppContext, authenticate: Authenticate) {
  registerConsistency(scope, ctx.consistencyToken);
  registerAuth(scope, authenticate);
  registerStorableText(scope);
  if (ctx.config.rateLimitPerMinute > 0) {
    await scope.register(rateLimit, {
      global: true,
      hook: 'preHandler',
      max: ctx.config.rateLimitPerMinute,
      timeWindow: 60_000,
      keyGenerator: (request) => request.principal?.tokenKey ?? request.ip,
      errorResponseBuilder: (_request, context) =>
        new AppError('rate-limited', `More than ${context.max} requests a minute with this token; retry after ${Math.ceil(context.ttl / 1000)} s`),
    });
  }
  for (const register of routes) await register(scope as unknown as Api, ctx);
}
