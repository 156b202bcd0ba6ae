// The console, the staff's single-page app, served at ${BASE_PATH}/console/ (static files, no
// token: the app sends the token on its own API calls), and the addresses it had before it took
// that one name: the app at /app/ and its read models under /back-office/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `vite build` writes the console (web/ in this repository). */
export const webDist = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const hidden = { schema: { hide: true }, config: { public: true } };

/** The request's URL with `from` (the first path segment after the base path) replaced by `to`. */
function moved(request: FastifyRequest, basePath: string, from: string, to: string) {
  const url = request.url;
  const rest = url.slice(basePath.length + from.length);
  return `${basePath}${to}${rest}`;
}

/** index.html is revalidated on every load; hashed assets are cached for good. */
export async function registerConsoleApp(scope: FastifyInstance, basePath: string) {
  if (!existsSync(`${webDist}index.html`)) {
    const notBuilt = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply
        .code(503)
        .type('text/html; charset=utf-8')
        .send('<!doctype html><title>dealflow console</title><p>The console is not built. Run <code>npm run build:web</code> (npm install does it) and restart.</p>');
    scope.get('/console', hidden, notBuilt);
    scope.get('/console/', hidden, notBuilt);
    scope.get('/console/index.html', hidden, notBuilt);
  } else {
    await scope.register(fastifyStatic, {
      root: webDist,
      prefix: '/console/',
      decorateReply: false,
      index: ['index.html'],
      schemaHide: true,
      setHeaders: (reply, path) => {
        reply.header('Cache-Control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    // The app's asset URLs are relative, so it must be opened as …/console/ (with the slash).
    scope.get('/console', hidden, async (request, reply) => reply.redirect(moved(request, basePath, '/console', '/console/'), 301));
  }

  // The app's old address: its pages are hash routes, which the browser keeps across the redirect.
  scope.get('/app', hidden, async (request, reply) => reply.redirect(moved(request, basePath, '/app', '/console/'), 301));
  scope.get('/app/*', hidden, async (request, reply) => reply.redirect(moved(request, basePath, '/app/', '/console/'), 301));
  // The read models' old paths: 308 keeps the method and the body (RFC 9110, section 15.4.9).
  scope.all('/back-office/*', hidden, async (request, reply) => reply.redirect(moved(request, basePath, '/back-office/', '/console/'), 308));
}
