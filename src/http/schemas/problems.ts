// The problem documents (RFC 9457) of every error response, as named schemas: one per kind of the
// closed table (http/problems.ts), each with its `type` and `status` as constants, so a generated
// client tells them apart by either member and reads `missingFields` or `currentStepId` without a
// cast. Every answered problem carries its `requestId`. An extension added to an AppError must be
// declared here too: the tests validate every response against the committed document, and the
// document lists only these members (at run time extra members still pass through, never dropped).
import { type TSchema, Type } from 'typebox';
import { type ErrorKind, errorKinds } from '../../domain/errors.ts';
import { RequirementKind } from './vocabularies.ts';
import { problemTable, problemType } from '../problems.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const FieldError = Type.Object(
  {
    in: Type.Union([Type.Literal('body'), Type.Literal('query'), Type.Literal('path'), Type.Literal('header')], {
      description: 'the part of the request holding the field',
    }),
    field: Type.String({ description: 'dotted path of the field (`data.committed_amount`), or the parameter or header name' }),
    detail: Type.String({ description: 'what is wrong with it' }),
  },
  { title: 'FieldError', description: 'One offending input of a request' },
);

/** The closed list of problem type URIs (`urn:dealflow:problem:<kind>`), as an enum. */
export const ProblemType = Type.Unsafe<string>({
  type: 'string',
  enum: errorKinds.map(problemType),
  title: 'ProblemType',
  description: 'The kind of problem: one of a closed list, each with one status (docs/reference/errors.md)',
});

const title = Type.String({ description: 'short summary of the kind, the same for every problem of that kind' });
const detail = Type.String({ description: 'what went wrong with this request, in words' });
const requestIdDescription = 'the X-Request-Id of the request: quote it when reporting a problem';

/** Members of every problem of one kind: its type and status as constants, and its request id. */
const coreOf = (kind: ErrorKind) => ({
  type: Type.Unsafe<string>({ type: 'string', enum: [problemType(kind)], description: `always ${problemType(kind)}` }),
  title,
  status: Type.Unsafe<number>({ type: 'integer', enum: [problemTable[kind].status], description: 'the HTTP status code' }),
  detail,
  instance: Type.Optional(Type.String()),
  requestId: Type.String({ description: requestIdDescription }),
});

const fileLine = Type.Optional(Type.Integer({ description: 'an import file or a statement: the line at fault, from 1' }));

const validationMembers = {
  errors: Type.Optional(Type.Array(FieldError, { description: 'one entry per offending field, the first 100 of them' })),
  moreErrors: Type.Optional(Type.Integer({ minimum: 1, description: 'how many offending fields there were past the 100 listed in `errors`' })),
  line: fileLine,
};

const conflictMembers = {
  currentStepId: Type.Optional(Nullable(Type.String({ description: 'a refused move: where the investor stands (null: not in the workflow yet)' }))),
  stepIds: Type.Optional(Type.Array(Type.String(), { description: 'a workflow naming step ids of another deal: those ids' })),
  investors: Type.Optional(
    Type.Array(Type.Object({ investorUserId: Type.String(), stepId: Type.String() }), {
      description: 'a workflow that removes steps investors stand on: who stands where',
    }),
  ),
  steps: Type.Optional(
    Type.Array(Type.Object({ stepId: Type.String(), investors: Type.Integer() }), {
      description: 'a workflow or a migration that removes steps investors stand on without a step mapping: each step and how many stand on it',
    }),
  ),
  deliveredAt: Type.Optional(Nullable(Type.String({ description: 'a retry of a webhook delivery that was delivered: when' }))),
  retryable: Type.Optional(Type.Boolean({ description: 'true: the same request may succeed later (see Retry-After)' })),
  outcome: Type.Optional(
    Type.String({ description: 'a decision on a four-eyes proposal: `refused` when its basis moved (recorded so), else the outcome it already has' }),
  ),
  changed: Type.Optional(
    Type.Array(Type.Object({ field: Type.String(), was: Type.Unknown(), now: Type.Unknown() }), {
      description: 'an approval refused: each member of the basis that moved since the proposal, as it was and as it is',
    }),
  ),
  changedSince: Type.Optional(
    Type.Array(
      Type.Object({
        investorUserId: Type.String(),
        reason: Type.Union([Type.Literal('moved-since'), Type.Literal('entered-with-batch')], {
          description: 'moved-since: moved again after the batch; entered-with-batch: entered the workflow with it, no step to go back to',
        }),
        currentStepId: Nullable(Type.String({ description: 'where the investor stands now' })),
        eventId: Nullable(Type.String({ description: 'their latest event' })),
        at: Nullable(Type.String({ description: 'when it was made' })),
      }),
      { description: 'an undo refused: the investors of the batch that changed since, and where they stand' },
    ),
  ),
  undoneByBatchId: Type.Optional(Type.String({ description: 'an undo of a batch already undone: the undo' })),
  undoWindowSeconds: Type.Optional(Type.Integer({ description: 'an undo of a batch too old: how long a batch can be undone' })),
  batchCreatedAt: Type.Optional(Type.String({ description: 'an undo of a batch too old: when the batch was made' })),
  refusedInvestorUserIds: Type.Optional(Type.Array(Type.String(), { description: 'an undo whose moves back were refused: whose' })),
};

