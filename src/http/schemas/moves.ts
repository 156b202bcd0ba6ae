// The wire shapes of a move that more than one route uses: a move in a bulk request, the dry
// run's query and answer, the problem of one refused move (a bulk item's, an import row's).
import { Type } from 'typebox';
import { RefusalProblem } from './problems.ts';
import { ExternalId, StrictObject } from './common.ts';
import { EventData, StepId, WorkflowEvent } from './workflow.ts';

/** The problem document of one refused move: any of the kinds a single move answers with. */
export const MoveProblem = RefusalProblem;

export const Move = StrictObject({
  investorUserId: ExternalId,
  targetStepId: StepId,
  data: EventData,
  expectedCurrentStepId: Type.Optional(Type.Union([StepId, Type.Null()], { description: 'null: the investor is not in the workflow yet' })),
});

export const DryRunQuery = Type.Object({
  dryRun: Type.Optional(
    Type.Boolean({
      description: 'true: evaluate every rule against the current state and write nothing (no event, reference, outbox entry or idempotency record)',
    }),
  ),
});

/** The 200 of a single move's dry run: the event the move would record and the steps it passes over. */
export const DryRunMoveResult = Type.Object(
  {
    dryRun: Type.Literal(true, { description: 'always true: tells this answer from the 201 of a move, which has no such member' }),
    event: WorkflowEvent,
    intermediaryStepIds: Type.Array(Type.String()),
  },
  { title: 'MoveDryRun', description: 'Dry run: the move is allowed; nothing was written (the event id and time are what this run drew, not reserved)' },
);
