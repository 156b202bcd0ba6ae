// The edge of the write pipeline (operations/pipeline.ts). A write route's handler is
//
//   async (request, reply) => answer(reply, await someWrite(ctx, writeOf(request), …validated input))
//
// `writeOf` reads what the pipeline needs from the request, as data: who asks, the
// Idempotency-Key (scoped, fingerprinted, with its time to live) and `encode`, the route's
// response serializer (the pure function Fastify itself sends that route's answers with, compiled
// once per schema by http/serialization.ts), preceded by the route's `present` when its answer's
// wire shape differs from the operation's value. The pipeline encodes the answer after the commit,
// or, with a key, in the transaction that stores those bytes, so a replay sends the same bytes.
// `answer` sends them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Answer, Encode, WriteRequest } from '../operations/pipeline.ts';
import type { AppContext } from './context.ts';
import { principalOf } from './auth.ts';
import { fingerprintOf, idempotencyKeyOf, REPLAYED_HEADER } from './idempotency.ts';
import { compileSerializer } from './serialization.ts';

/** A route's answer in its wire shape, from the operation's value (default: the value itself). */
export type Present = (status: number, value: unknown) => unknown;

const encoders = new WeakMap<object, Encode>();

/** The route's response serializers by status, compiled on first use. */
function encoderOf(request: FastifyRequest): Encode {
  const responses = request.routeOptions.schema?.response as Record<string, unknown> | undefined;
  if (!responses) throw new Error(`${request.routeOptions.url} declares no response schema`);
  let encode = encoders.get(responses);
  if (!encode) {
    const byStatus = new Map<number, (value: unknown) => string>();
    encode = (status, value) => {
      let serialize = byStatus.get(status);
      if (!serialize) {
        const schema = responses[status] ?? responses[String(status)];
        if (!schema) throw new Error(`${request.routeOptions.url} declares no response ${status}`);
        serialize = compileSerializer(schema);
        byStatus.set(status, serialize);
      }
      return serialize(value);
    };
    encoders.set(responses, encode);
  }
  return encode;
}

/** What the write pipeline needs of `request`. */
export function writeOf(ctx: AppContext, request: FastifyRequest, present?: Present, options: { dryRun?: boolean } = {}): WriteRequest {
  const key = idempotencyKeyOf(request);
  const principal = principalOf(request);
  const serialize = encoderOf(request);
  return {
    principal,
    encode: present ? (status, value) => serialize(status, present(status, value)) : serialize,
    key:
      key === undefined
        ? undefined
        : { scope: principal.tokenKey, key, fingerprint: fingerprintOf(request), ttlMs: ctx.config.idempotencyTtlHours * 3_600_000 },
    ...(options.dryRun ? { dryRun: true } : {}),
  };
}

/** Sends the pipeline's answer: its status and bytes, marked when replayed. */
export function answer(reply: FastifyReply, sent: Answer): FastifyReply {
  if (sent.replayed) reply.header(REPLAYED_HEADER, 'true');
  return reply.code(sent.status).type('application/json; charset=utf-8').send(sent.body);
}
