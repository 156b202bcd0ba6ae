// A refusal or failure in plain words. The wording is the app's own (the console's English below,
// the portal's from its message catalogue, set once at start); the rules that pick it are shared.
import { ApiError } from './http.ts';

/** One field a refusal names: `errors[]` of the service's problem document (a 400). */
export interface FieldProblem {
  field: string;
  detail: string;
}

/** What a form says when it is refused: a headline in plain words, the service's detail, and each field it names. */
export interface Refusal {
  message: string;
  detail?: string | undefined;
  fields: FieldProblem[];
}

/** An app's words for each kind of refusal. */
export interface ErrorWords {
  network: (detail: string) => string;
  unauthenticated: string;
  notAllowed: (detail: string) => string;
  notFound: (detail: string) => string;
  conflict: (detail: string) => string;
  /** A 422 (and, where listed, a 400): the detail, with the facts that refused it. */
  refused: (text: string) => string;
  refusedStatuses: readonly number[];
  tooMany: string;
  unavailable: string;
  failed: (detail: string, requestId: string | undefined, status: number) => string;
  /** Words that come before every rule (the portal's "open me at my own address"). */
  first?: (error: ApiError) => string | undefined;
  /** Whether a form's refusal lists the fields it names under the headline. */
  listFields: boolean;
}

let words: ErrorWords = {
  network: (detail) => detail,
  unauthenticated: 'Your token was not accepted. Sign in again.',
  notAllowed: (detail) => `Not allowed: ${detail}`,
  notFound: (detail) => `Not found: ${detail}`,
  conflict: (detail) => `This move is not possible from where the investor stands now: ${detail}`,
  refused: (text) => `Refused: ${text}`,
  refusedStatuses: [422],
  tooMany: 'Too many requests with this token. Wait a minute, then retry.',
  unavailable: 'The database does not answer. Retry in a few seconds.',
  failed: (detail, requestId) => `The service failed (${detail}). Retry; if it persists, quote request ${requestId ?? '?'}.`,
  listFields: true,
};

/** The app's words (the console keeps the defaults). */
export const setErrorWords = (own: ErrorWords) => {
  words = own;
};

/** A refusal in plain words, for people rather than programs. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  const first = words.first?.(error);
  if (first !== undefined) return first;
  const detail = error.message;
  if (words.refusedStatuses.includes(error.status)) {
    // Unmet requirements carry the investor's facts ("KYC check level is 1; at least 2 is required"),
    // and so do refused fields, where the form does not list them under the headline.
    const facts = [error.problem.failedRequirements, ...(words.listFields ? [] : [error.problem.errors])]
      .flatMap((list) => (Array.isArray(list) ? (list as { detail?: unknown }[]) : []))
      .map((f) => f.detail)
      .filter((d): d is string => typeof d === 'string');
    return words.refused(facts.length ? `${detail}: ${facts.join('; ')}` : detail);
  }
  switch (error.status) {
    case 0:
      return words.network(detail);
    case 401:
      return words.unauthenticated;
    case 403:
      return words.notAllowed(detail);
    case 404:
      return words.notFound(detail);
    case 409:
      return words.conflict(detail);
    case 429:
      return words.tooMany;
    case 503:
      return words.unavailable;
    default:
      return error.status >= 500
        ? words.failed(detail, error.problem.requestId === undefined ? undefined : String(error.problem.requestId), error.status)
        : detail;
  }
}

/**
 * Anything a form can be refused with, as a Refusal: the form's own words (a string), a Refusal
 * already worded, or what a call threw (an ApiError's problem document, any other Error).
 */
export function refusalOf(error: unknown): Refusal {
  if (typeof error === 'string') return { message: error, fields: [] };
  if (error instanceof ApiError) {
    const errors = Array.isArray(error.problem.errors) ? (error.problem.errors as Partial<FieldProblem>[]) : [];
    const fields = words.listFields ? errors.filter((e): e is FieldProblem => typeof e?.field === 'string' && typeof e.detail === 'string') : [];
    return { message: describeError(error), fields: fields.map(({ field, detail }) => ({ field, detail })) };
  }
  if (error instanceof Error) return { message: describeError(error), fields: [] };
  if (error && typeof error === 'object' && typeof (error as Refusal).message === 'string') {
    const refusal = error as Partial<Refusal> & { message: string };
    return { message: refusal.message, detail: refusal.detail, fields: refusal.fields ?? [] };
  }
  return { message: String(error), fields: [] };
}

/**
 * The address an app works at, when it was opened at another (passkeys and the writes through a
 * session cookie are bound to one origin, PUBLIC_URL's, which a refused write names as
 * `portalOrigin`): this page at that origin, with `hash`.
 */
export function rightAddress(error: unknown, hash = ''): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 403) return undefined;
  const origin = error.problem.portalOrigin;
  return typeof origin === 'string' && origin !== location.origin ? `${origin}${location.pathname}${hash}` : undefined;
}