const unprocessableMembers = {
  errors: Type.Optional(Type.Array(FieldError, { description: 'the fields the broken rule concerns' })),
  missingFields: Type.Optional(Type.Array(Type.String(), { description: 'required fields populated neither by this request nor by an earlier event' })),
  failedRequirements: Type.Optional(
    Type.Array(Type.Object({ kind: RequirementKind, detail: Type.String() }), { description: 'requirements of the target step that are not met' }),
  ),
  expectedTotal: Type.Optional(Type.String({ description: 'a subscription whose total is wrong: units × price_per_unit to the cent, as a decimal string' })),
  exactProduct: Type.Optional(Type.String({ description: 'a subscription whose total is wrong: the exact product, as a decimal string' })),
  idempotencyKey: Type.Optional(Type.String({ description: 'an Idempotency-Key already used for a different request: that key' })),
  moveIndex: Type.Optional(Type.Integer({ description: 'an atomic bulk move refused: the index of the first refused move (nothing was applied)' })),
  investorUserId: Type.Optional(Type.String({ description: 'an atomic bulk move refused: the investor of that move' })),
};

const tooLargeMembers = {
  errors: Type.Optional(Type.Array(FieldError, { description: 'an import file: the row at fault' })),
  row: Type.Optional(Type.Integer({ description: 'an import file: the data row at fault, from 1 (the first after a CSV header)' })),
  line: fileLine,
  limit: Type.Optional(Type.Integer({ description: 'the limit passed, in bytes' })),
};

const problem = { additionalProperties: true } as const;

/**
 * A problem inside a larger answer (a refused move of a bulk batch or an import row, a failed import
 * job): the document that request alone would get, of any kind, without a request id of its own.
 */
export const RefusalProblem = Type.Object(
  {
    type: ProblemType,
    title,
    status: Type.Integer({ description: 'the HTTP status code the request alone would get' }),
    detail,
    instance: Type.Optional(Type.String()),
    requestId: Type.Optional(Type.String({ description: requestIdDescription })),
    ...conflictMembers,
    ...tooLargeMembers,
    ...unprocessableMembers,
    errors: Type.Optional(Type.Array(FieldError, { description: 'one entry per offending field' })),
  },
  { ...problem, title: 'RefusalProblem', description: 'The problem document one request would get, inside a larger answer' },
);

/** Any problem the service answers with (an unknown route, a URL the router refuses): the kinds are a closed list. */
export const Problem = Type.Object(
  {
    type: ProblemType,
    title,
    status: Type.Integer({ description: 'the HTTP status code' }),
    detail,
    instance: Type.Optional(Type.String()),
    requestId: Type.String({ description: requestIdDescription }),
  },
  { ...problem, title: 'Problem', description: 'RFC 9457 problem document (application/problem+json)' },
);

const family = (kind: ErrorKind, name: string, description: string, members: Record<string, TSchema> = {}) =>
  Type.Object({ ...coreOf(kind), ...members }, { ...problem, title: name, description });

