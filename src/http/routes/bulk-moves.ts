// POST /deals/deal/{dealId}/jump-to-step/bulk: many moves in one request, each under the rules of
// jump-to-step (operations/bulk-moves.ts runs them through the same operation), and the dry run
// of a single move (?dryRun=true on jump-to-step, wired in journeys.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { runsConcurrentTransactions } from '../../operations/bulk-moves.ts';
import { type MoveResult, bulkJump, dryRunMove, errorOf, MAX_BULK_MOVES, type Refusal } from '../../operations/bulk-moves.ts';
import type { JumpInput } from '../../operations/journeys.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { fingerprintOf, IDEMPOTENCY_HEADER, IdempotencyHeaders, idempotent } from '../idempotency.ts';
import { problemOf } from '../problems.ts';
import { RefusalProblem } from '../schemas/problems.ts';
import { ExternalId, StrictObject } from '../schemas/common.ts';
import { EventData, StepId, WorkflowEvent } from '../schemas/workflow.ts';

/** The problem document of one refused move: any of the kinds a single move answers with. */
export const MoveProblem = RefusalProblem;

export const Move = StrictObject({
  investorUserId: ExternalId,
  targetStepId: StepId,
  data: EventData,
  expectedCurrentStepId: Type.Optional(Type.Union([StepId, Type.Null()], { description: 'null: the investor is not in the workflow yet' })),
});

export const DryRunQuery = Type.Object({
  dryRun: Type.Optional(Type.Boolean({ description: 'true: evaluate every rule against the current state and write nothing (no event, reference, outbox entry or idempotency record)' })),
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

const BulkItem = Type.Object({
  status: Type.Integer({ description: '201 applied (or would be, in a dry run), else the status a single move would get' }),
  event: Type.Optional(WorkflowEvent),
  intermediaryStepIds: Type.Optional(Type.Array(Type.String(), { description: 'dry runs only' })),
  problem: Type.Optional(MoveProblem),
});

/** A refusal as the problem document a single move would get (without the request id). */
const problemOfRefusal = (refusal: Refusal) => problemOf(errorOf(refusal));

export function itemOf(result: MoveResult, dryRun: boolean) {
  if (result.ok) return { status: 201, event: result.event, ...(dryRun ? { intermediaryStepIds: result.intermediaryStepIds } : {}) };
  const problem = problemOfRefusal(result.refusal);
  return { status: problem.status, problem };
}

/** An atomic batch's 422 carries the refused move's own problem document. */
function withRefusalProblem(err: unknown): unknown {
  const refusal = err instanceof AppError ? (err.extensions?.refusal as Refusal | undefined) : undefined;
  if (!refusal || !(err instanceof AppError)) return err;
  return new AppError(err.kind, err.message, { extensions: { ...err.extensions, refusal: problemOfRefusal(refusal) } });
}

/** ?dryRun=true on jump-to-step: 200 with the would-be event, or the problem the move would get. */
export async function sendMoveDryRun(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, dealId: string, move: JumpInput) {
  const result = await dryRunMove(ctx, principalOf(request), dealId, move);
  if (!result.ok) throw errorOf(result.refusal);
  return reply.code(200).send({ dryRun: true, event: result.event, intermediaryStepIds: result.intermediaryStepIds });
}

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
          'covers the batch. ?dryRun=true: the same answer, nothing written.',
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
            batchId: Type.Optional(Type.String({ format: 'uuid', description: 'Not in a dry run: the batch the applied moves belong to, to undo them as one action (POST /console/batches/{batchId}/undo)' })),
          }),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { dealId } = request.params;
      const { moves, atomic = false } = request.body;
      const dryRun = request.query.dryRun === true;
      const tag = { id: ctx.newId(), kind: 'bulk-move' as const };
      const answer = (results: MoveResult[]) => ({ results: results.map((r) => itemOf(r, dryRun)), ...(dryRun ? {} : { batchId: tag.id }) });
      try {
        if (dryRun) return reply.code(200).send(answer(await bulkJump(ctx, principal, dealId, moves, { atomic, dryRun })));
        const key = request.headers[IDEMPOTENCY_HEADER];
        return await idempotent(ctx, request, reply, 200, async (deps) => {
          if (atomic) return answer(await bulkJump(deps, principal, dealId, moves, { atomic, tag }));
          if (!deps.db.isTransaction) return answer(await bulkJump(deps, principal, dealId, moves, { tag }));
          // With a key, `deps` is the transaction that will store the response. On PostgreSQL the
          // moves commit one by one on their own connections, each recording its outcome for a
          // retry; the embedded database has one connection, so there they join that transaction.
          if (!runsConcurrentTransactions(ctx.db)) return answer(await bulkJump(deps, principal, dealId, moves, { joined: true, tag }));
          const batch = { ref: { scope: principal.tokenKey, key: String(key), fingerprint: fingerprintOf(request) }, complete: deps };
          return answer(await bulkJump(ctx, principal, dealId, moves, { batch, tag }));
        });
      } catch (err) {
        throw withRefusalProblem(err);
      }
    },
  );
}
