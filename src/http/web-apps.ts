// The web apps, served by the service itself as static files with a Content-Security-Policy: the
// console, the staff's single-page app, at ${BASE_PATH}/console/ (no token: the app sends the token
// on its own API calls), with the addresses it had before it took that one name (the app at /app/
// and its read models under /back-office/); and the investor portal at ${BASE_PATH}/portal/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `vite build` writes the console (web/console/ in this repository). */
export const webDist = fileURLToPath(new URL('../../web/console/dist/', import.meta.url));
/** Where `vite build` writes the investor portal (web/portal/ in this repository). */
export const portalDist = fileURLToPath(new URL('../../web/portal/dist/', import.meta.url));

const hidden = { schema: { hide: true }, config: { public: true } };

/** The request's URL with `from` (the first path segment after the base path) replaced by `to`. */
function moved(request: FastifyRequest, basePath: string, from: string, to: string) {
  const url = request.url;
  const rest = url.slice(basePath.length + from.length);
  return `${basePath}${to}${rest}`;
}

/**
 * The web apps' Content-Security-Policy, on their HTML and assets: only the service's own scripts,
 * styles and API (no inline script or style: Vite writes every asset to a file; React's style
 * props go through the CSSOM, which a policy does not govern), images also as data: URLs (the
 * favicon, the portal's QR code), and never framed.
 */
export const webAppCsp =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The headers of every file of a web app: the policy; index.html revalidated on every load, hashed assets cached for good. */
function webAppHeaders(reply: { header(name: string, value: string): unknown }, path: string) {
  reply.header('Cache-Control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
  reply.header('Content-Security-Policy', webAppCsp);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'no-referrer');
}

/**
 * A built single-page app (`dist`, from `vite build`) at `${BASE_PATH}/<name>/`; the bare
 * `/<name>` redirects there (the app's asset URLs are relative). Routes the service registers
 * under the same prefix (the console's read models, the portal's API) win over the files'
 * wildcard. Unbuilt: a page that says how to build it.
 */
async function registerWebApp(scope: FastifyInstance, basePath: string, name: string, dist: string, title: string) {
  if (!existsSync(`${dist}index.html`)) {
    const notBuilt = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply
        .code(503)
        .header('Content-Security-Policy', webAppCsp)
        .type('text/html; charset=utf-8')
        .send(`<!doctype html><title>${title}</title><p>The ${title} is not built. Run <code>npm run build:web</code> (npm install does it) and restart.</p>`);
    scope.get(`/${name}`, hidden, notBuilt);
    scope.get(`/${name}/`, hidden, notBuilt);
    scope.get(`/${name}/index.html`, hidden, notBuilt);
    return;
  }
  await scope.register(fastifyStatic, {
    root: dist,
    prefix: `/${name}/`,
    decorateReply: false,
    index: ['index.html'],
    schemaHide: true,
    setHeaders: webAppHeaders,
  });
  scope.get(`/${name}`, hidden, async (request, reply) => reply.redirect(moved(request, basePath, `/${name}`, `/${name}/`), 301));
}

/** The investor portal, served at ${BASE_PATH}/portal/ (its API lives at /portal/api/…). */
export async function registerPortalApp(scope: FastifyInstance, basePath: string) {
  await registerWebApp(scope, basePath, 'portal', portalDist, 'dealflow investor portal');
}

/** The console at ${BASE_PATH}/console/, and its old addresses. */
export async function registerConsoleApp(scope: FastifyInstance, basePath: string) {
  await registerWebApp(scope, basePath, 'console', webDist, 'dealflow console');

  // The app's old address: its pages are hash routes, which the browser keeps across the redirect.
  scope.get('/app', hidden, async (request, reply) => reply.redirect(moved(request, basePath, '/app', '/console/'), 301));
  scope.get('/app/*', hidden, async (request, reply) => reply.redirect(moved(request, basePath, '/app/', '/console/'), 301));
  // The read models' old paths: 308 keeps the method and the body (RFC 9110, section 15.4.9).
  scope.all('/back-office/*', hidden, async (request, reply) => reply.redirect(moved(request, basePath, '/back-office/', '/console/'), 308));
}
