// What a form says when the service refuses it, in plain words.
import { ApiError } from './http.ts';
import type { FieldError } from './types.ts';

/** One field a refusal names: `errors[]` of the service's problem document (a 400). */
export type FieldProblem = Pick<FieldError, 'field' | 'detail'>;

/** What a form says when it is refused: a headline in plain words, the service's detail, and each field it names. */
export interface Refusal {
  message: string;
  detail?: string | undefined;
  fields: FieldProblem[];
}

/**
 * Anything a form can be refused with, as a Refusal: the form's own words (a string), a Refusal
 * already worded, or what a call threw (an ApiError's problem document, any other Error).
 */
export function refusalOf(error: unknown): Refusal {
  if (typeof error === 'string') return { message: error, fields: [] };
  if (error instanceof ApiError) {
    const errors = Array.isArray(error.problem.errors) ? (error.problem.errors as Partial<FieldProblem>[]) : [];
    const fields = errors.filter((e): e is FieldProblem => typeof e?.field === 'string' && typeof e.detail === 'string');
    return { message: describeError(error), fields: fields.map(({ field, detail }) => ({ field, detail })) };
  }
  if (error instanceof Error) return { message: describeError(error), fields: [] };
  if (error && typeof error === 'object' && typeof (error as Refusal).message === 'string') {
    const refusal = error as Partial<Refusal> & { message: string };
    return { message: refusal.message, detail: refusal.detail, fields: refusal.fields ?? [] };
  }
  return { message: String(error), fields: [] };
}

/** A refusal in plain words, for people rather than programs. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  const detail = error.message;
  switch (error.status) {
    case 0:
      return detail;
    case 401:
      return 'Your token was not accepted. Sign in again.';
    case 403:
      return `Not allowed: ${detail}`;
    case 404:
      return `Not found: ${detail}`;
    case 409:
      return `This move is not possible from where the investor stands now: ${detail}`;
    case 422: {
      // Unmet requirements carry the investor's facts ("KYC check level is 1; at least 2 is required").
      const failed = Array.isArray(error.problem.failedRequirements) ? (error.problem.failedRequirements as { detail?: unknown }[]) : [];
      const facts = failed.map((f) => f.detail).filter((d): d is string => typeof d === 'string');
      return `Refused: ${detail}${facts.length ? `: ${facts.join('; ')}` : ''}`;
    }
    case 429:
      return 'Too many requests with this token. Wait a minute, then retry.';
    case 503:
      return 'The database does not answer. Retry in a few seconds.';
    default:
      return error.status >= 500 ? `The service failed (${detail}). Retry; if it persists, quote request ${String(error.problem.requestId ?? '?')}.` : detail;
  }
}