export const ValidationProblem = family('validation', 'ValidationProblem', 'Malformed input (400): `errors` names each offending field', validationMembers);
export const UnauthenticatedProblem = family('unauthenticated', 'UnauthenticatedProblem', 'Missing, malformed, unknown, revoked or expired token (401)');
export const ForbiddenProblem = family('forbidden', 'ForbiddenProblem', 'The role or the investor may not do this (403)', {
  portalOrigin: Type.Optional(Type.String({ description: "a portal write from another origin: PUBLIC_URL's origin, the one address the portal works at" })),
});
export const NotFoundProblem = family('not-found', 'NotFoundProblem', 'Unknown resource, or one the investor may not see (404)');
export const RequestTimeoutProblem = family(
  'request-timeout',
  'RequestTimeoutProblem',
  'The request did not arrive whole within REQUEST_TIMEOUT_MS (408; the connection is closed)',
);
export const ConflictProblem = family(
  'conflict',
  'ConflictProblem',
  'Conflict (409): concurrent change, duplicate, or a move not allowed from the current position',
  conflictMembers,
);
export const TooLargeProblem = family(
  'payload-too-large',
  'TooLargeProblem',
  'Request body over its limit, or a line or record of an import file over 1 MiB (413)',
  tooLargeMembers,
);
export const UnsupportedMediaTypeProblem = family(
  'unsupported-media-type',
  'UnsupportedMediaTypeProblem',
  'A body of a media type or charset the route does not take (415)',
);
export const UnprocessableProblem = family('unprocessable', 'UnprocessableProblem', 'Well-formed, but breaks a business rule (422)', {
  ...unprocessableMembers,
  refusal: Type.Optional(RefusalProblem),
});
export const RateLimitedProblem = family('rate-limited', 'RateLimitedProblem', 'Over RATE_LIMIT_PER_MINUTE for this token (429)');
export const HeadersTooLargeProblem = family('headers-too-large', 'HeadersTooLargeProblem', 'Request headers over 16 KiB (431; the connection is closed)');
export const InternalProblem = family('internal', 'InternalProblem', 'A bug (500): quote the requestId');
export const DatabaseUnavailableProblem = family('database-unavailable', 'DatabaseUnavailableProblem', 'The database does not answer; retry later (503)');
export const OutcomeUnknownProblem = family(
  'outcome-unknown',
  'OutcomeUnknownProblem',
  'The database stopped answering while the write was committing, so it may have been applied (503): retry with the same Idempotency-Key, which answers with the true outcome',
  { retryable: Type.Literal(true, { description: 'always true: the same request with the same Idempotency-Key is safe to send again' }) },
);

/**
 * A write's 503: the database does not answer (nothing was applied), or it stopped answering while
 * the write committed (`outcome-unknown`: it may have been applied; the same Idempotency-Key tells).
 */
export const WriteUnavailableProblem = Type.Object(
  {
    ...coreOf('database-unavailable'),
    type: Type.Unsafe<string>({
      type: 'string',
      enum: [problemType('database-unavailable'), problemType('outcome-unknown')],
      description: `${problemType('database-unavailable')}: nothing was applied; ${problemType('outcome-unknown')}: the write may have been applied, send it again with the same Idempotency-Key`,
    }),
    retryable: Type.Optional(Type.Boolean({ description: 'outcome-unknown: true, the same request with the same Idempotency-Key is safe to send again' })),
  },
  { ...problem, title: 'WriteUnavailableProblem', description: 'The database does not answer, or the outcome of the write is unknown; retry (503)' },
);

/** The schema of each kind's problem document, by kind. */
export const problemSchemas: Record<ErrorKind, TSchema> = {
  validation: ValidationProblem,
  unauthenticated: UnauthenticatedProblem,
  forbidden: ForbiddenProblem,
  'not-found': NotFoundProblem,
  conflict: ConflictProblem,
  'payload-too-large': TooLargeProblem,
  'unsupported-media-type': UnsupportedMediaTypeProblem,
  'request-timeout': RequestTimeoutProblem,
  'headers-too-large': HeadersTooLargeProblem,
  unprocessable: UnprocessableProblem,
  'rate-limited': RateLimitedProblem,
  internal: InternalProblem,
  'database-unavailable': DatabaseUnavailableProblem,
  'outcome-unknown': OutcomeUnknownProblem,
};

export const ImportJobProblem = Type.Object(
  {
    ...RefusalProblem.properties,
    interrupted: Type.Optional(Type.Boolean({ description: 'true: the process running the import stopped before it finished; send the file again' })),
  },
  {
    ...problem,
    title: 'ImportJobProblem',
    description: 'Why an import job failed: the problem the synchronous import would have answered, or its interruption',
  },
);
