// The console's activity page (admin, tag `console`): a deal's event feed newest first, a page at
// a time, each entry with the name of the investor it is about.
import { Type } from 'typebox';
import { outboxEventTypes } from '../../domain/outbox-event.ts';
import { listDealActivity } from '../../operations/deal-activity.ts';
import { UNDO_WINDOW_MS, undoBatch } from '../../operations/undo.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { ExternalId, StrictObject, Timestamp } from '../schemas/common.ts';
import { WorkflowEvent } from '../schemas/workflow.ts';
import { Limit, MAX_AFTER } from '../schemas/paging.ts';

const ActivityEntry = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.String({ description: outboxEventTypes.join(', ') }),
  timestamp: Timestamp,
  dealId: Type.Union([Type.String(), Type.Null()]),
  sequence: Type.Integer({ minimum: 1, description: 'the entry’s number in the feed: pass the last one of a page as `before` for the page after it' }),
  data: Type.Unknown({ description: 'the payload, as in the webhook body and the pull feed' }),
  investorName: Type.Union([Type.String(), Type.Null()], {
    description: 'full name of the investor the entry is about (data.investorUserId), null when it names none',
  }),
  batch: Type.Optional(
    Type.Union(
      [
        Type.Object({
          id: Type.String({ format: 'uuid', description: 'the batch: POST /console/batches/{id}/undo undoes it' }),
          kind: Type.String({ description: 'move, bulk-move, import, payment-decision, reconciliation, undo' }),
          size: Type.Integer({ minimum: 1, description: 'investors the batch moved (all of them, whatever page holds their entries)' }),
          undoes: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'an undo: the batch it undid' }),
          undoneBy: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'the undo of this batch, once made' }),
          undoableUntil: Type.Union([Timestamp, Type.Null()], { description: 'until when an undo may be asked for; null once undone or too old' }),
          undoable: Type.Boolean({
            description:
              'POST /console/batches/{id}/undo would be accepted now: within the window, not undone, no investor moved since and none entered the workflow with it',
          }),
        }),
        Type.Null(),
      ],
      { description: 'the write the entry’s move was part of; null when the entry records no move' },
    ),
  ),
});

const UndoResult = Type.Object(
  {
    batchId: Type.String({ format: 'uuid', description: 'the undo’s own batch (it can be undone in turn)' }),
    undoes: Type.String({ format: 'uuid' }),
    dealId: Type.String(),
    events: Type.Array(WorkflowEvent, { description: 'the new events, one per investor moved back' }),
  },
  { title: 'UndoResult' },
);

export function activityRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/console/deals/:dealId/activity',
    {
      schema: {
        operationId: 'listDealActivity',
        tags: ['console'],
        summary: 'A deal’s event feed newest first, a page at a time',
        description:
          'The entries of GET /deals/deal/{dealId}/events in the opposite order: the newest `limit`, or with `before` the ones that precede that entry. ' +
          'Reads only the page asked for, however long the feed. A `before` that names no entry of this feed is a 400.',
        params: Type.Object({ dealId: ExternalId }),
        querystring: Type.Object({
          before: Type.Optional(
            Type.Integer({ minimum: 1, maximum: MAX_AFTER, description: 'the sequence of the last entry of the previous page; left out: the newest entries' }),
          ),
          limit: Type.Optional(Limit),
        }),
        response: { 200: Type.Object({ output: Type.Array(ActivityEntry), hasMore: Type.Boolean({ description: 'older entries follow' }) }) },
      },
    },
    async (request) => listDealActivity(ctx, request.params.dealId, request.query),
  );

  app.post(
    '/console/batches/:batchId/undo',
    {
      schema: {
        operationId: 'undoBatch',
        tags: ['console'],
        summary: 'Undo a write that moved investors (a move, a bulk move, an import, a payment decision) as one action',
        description:
          'Moves each investor of the batch back to the step they came from, by new events whose first revision gives the reason (history is kept), in one transaction. ' +
          'A single move’s or decision’s batch id is its event id; a bulk move answers its `batchId`; every activity entry names its `batch`. ' +
          `409 (nothing changed) when anything happened to one of its investors since (\`changedSince\` names who and where they stand), when it was already undone, when an investor entered the workflow with it, or after ${UNDO_WINDOW_MS / 3_600_000} hours.`,
        params: Type.Object({ batchId: Type.String({ format: 'uuid' }) }),
        body: StrictObject({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'recorded with each new event' })) }),
        response: { 200: UndoResult },
      },
    },
    async (request) => undoBatch(ctx, principalOf(request), request.params.batchId, { reason: request.body.reason }),
  );
}
