// The HTTP side of idempotent POSTs: one line in a route handler,
//
//   return idempotent(ctx, request, reply, 201, (tx) => createThing({ ...ctx, ...tx }, …));
//
// Without an `Idempotency-Key` header the work simply runs. With one, the key is scoped to the
// whole principal (an API key's id; a JWT's sub, role and investor together), the request is
// fingerprinted (method, URL, canonical JSON body), and operations/idempotency.ts runs the work at
// most once. A route whose records belong to someone passes `authorize`: it runs before a stored
// response is looked up, so a replay is never served to a caller the work itself would refuse. The response body is serialized with the
// route's response schema before it is stored, so the first response and every replay are the
// same bytes; replays carry `Idempotent-Replayed: true`.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, invalid } from '../domain/errors.ts';
import type { Deps } from '../operations/deps.ts';
import { type DoneKey, type GroupedAnswer, type GroupedKey, runIdempotently, runInOneStatement } from '../operations/idempotency.ts';
import type { AppContext } from './context.ts';
import { principalOf } from './auth.ts';

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
      description: 'Makes the request safe to retry: a repeat with the same key and body returns the first response (header Idempotent-Replayed: true) and changes nothing',
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

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
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

/**
 * Runs `work` for a POST that creates or changes something, honouring `Idempotency-Key`, and sends
 * its result with `status` (a number, or chosen from the result).
 */
export async function idempotent<T>(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number | ((result: T) => number),
  work: (deps: Deps) => Promise<T>,
  options: { authorize?: (deps: Deps) => Promise<void> } = {},
): Promise<FastifyReply> {
  const statusOf = (result: T) => (typeof status === 'number' ? status : status(result));
  const key = idempotencyKeyOf(request);
  if (key !== undefined && options.authorize) await options.authorize(ctx);
  if (key === undefined) {
    const result = await work(ctx);
    return reply.code(statusOf(result)).send(result);
  }
  return send(reply, () =>
    runIdempotently(
      ctx,
      { scope: principalOf(request).tokenKey, key, fingerprint: fingerprintOf(request) },
      { ttlMs: ctx.config.idempotencyTtlHours * 3_600_000 },
      async (tx) => {
        const result = await work({ ...ctx, ...tx });
        const code = statusOf(result);
        reply.code(code); // reply.serialize picks the response schema of the reply's status
        return { status: code, body: reply.serialize(result) as string };
      },
    ),
  );
}

/**
 * As `idempotent`, for a write that commits in a group with other requests (operations/move-groups.ts):
 * `grouped` joins the group, with the request's key when it has one, claimed and answered in the
 * group's transaction. A key that a row already holds (a replay, a different request with the key,
 * a request still running) is left to the ordinary protocol: `alone` runs through `idempotent`,
 * which answers for that row.
 */
export async function idempotentInGroup<T>(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  grouped: (key: GroupedKey<T> | undefined) => Promise<GroupedAnswer<T>>,
  alone: (deps: Deps) => Promise<T>,
): Promise<FastifyReply> {
  const key = idempotencyKeyOf(request);
  const answer = await grouped(
    key === undefined
      ? undefined
      : {
          request: { scope: principalOf(request).tokenKey, key, fingerprint: fingerprintOf(request) },
          ttlMs: ctx.config.idempotencyTtlHours * 3_600_000,
          respond: (result) => {
            reply.code(status); // reply.serialize picks the response schema of the reply's status
            return { status, body: reply.serialize(result) as string };
          },
        },
  );
  if ('held' in answer) return idempotent(ctx, request, reply, status, alone);
  if (answer.response === undefined) return reply.code(status).send(answer.result);
  return reply.code(answer.response.status).type('application/json; charset=utf-8').send(answer.response.body);
}

/**
 * As `idempotent`, for a write that is one statement and stores the key and its response in that
 * statement itself (operations/idempotency.ts, runInOneStatement): `plain` runs without the header,
 * `keeping` with it, and returns the body it stored (undefined when a live key held it).
 */
export async function idempotentInOneStatement<T>(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  plain: () => Promise<T>,
  keeping: (key: DoneKey) => Promise<string | undefined>,
): Promise<FastifyReply> {
  const key = idempotencyKeyOf(request);
  if (key === undefined) return reply.code(status).send(await plain());
  reply.code(status); // reply.serialize (serializeAround) picks the response schema of the reply's status
  return send(reply, () =>
    runInOneStatement(
      ctx,
      { scope: principalOf(request).tokenKey, key, fingerprint: fingerprintOf(request) },
      { ttlMs: ctx.config.idempotencyTtlHours * 3_600_000, status },
      keeping,
    ),
  );
}

/**
 * The body `record` serializes to with the reply's response schema, cut around the string
 * property `name`, whose value a statement fills in: `before` ends with `"name":`, `after` starts
 * right after the value. Inside a serialized string every `"` is escaped, so `"name":""` occurs
 * only where the property itself is (the records cut this way are flat).
 */
export function serializeAround(reply: FastifyReply, record: Record<string, unknown>, name: string): { before: string; after: string } {
  const body = reply.serialize({ ...record, [name]: '' }) as string;
  const hole = `"${name}":""`;
  const at = body.indexOf(hole);
  if (at < 0) throw new Error(`the response has no string property ${name}`);
  return { before: body.slice(0, at + hole.length - 2), after: body.slice(at + hole.length) };
}

async function send(reply: FastifyReply, run: () => ReturnType<typeof runIdempotently>): Promise<FastifyReply> {
  let outcome: Awaited<ReturnType<typeof runIdempotently>>;
  try {
    outcome = await run();
  } catch (err) {
    if (err instanceof AppError && err.kind === 'conflict' && err.extensions?.retryable) reply.header('Retry-After', '1');
    throw err;
  }
  if (outcome.replayed) reply.header(REPLAYED_HEADER, 'true');
  return reply.code(outcome.status).type('application/json; charset=utf-8').send(outcome.body);
}
