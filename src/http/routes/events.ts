// editWorkflowEvent (edit an event's data) and the revisions of an event (management API).
import { Type } from 'typebox';
import { editEvent, getEventRevisions } from '../../operations/events.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { write } from '../../operations/pipeline.ts';
import type { Deps } from '../../operations/deps.ts';
import { answer, writeOf } from '../writes.ts';
import { EventData, EventRevision, WorkflowEvent } from '../schemas/workflow.ts';
import { sendDigested } from '../etag.ts';
import { CONDITIONAL, ConditionalHeaders, NotModified } from '../schemas/conditional.ts';

const Params = Type.Object({ eventId: Type.String({ minLength: 1, maxLength: 64 }) });

export function eventRoutes(app: Api, ctx: AppContext) {
  app.post(
    '/deals/event/:eventId/edit',
    {
      schema: {
        tags: ['journeys'],
        summary: "Edit Workflow Event: the body is the event's new data",
        description:
          "Allowed keys: the fields of the event's step and the keys the event already holds (else 400); the step's required fields stay " +
          'populated (else 422, missingFields). The previous version is kept (GET …/revisions).',
        params: Params,
        querystring: Type.Object({
          reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Why the data changed; stored with the new revision' })),
        }),
        headers: IdempotencyHeaders,
        body: EventData,
        response: { 200: WorkflowEvent },
      },
    },
    async (request, reply) => {
      const reason = request.query.reason ? { reason: request.query.reason } : {};
      const edit = (tx: Deps) => editEvent(tx, principalOf(request), request.params.eventId, request.body, reason);
      return answer(reply, await write(ctx, writeOf(ctx, request), 200, edit));
    },
  );

  app.get(
    '/deals/event/:eventId/revisions',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['management'],
        summary: "Every version of an event's data, oldest first, with who set it and when",
        description: CONDITIONAL,
        params: Params,
        headers: ConditionalHeaders,
        response: { 200: Type.Array(EventRevision), 304: NotModified },
      },
    },
    async (request, reply) => sendDigested(request, reply, 'r', await getEventRevisions(ctx, principalOf(request), request.params.eventId)),
  );
}
