// A refusal or failure in plain words, from the catalogue.
import { m } from '../messages.ts';
import { ApiError } from './http.ts';

export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  const detail = error.message;
  switch (error.status) {
    case 0:
      return m.errorNetwork;
    case 401:
      return m.sessionEnded;
    case 403:
      return m.errorNotAllowed(detail);
    case 404:
      return m.errorNotFound;
    case 409:
      return m.errorConflict(detail);
    case 400:
    case 422: {
      // Unmet requirements and refused fields carry their own words.
      const facts = [error.problem.failedRequirements, error.problem.errors]
        .flatMap((list) => (Array.isArray(list) ? (list as { detail?: unknown }[]) : []))
        .map((f) => f.detail)
        .filter((d): d is string => typeof d === 'string');
      return m.errorRefused(facts.length ? `${detail}: ${facts.join('; ')}` : detail);
    }
    case 429:
      return m.errorTooMany;
    case 503:
      return m.errorUnavailable;
    default:
      return error.status >= 500 ? m.errorFailed(String(error.problem.requestId ?? error.status)) : detail;
  }
}
