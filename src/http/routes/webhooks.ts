// Webhooks and the event feed, admin only: the delivery list, a manual retry, and the
// pull feed of a deal's outbox. Secrets never appear in any response.
import { Type } from 'typebox';
import { eventTypeSchema } from '../schemas/step-trigger.ts';
import { listDealEvents, listPlatformEvents } from '../../operations/list-deal-events.ts';
import { listWebhookDeliveries } from '../../operations/list-webhook-deliveries.ts';
import { retryWebhookDelivery } from '../../operations/retry-webhook-delivery.ts';
import type { Api, AppContext } from '../context.ts';
import { jsonOrCsv, wantsCsv } from '../csv.ts';
import { sendDealEventsCsv } from '../exports.ts';
import { ExternalId, Page, PageQuery, Timestamp } from '../schemas/common.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { write } from '../../operations/pipeline.ts';
import { answer, writeOf } from '../writes.ts';
import { CursorQuery, MAX_AFTER } from '../schemas/paging.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

// The literals of domain/outbox-event.ts `deliveryStatuses`, spelled out so the type follows.
const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('dead')]);

/** The closed list of domain event types (domain/outbox-event.ts), as stored (a string to the handlers). */
const EventType = Type.Unsafe<string>(eventTypeSchema);

const Delivery = Type.Object({
  id: Type.String({ format: 'uuid' }),
  eventId: Type.String({ format: 'uuid', description: 'the outbox entry: the Webhook-Id header of every attempt' }),
  eventType: EventType,
  dealId: Nullable(Type.String()),
  url: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer(),
  lastStatus: Nullable(Type.Integer({ description: 'HTTP status of the last answer' })),
  lastError: Nullable(Type.String()),
  lastAttemptAt: Nullable(Timestamp),
  nextAttemptAt: Nullable(Timestamp),
  deliveredAt: Nullable(Timestamp),
  deadAt: Nullable(Timestamp),
  createdAt: Timestamp,
});

/** An outbox entry: the body of a webhook, and an element of the pull feed. */
export const OutboxEntry = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'the entry: also the Webhook-Id header of every delivery of it' }),
    type: EventType,
    timestamp: Timestamp,
    dealId: Nullable(Type.String()),
    sequence: Type.Integer({
      minimum: 1,
      description: 'the entry’s number in its feed: unique there, with gaps, and not increasing along the feed (pass the last one received as `after`)',
    }),
    data: Type.Unknown({ description: 'what happened: its members depend on the type (docs/reference/webhooks-and-feed.md)' }),
  },
  { title: 'WebhookEvent', description: 'A domain event: the JSON body of a webhook delivery, and an element of the pull feeds' },
);

const FeedQuery = Type.Object({
  ...CursorQuery,
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_AFTER,
      default: 0,
      description: 'the sequence of the last entry received (lastSequence); 0 for the start. Any other number is a 400',
    }),
  ),
});

const Feed = Type.Object({
  output: Type.Array(OutboxEntry),
  lastSequence: Type.Integer({ description: 'pass as `after` to read on' }),
  hasMore: Type.Boolean(),
});

export function webhookRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/webhooks/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Webhook deliveries, newest first',
        querystring: Type.Object({
          status: Type.Optional(DeliveryStatus),
          dealId: Type.Optional(ExternalId),
          ...PageQuery,
        }),
        response: { 200: Page(Delivery) },
      },
    },
    async (request) => listWebhookDeliveries(ctx, request.query),
  );

  app.post(
    '/webhooks/deliveries/:deliveryId/retry',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Deliver again now: a pending or dead delivery is due at once, its retry schedule restarted',
        params: Type.Object({ deliveryId: Type.String({ format: 'uuid' }) }),
        headers: IdempotencyHeaders,
        response: { 200: Delivery },
      },
    },
    async (request, reply) => answer(reply, await write(ctx, writeOf(ctx, request), 200, (tx) => retryWebhookDelivery(tx, request.params.deliveryId))),
  );

  app.get(
    '/deals/deal/:dealId/events',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'The pull feed: the deal’s events after the entry numbered `after`, in order',
        params: Type.Object({ dealId: ExternalId }),
        querystring: FeedQuery,
        response: { 200: jsonOrCsv(Feed, 'Every entry after `after` (limit is not applied): sequence, id, type, timestamp, dealId, data (the JSON payload).') },
      },
    },
    async (request, reply) =>
      wantsCsv(request)
        ? sendDealEventsCsv(ctx, reply, request.params.dealId, request.query.after ?? 0)
        : listDealEvents(ctx, request.params.dealId, request.query),
  );

  app.get(
    '/webhooks/events',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'The platform feed: events that belong to no deal (subscription.created), in order',
        querystring: FeedQuery,
        response: { 200: Feed },
      },
    },
    async (request) => listPlatformEvents(ctx, request.query),
  );
}
