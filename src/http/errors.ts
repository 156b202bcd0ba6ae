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

export function errorToProblem(error: unknown, bodyLimit: number): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (fastifyError?.validation) {
    const where = partOf[fastifyError.validationContext ?? 'body'] ?? 'body';
    const errors = fieldErrors(fastifyError.validation, where);
    const names = errors.map((e) => e.field || where).join(', ');
    return new AppError('validation', `Invalid ${where === 'path' ? 'path parameter' : where}: ${names}`, { errors });
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
