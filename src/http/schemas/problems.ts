// The problem documents (RFC 9457) of every error response, as named schemas: one per family of
// statuses, each declaring the extension members that family carries, so a generated client reads
// `missingFields` or `currentStepId` without a cast. An extension added to an AppError must be
// declared here too: the tests validate every response against the committed document, and the
// document lists only these members (at run time extra members still pass through, never dropped).
import { Type } from 'typebox';

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

const core = {
  type: Type.String({ description: '`urn:dealflow:problem:<kind>`: the closed list of kinds is in docs/reference/errors.md' }),
  title: Type.String({ description: 'short summary of the kind, the same for every problem of that kind' }),
  status: Type.Integer({ description: 'the HTTP status code' }),
  detail: Type.String({ description: 'what went wrong with this request, in words' }),
  instance: Type.Optional(Type.String()),
  requestId: Type.Optional(Type.String({ description: 'the X-Request-Id of the request: quote it when reporting a problem' })),
};

const problem = { additionalProperties: true } as const;

export const Problem = Type.Object(core, { ...problem, title: 'Problem', description: 'RFC 9457 problem document (application/problem+json)' });

const fileLine = Type.Optional(Type.Integer({ description: 'an import file or a statement: the line at fault, from 1' }));

export const ValidationProblem = Type.Object(
  { ...core, errors: Type.Optional(Type.Array(FieldError, { description: 'one entry per offending field' })), line: fileLine },
  { ...problem, title: 'ValidationProblem', description: 'Malformed input (400): `errors` names each offending field' },
);

export const ConflictProblem = Type.Object(
  {
    ...core,
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
  },
  { ...problem, title: 'ConflictProblem', description: 'Conflict (409): concurrent change, duplicate, or a move not allowed from the current position' },
);

export const UnprocessableProblem = Type.Object(
  {
    ...core,
    errors: Type.Optional(Type.Array(FieldError, { description: 'the fields the broken rule concerns' })),
    missingFields: Type.Optional(Type.Array(Type.String(), { description: 'required fields populated neither by this request nor by an earlier event' })),
    failedRequirements: Type.Optional(
      Type.Array(Type.Object({ kind: Type.String(), detail: Type.String() }), { description: 'requirements of the target step that are not met' }),
    ),
    expectedTotal: Type.Optional(Type.String({ description: 'a subscription whose total is wrong: units × price_per_unit to the cent, as a decimal string' })),
    exactProduct: Type.Optional(Type.String({ description: 'a subscription whose total is wrong: the exact product, as a decimal string' })),
    idempotencyKey: Type.Optional(Type.String({ description: 'an Idempotency-Key already used for a different request: that key' })),
    moveIndex: Type.Optional(Type.Integer({ description: 'an atomic bulk move refused: the index of the first refused move (nothing was applied)' })),
    investorUserId: Type.Optional(Type.String({ description: 'an atomic bulk move refused: the investor of that move' })),
    refusal: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'an atomic bulk move refused: the problem document that move alone would get' })),
  },
  { ...problem, title: 'UnprocessableProblem', description: 'Well-formed, but breaks a business rule (422)' },
);

/** A body, or a line or record of an import file, over its limit (413). */
const tooLarge = {
  ...core,
  errors: Type.Optional(Type.Array(FieldError, { description: 'an import file: the row at fault' })),
  row: Type.Optional(Type.Integer({ description: 'an import file: the data row at fault, from 1 (the first after a CSV header)' })),
  line: fileLine,
  limit: Type.Optional(Type.Integer({ description: 'the limit passed, in bytes' })),
};

export const TooLargeProblem = Type.Object(tooLarge, {
  ...problem,
  title: 'TooLargeProblem',
  description: 'Request body over its limit, or a line or record of an import file over 1 MiB (413)',
});

export const ImportJobProblem = Type.Object(
  {
    ...tooLarge,
    interrupted: Type.Optional(Type.Boolean({ description: 'true: the process running the import stopped before it finished; send the file again' })),
  },
  { ...problem, title: 'ImportJobProblem', description: 'Why an import job failed: the problem the synchronous import would have answered, or its interruption' },
);
