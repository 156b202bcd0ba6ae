// Problem documents (RFC 9457) as the API answers them: one type per kind, each with its `type`
// URI and `status` as literals, `requestId`, and the members of that kind (`missingFields` on
// `unprocessable`, `currentStepId` on `conflict`, ...). A call's `error` is the union of the kinds
// its operation declares, so `error.status` and `error.type` tell them apart with no cast.
import type { components } from './openapi.js';

type Schemas = components['schemas'];

/** A problem type URI: `urn:dealflow:problem:<kind>`, from a closed list. */
export type ProblemType = Schemas['ProblemType'];

/** The short name of a problem type: `'unprocessable'` for `urn:dealflow:problem:unprocessable`. */
export type ProblemKind = ProblemType extends `urn:dealflow:problem:${infer Kind}` ? Kind : never;

/** Every kind of problem document the API answers with. */
export type Problem =
  | Schemas['ValidationProblem']
  | Schemas['UnauthenticatedProblem']
  | Schemas['ForbiddenProblem']
  | Schemas['NotFoundProblem']
  | Schemas['RequestTimeoutProblem']
  | Schemas['ConflictProblem']
  | Schemas['TooLargeProblem']
  | Schemas['UnsupportedMediaTypeProblem']
  | Schemas['UnprocessableProblem']
  | Schemas['RateLimitedProblem']
  | Schemas['HeadersTooLargeProblem']
  | Schemas['InternalProblem']
  | Schemas['DatabaseUnavailableProblem'];

/** The problem document of one kind: `ProblemOf<'unprocessable'>` has `missingFields`, `failedRequirements`, ... */
export type ProblemOf<Kind extends ProblemKind> = Extract<Problem, { type: `urn:dealflow:problem:${Kind}` }>;

const PREFIX = 'urn:dealflow:problem:';

/** The problem type URI of a kind. */
export const problemType = <Kind extends ProblemKind>(kind: Kind) => `${PREFIX}${kind}` as `urn:dealflow:problem:${Kind}`;

/**
 * Whether `error` is a problem document of this kind; narrows it to that kind's type:
 *
 *   if (isProblem(error, 'unprocessable')) console.log(error.missingFields);
 */
export function isProblem<Kind extends ProblemKind>(error: unknown, kind: Kind): error is ProblemOf<Kind> {
  return typeof error === 'object' && error !== null && (error as { type?: unknown }).type === problemType(kind);
}
