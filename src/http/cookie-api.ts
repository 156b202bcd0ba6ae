// ${BASE_PATH}/<door>/api (portal: investors; console: staff): the door's sign-in routes
// (sign-in-routes.ts) and, behind its session cookie, every route of the API again (api-scope.ts),
// as the principal the session stands for: an investor bound to their records, or a staff person
// with their role. The same operations, roles and rules, hidden from the OpenAPI document. The
// door's own files are served under /<door>/ by another registration; every route here is under
// /<door>/api/, which a static prefix's wildcard never shadows (the router prefers the longer
// literal path).
//
// Cross-site requests: the cookie is SameSite=Strict, every write authenticated by it must send the
// session's X-CSRF-Token (a value a page of another origin cannot read), and any write that carries
// an Origin header must come from PUBLIC_URL's origin.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { registerApiRoutes } from './api-scope.ts';
import type { Api, AppContext } from './context.ts';
import { authenticateCookie, READS } from './session-cookie.ts';
import type { Door } from './sign-in-door.ts';
import { signInRoutes } from './sign-in-routes.ts';

export async function registerCookieApi(scope: FastifyInstance, ctx: AppContext, door: Door) {
  const { origin: expected } = ctx.config.portal;
  await scope.register(cookie);
  scope.decorateRequest('signInSession', undefined);
  // A write sent from a page of another origin is refused before anything runs.
  scope.addHook('onRequest', (request, _reply, done) => {
    const origin = request.headers.origin;
    if (!READS.has(request.method) && origin !== undefined && origin !== expected) {
      // `portalOrigin` lets the app opened at another address of this host (127.0.0.1 for
      // localhost) say which address to use, instead of "your passkey was not accepted".
      done(new AppError('forbidden', `Requests to the ${door.name} must come from ${expected}, not ${origin}`, { extensions: { portalOrigin: expected } }));
      return;
    }
    done();
  });

  await scope.register(async (routes) => signInRoutes(routes as unknown as Api, ctx, door));

  await scope.register(async (mirror) => {
    // The same operations as the documented API: not documented twice. A copy of the schema, so a
    // schema object the route module shares with its bearer registration stays shown there.
    mirror.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await registerApiRoutes(mirror, ctx, async (request) => door.principal(await authenticateCookie(ctx, door, request)));
  });
}
