// The one table of problem kinds (RFC 9457). Every error response is built here.
import type { FastifyReply } from 'fastify';
import { AppError, type ErrorKind, type FieldError } from '../domain/errors.ts';

export const problemTable: Record<ErrorKind, { status: number; title: string }> = {
  validation: { status: 400, title: 'The request is not valid' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Not allowed' },
  'not-found': { status: 404, title: 'Not found' },
  conflict: { status: 409, title: 'Conflict' },
  'payload-too-large': { status: 413, title: 'Request body too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'request-timeout': { status: 408, title: 'Request timeout' },
  'headers-too-large': { status: 431, title: 'Request headers too large' },
  unprocessable: { status: 422, title: 'The request breaks a business rule' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  'database-unavailable': { status: 503, title: 'The database is unavailable' },
  'outcome-unknown': { status: 503, title: 'The outcome of the write is unknown' },
};

export const problemType = (kind: ErrorKind) => `urn:dealflow:problem:${kind}`;

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  requestId?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export function problemOf(error: AppError, requestId?: string): Problem {
  const { status, title } = problemTable[error.kind];
  return {
    ...extensionsOf(error),
    type: problemType(error.kind),
    title,
    status,
    detail: error.message,
    ...(error.errors ? { errors: error.errors } : {}),
    ...(requestId ? { requestId } : {}),
  };
}

/** An error's extensions, each one that is itself an error (an atomic batch's refused move) as its problem document. */
function extensionsOf(error: AppError): Record<string, unknown> | undefined {
  const extensions = error.extensions;
  if (!extensions || !Object.values(extensions).some((v) => v instanceof AppError)) return extensions;
  return Object.fromEntries(Object.entries(extensions).map(([k, v]) => [k, v instanceof AppError ? problemOf(v) : v]));
}

export function sendProblem(reply: FastifyReply, error: AppError) {
  const problem = problemOf(error, String(reply.request.id));
  if (error.kind === 'unauthenticated') reply.header('WWW-Authenticate', 'Bearer');
  // A conflict that nothing was kept of (a key still running, a lost deadlock): worth a retry.
  if (error.kind === 'conflict' && error.extensions?.retryable) reply.header('Retry-After', '1');
  // The onSend hook sets it too, but the router's own refusals (a malformed URL) skip the hooks.
  reply.header('X-Request-Id', String(reply.request.id));
  return reply.code(problem.status).type('application/problem+json').send(problem);
}
