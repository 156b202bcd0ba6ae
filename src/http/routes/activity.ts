// The console's activity page (admin, tag `console`): a deal's event feed newest first, a page at
// a time, each entry with the name of the investor it is about.
import { Type } from 'typebox';
import { outboxEventTypes } from '../../domain/outbox-event.ts';
import { listDealActivity } from '../../operations/deal-activity.ts';
import type { Api, AppContext } from '../context.ts';
import { ExternalId, Timestamp } from '../schemas/common.ts';
import { Limit, MAX_AFTER } from '../schemas/paging.ts';

const ActivityEntry = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.String({ description: outboxEventTypes.join(', ') }),
  timestamp: Timestamp,
  dealId: Type.Union([Type.String(), Type.Null()]),
  sequence: Type.Integer({ minimum: 1, description: 'the entry’s number in the feed: pass the last one of a page as `before` for the page after it' }),
  data: Type.Unknown({ description: 'the payload, as in the webhook body and the pull feed' }),
  investorName: Type.Union([Type.String(), Type.Null()], { description: 'full name of the investor the entry is about (data.investorUserId), null when it names none' }),
});

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
          before: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AFTER, description: 'the sequence of the last entry of the previous page; left out: the newest entries' })),
          limit: Type.Optional(Limit),
        }),
        response: { 200: Type.Object({ output: Type.Array(ActivityEntry), hasMore: Type.Boolean({ description: 'older entries follow' }) }) },
      },
    },
    async (request) => listDealActivity(ctx, request.params.dealId, request.query),
  );
}
