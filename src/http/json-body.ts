// The only body parser: JSON, strictly (wire/strict-json.ts: exact numbers, no `__proto__`, no
// duplicate member names, only storable text). Other media types get 415 (Fastify's default for a
// type without a parser).
//
// Only UTF-8 is accepted (RFC 8259 §8.1): a body whose bytes are not valid UTF-8 is a 400 (a lenient
// decoder would store U+FFFD in place of each bad byte), and a Content-Type naming another charset
// a 415.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { parseStrictJson } from '../wire/strict-json.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body's text: valid UTF-8 only (a leading byte order mark is dropped, RFC 8259 §8.1). */
export function decodeUtf8Body(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new AppError('validation', 'The body is not valid UTF-8; send JSON encoded as UTF-8');
  }
}

/** The `charset` parameter of a Content-Type, lower-cased, or undefined when absent. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  return match ? (match[1] ?? match[2] ?? '').toLowerCase() : undefined;
}

function checkCharset(request: FastifyRequest) {
  const charset = charsetOf(request.headers['content-type']);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new AppError('unsupported-media-type', `The body's charset must be UTF-8, not "${charset}"; send application/json (charset=utf-8)`);
  }
}

export function registerJsonBody(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      checkCharset(request);
      done(null, parseStrictJson(decodeUtf8Body(body as Buffer)));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
