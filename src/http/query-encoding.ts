// A query string must be valid UTF-8 once percent-decoded, as a path already must be: the default
// parser keeps an undecodable value as its raw text (or drops it), so "%FF" would reach a route as
// something the client never meant. Checked on the raw URL, before any route or authentication.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '../domain/errors.ts';

const decodes = (text: string) => {
  try {
    decodeURIComponent(text.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
};

/** The parameters of a raw query string whose name or value is not percent-encoded UTF-8. */
export function badlyEncodedQuery(url: string): FieldError[] {
  const at = url.indexOf('?');
  if (at === -1) return [];
  const errors: FieldError[] = [];
  for (const pair of url.slice(at + 1).split('&')) {
    if (pair === '' || !pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    const value = eq === -1 ? '' : pair.slice(eq + 1);
    if (!decodes(name) || !decodes(value)) {
      errors.push({ in: 'query', field: decodes(name) ? decodeURIComponent(name.replace(/\+/g, ' ')) : name, detail: 'is not valid percent-encoded UTF-8' });
    }
  }
  return errors;
}

export function registerQueryEncoding(app: FastifyInstance) {
  // A plain hook (not async): every request passes it, and most have nothing to check.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const errors = badlyEncodedQuery(request.raw.url ?? '');
    if (errors.length > 0) {
      done(new AppError('validation', `Invalid query: ${errors.map((e) => e.field).join(', ')} is not valid percent-encoded UTF-8`, { errors }));
      return;
    }
    done();
  });
}
