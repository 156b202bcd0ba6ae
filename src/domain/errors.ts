// Errors are values with a kind. Operations throw AppError; http/problems.ts maps each kind to one
// RFC 9457 problem document (status, title, type). The list is closed: add a kind here and there.

export const errorKinds = [
  'validation', // 400: malformed input; `errors` names each bad field
  'unauthenticated', // 401: missing, malformed, unknown, revoked or expired token
  'forbidden', // 403: authenticated, but not allowed this route or this record
  'not-found', // 404: unknown deal, investor, step, event, asset, route
  'conflict', // 409: concurrent change, duplicate, move not allowed from the current position
  'payload-too-large', // 413: body over BODY_LIMIT
  'unsupported-media-type', // 415: body that is not application/json
  'request-timeout', // 408: the request did not arrive whole within REQUEST_TIMEOUT_MS
  'headers-too-large', // 431: request headers over 16 KiB
  'unprocessable', // 422: well-formed but breaks a business rule
  'rate-limited', // 429: over RATE_LIMIT_PER_MINUTE for this token
  'internal', // 500: a bug; the response carries only the request id
  'database-unavailable', // 503: the database does not answer; retry later
  'outcome-unknown', // 503: the database stopped answering while a write's commit was under way; it may have landed. Retry with the same Idempotency-Key
] as const;
export type ErrorKind = (typeof errorKinds)[number];

/** One offending input: where (`body`, `query`, `path`, `header`), which field, and what is wrong. */
export interface FieldError {
  in: 'body' | 'query' | 'path' | 'header';
  field: string;
  detail: string;
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly errors: FieldError[] | undefined;
  /** Extra members of the problem document (e.g. `missingFields`, `expectedTotal`). */
  readonly extensions: Record<string, unknown> | undefined;

  constructor(kind: ErrorKind, detail: string, options: { errors?: FieldError[]; extensions?: Record<string, unknown> } = {}) {
    super(detail);
    this.kind = kind;
    this.errors = options.errors;
    this.extensions = options.extensions;
  }
}

export const notFound = (what: string, id: string) => new AppError('not-found', `${what} ${JSON.stringify(id)} does not exist`);
/** A record of an erased investor whose content went with their personal data (404: the content is as gone as an unknown one). */
export const erasedContent = (what: string) => new AppError('not-found', `${what}: deleted with the investor's personal data when they were erased`);
export const forbidden = (detail: string) => new AppError('forbidden', detail);
export const conflict = (detail: string, extensions?: Record<string, unknown>) => new AppError('conflict', detail, extensions ? { extensions } : {});
export const invalid = (errors: FieldError[], detail = 'The request is not valid') => new AppError('validation', detail, { errors });
export const unprocessable = (detail: string, extensions?: Record<string, unknown>) => new AppError('unprocessable', detail, extensions ? { extensions } : {});
