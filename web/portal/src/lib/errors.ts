// A refusal or failure in plain words, from the catalogue.
import { type ErrorWords, rightAddress } from '../../../kit/errors.ts';
import { m } from '../messages.ts';

export { describeError, rightAddress } from '../../../kit/errors.ts';

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
