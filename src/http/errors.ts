// Turns anything thrown during a request into an AppError of the closed table: our own errors,
// Fastify's (validation, media type, body size), and the database's (as the store maps them).
import type { FastifyError } from 'fastify';
import { AppError, type FieldError } from '../domain/errors.ts';
import { domainErrorOf } from '../operations/failures.ts';
import { fieldErrors, type ValidationIssue } from '../wire/validate.ts';

const partOf: Record<string, FieldError['in']> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

const byStatus: Record<number, AppError['kind']> = {
  400: 'validation',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not-found',
  408: 'request-timeout',
  409: 'conflict',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  422: 'unprocessable',
  429: 'rate-limited',
  431: 'headers-too-large',
  503: 'database-unavailable',
};

/** Field errors listed in one problem; past it, `moreErrors` says how many more. */
export const ERRORS_LISTED = 100;
/** A field name as the problem shows it: a member name can be as long as the body. */
const shortened = (field: string) => (field.length > 200 ? `${field.slice(0, 199)}…` : field);

/**
 * True when the client closed the connection before its request arrived whole: the body stream's
 * `aborted` (ECONNRESET) or premature close. Not the database's doing, though its code is a network
 * code: it must not be read (and logged) as the database being unavailable.
 */
export function isClientAbort(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (code === 'ECONNRESET' && message === 'aborted') || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

export function errorToProblem(error: unknown, bodyLimit: number): AppError {
  if (error instanceof AppError) return error;
  // Nobody is left to read the answer; it is a 400 for the logs and metrics.
  if (isClientAbort(error)) return new AppError('validation', 'The client closed the connection before the request arrived whole');
  const fastifyError = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (fastifyError?.validation) {
    const where = partOf[fastifyError.validationContext ?? 'body'] ?? 'body';
    const errors = fieldErrors(fastifyError.validation, where);
    // The first ERRORS_LISTED in `errors`, how many more in `moreErrors`; the detail names ten.
    const listed = errors.slice(0, ERRORS_LISTED).map((e) => ({ ...e, field: shortened(e.field) }));
    const more = errors.length - listed.length;
    const named = listed.slice(0, 10).map((e) => e.field || where);
    const rest = errors.length - named.length;
    const detail = `Invalid ${where === 'path' ? 'path parameter' : where}: ${named.join(', ')}${rest > 0 ? `, and ${rest.toLocaleString('en')} more` : ''}`;
    return new AppError('validation', detail, { errors: listed, ...(more > 0 ? { extensions: { moreErrors: more } } : {}) });
  }
  switch (fastifyError?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload-too-large', `The body is larger than ${bodyLimit} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported-media-type', 'Send the body as application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('validation', 'Content-Length does not match the body');
  }
  const failure = domainErrorOf(error);
  if (failure) return failure;
  const status = fastifyError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError(byStatus[status] ?? 'validation', fastifyError.message);
  }
  return new AppError('internal', 'An unexpected error occurred; quote the request id when you report it');
}
