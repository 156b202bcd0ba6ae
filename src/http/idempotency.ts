// The `Idempotency-Key` header at the edge: its schema, its check, and the request's fingerprint.
// The key is scoped to the whole principal (an API key's id; a JWT's sub, role and investor
// together) and the request is fingerprinted (method, URL, canonical JSON body); the protocol that
// runs a write at most once per key is the write pipeline's (operations/pipeline.ts,
// operations/idempotency.ts), and http/writes.ts hands it what this file reads.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { invalid } from '../domain/errors.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1–255 printable ASCII characters (spaces only inside: HTTP trims the ends). */
const KEY_PATTERN = '^[\\x21-\\x7E]([\\x20-\\x7E]{0,253}[\\x21-\\x7E])?$';
const keyPattern = new RegExp(KEY_PATTERN);

/** Route `headers` schema of an idempotent POST (documents the header; validated again below). */
export const IdempotencyHeaders = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: KEY_PATTERN,
      description:
        'Makes the request safe to retry: a repeat with the same key and body returns the first response (header Idempotent-Replayed: true) and changes nothing',
    }),
  ),
});

/** JSON with object keys sorted at every level: equal bodies give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const fingerprintOf = (request: Pick<FastifyRequest, 'method' | 'url' | 'body'>) =>
  createHash('sha256')
    .update(`${request.method}\n${request.url}\n${request.body === undefined ? '' : canonicalJson(request.body)}`)
    .digest('hex');

/** The request's key, undefined without the header; a 400 for a malformed one. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !keyPattern.test(raw)) {
    throw invalid(
      [{ in: 'header', field: IDEMPOTENCY_HEADER, detail: 'must be one header of 1 to 255 printable ASCII characters' }],
      'Invalid header: idempotency-key',
    );
  }
  return raw;
}
