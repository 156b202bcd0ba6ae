// POST /deals/deal/{dealId}/jump-to-step/bulk: many moves in one request, each under the rules of
// jump-to-step (operations/bulk-moves.ts moveInBulk runs them through the same operation).
import { Type } from 'typebox';
import { type BulkAnswer, errorOf, MAX_BULK_MOVES, type MoveResult, moveInBulk } from '../../operations/bulk-moves.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { problemOf } from '../problems.ts';
import { DryRunQuery, Move, MoveProblem } from '../schemas/moves.ts';
import { ExternalId, StrictObject } from '../schemas/common.ts';
import { WorkflowEvent } from '../schemas/workflow.ts';
import { answer, writeOf } from '../writes.ts';
import { Approval } from '../schemas/approvals.ts';

const BulkItem = Type.Object({
  status: Type.Integer({ description: '201 applied (or would be, in a dry run), else the status a single move would get' }),
  event: Type.Optional(WorkflowEvent),
  intermediaryStepIds: Type.Optional(Type.Array(Type.String(), { description: 'dry runs only' })),
  problem: Type.Optional(MoveProblem),
});

/** One move's result on the wire: a refusal as the problem document a single move would get. */
function itemOf(result: MoveResult, dryRun: boolean) {
  if (result.ok) return { status: 201, event: result.event, ...(dryRun ? { intermediaryStepIds: result.intermediaryStepIds } : {}) };
  const problem = problemOf(errorOf(result.refusal));
  return { status: problem.status, problem };
}

const presentBulk = (status: number, value: unknown) => {
  if (status === 202) return value; // held for a second person: the proposal as it is
  const { results, batchId, dryRun } = value as BulkAnswer;
  return { results: results.map((r) => itemOf(r, dryRun)), ...(batchId !== undefined ? { batchId } : {}) };
};

export function bulkMoveRoutes(app: Api, ctx: AppContext) {
  app.post(
    '/deals/deal/:dealId/jump-to-step/bulk',
    {
      schema: {
        tags: ['journeys'],
        operationId: 'jumpToStepInBulk',
        summary: 'Move many investors at once: each move under the rules of jump-to-step',
        description:
          `1 to ${MAX_BULK_MOVES} moves, each investor at most once (400 naming the duplicates). 200 with one result per move in request order: ` +
          '{status: 201, event} or {status, problem} with the problem document a single move would get. Not atomic (default): each move is ' +
          'applied whole or not at all and a refusal stops no other (the moves commit in chunks of 50, the locks of a chunk held only for its own transaction). atomic: true: every move or none; the first refusal answers 422 (its problem document in `refusal`). One Idempotency-Key ' +
          "covers the batch. ?dryRun=true: the same answer, nothing written. A batch of at least the deal's four-eyes number of investors (bulkMovesFrom, " +
          'PUT /deals/deal/{dealId}/four-eyes) is held for a second person: 202 with the proposal, nothing moved.',
        params: Type.Object({ dealId: ExternalId }),
        querystring: DryRunQuery,
        headers: IdempotencyHeaders,
        body: StrictObject({
          moves: Type.Array(Move, { minItems: 1, maxItems: MAX_BULK_MOVES }),
          atomic: Type.Optional(Type.Boolean({ default: false })),
        }),
        response: {
          200: Type.Object({
            results: Type.Array(BulkItem),
            batchId: Type.Optional(
              Type.String({
                format: 'uuid',
                description: 'Not in a dry run: the batch the applied moves belong to, to undo them as one action (POST /console/batches/{batchId}/undo)',
              }),
            ),
          }),
          202: Approval,
        },
      },
    },
    async (request, reply) => {
      const { params, body, query } = request;
      const bulk = writeOf(ctx, request, presentBulk, { dryRun: query.dryRun === true });
      return answer(reply, await moveInBulk(ctx, bulk, params.dealId, body.moves, body.atomic));
    },
  );
}
