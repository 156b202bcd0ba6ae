// ${BASE_PATH}/portal/api: the investor portal's sign-in routes (portal-routes.ts) and, behind the
// session cookie, every route of the API again (api-scope.ts), as an investor principal bound to
// the session's investor: the same operations, roles and rules, hidden from the OpenAPI document.
// The portal's own files are served under /portal/ by another registration; every route here is
// under /portal/api/, which a static prefix's wildcard never shadows (the router prefers the
// longer literal path).
//
// Cross-site requests: the cookie is SameSite=Strict, every write authenticated by it must send the
// session's X-CSRF-Token (a value a page of another origin cannot read), and any write that carries
// an Origin header must come from PUBLIC_URL's origin.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { sessionPrincipal } from '../operations/portal-access.ts';
import { registerApiRoutes } from './api-scope.ts';
import type { Api, AppContext } from './context.ts';
import { portalRoutes } from './portal-routes.ts';
import { authenticateCookie, READS } from './portal-session.ts';

export async function registerPortalApi(scope: FastifyInstance, ctx: AppContext) {
  const { portal } = ctx.config;
  await scope.register(cookie);
  scope.decorateRequest('portalSession', undefined);
  // A write sent from a page of another origin is refused before anything runs.
  scope.addHook('onRequest', (request, _reply, done) => {
    const origin = request.headers.origin;
    if (!READS.has(request.method) && origin !== undefined && origin !== portal.origin) {
      // `portalOrigin` lets the portal opened at another address of this host (127.0.0.1 for
      // localhost) say which address to use, instead of "your passkey was not accepted".
      done(new AppError('forbidden', `Requests to the portal must come from ${portal.origin}, not ${origin}`, { extensions: { portalOrigin: portal.origin } }));
      return;
    }
    done();
  });

  await scope.register(async (routes) => portalRoutes(routes as unknown as Api, ctx));

  await scope.register(async (mirror) => {
    // The same operations as the documented API: not documented twice. A copy of the schema, so a
    // schema object the route module shares with its bearer registration stays shown there.
    mirror.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await registerApiRoutes(mirror, ctx, async (request) => sessionPrincipal(await authenticateCookie(ctx, request)));
  });
}
