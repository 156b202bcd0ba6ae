// A refusal or failure in plain words, from the catalogue.
import type { ErrorWords } from '../../../kit/errors.ts';
import { m } from '../messages.ts';
import { ApiError } from './http.ts';

export { describeError } from '../../../kit/errors.ts';

/**
 * The address the portal works at, when it was opened at another (passkeys and the portal's writes
 * are bound to one origin, PUBLIC_URL's, which a refused write names as `portalOrigin`).
 */
export function rightAddress(error: unknown, hash = ''): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 403) return undefined;
  const origin = error.problem.portalOrigin;
  return typeof origin === 'string' && origin !== location.origin ? `${origin}${location.pathname}${hash}` : undefined;
}

/** The portal's words for the shared rules of web/kit/errors.ts, set once at start (main.tsx). */
export const portalErrorWords: ErrorWords = {
  network: () => m.errorNetwork,
  unauthenticated: m.sessionEnded,
  notAllowed: (detail) => m.errorNotAllowed(detail),
  notFound: () => m.errorNotFound,
  conflict: (detail) => m.errorConflict(detail),
  refused: (text) => m.errorRefused(text),
  refusedStatuses: [400, 422],
  tooMany: m.errorTooMany,
  unavailable: m.errorUnavailable,
  failed: (_detail, requestId, status) => m.errorFailed(requestId ?? String(status)),
  first: (error) => {
    const address = rightAddress(error);
    return address ? m.wrongAddress(address) : undefined;
  },
  listFields: false,
};
