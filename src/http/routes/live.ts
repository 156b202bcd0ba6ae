// The live stream of a deal's feed, or of every deal's edit requests, for the console (staff only):
// server-sent events (https://html.spec.whatwg.org/multipage/server-sent-events.html).
// `POST /console/live/tickets` turns the bearer token into a short-lived ticket for one of them
// (operations/live-tickets.ts says why), and `GET /console/live?ticket=…` streams its entries from
// then on, each with its feed sequence as the event `id`; a reconnect that sends `Last-Event-ID`
// (or `after`) goes on after that entry, with no gap and no repeat. Comments every 15 s keep
// proxies from closing it.
import { type TSchema, Type } from 'typebox';
import { createLiveFeed, type LiveFeed } from '../../operations/live-feed.ts';
import { checkLiveTicket, issueLiveTicket, TICKET_LIFETIME_MS } from '../../operations/live-tickets.ts';
import type { OutboxEntry } from '../../domain/feed-entry.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { ExternalId, StrictObject, Timestamp } from '../schemas/common.ts';
import { problemSchemas } from '../schemas/problems.ts';
import { sendEventStream } from '../event-stream.ts';
import { investorDealLiveRoutes } from './investor-deal-live.ts';

/** What a stream may hold unsent before the feed stops reading for it (it reads on once the client has caught up). */
const STREAM_BUFFER_BYTES = 64 * 1024;
const MAX_AFTER = Number.MAX_SAFE_INTEGER;

const problem = (kind: keyof typeof problemSchemas, description: string) =>
  ({ description, content: { 'application/problem+json': { schema: problemSchemas[kind] } } }) as unknown as TSchema;

const LiveTicket = Type.Object(
  {
    ticket: Type.String({
      description: 'Put it in the stream URL as `ticket`; for 60 s it opens the stream it was asked for: this deal only, or every deal’s edit requests',
    }),
    expiresAt: Timestamp,
  },
  { title: 'LiveTicket' },
);

/**
 * One server-sent event: the entry as the pull feed shows it, under its sequence as `id`. No
 * `event:` name, so EventSource's `onmessage` gets every type (the type is in the JSON).
 */
export function sseEvent(entry: OutboxEntry): string {
  return `id: ${entry.sequence}\ndata: ${JSON.stringify(entry)}\n\n`;
}

export async function liveRoutes(app: Api, ctx: AppContext) {
  const feed: LiveFeed = await createLiveFeed(ctx, ctx.listen ? { listen: ctx.listen } : {});
  // Before the server stops accepting: open streams end (clients reconnect to another instance).
  app.addHook('preClose', async () => feed.close());
  // The investor's own journey, read from the same feed (one LISTEN connection for both).
  investorDealLiveRoutes(app, ctx, feed);

  app.post(
    '/console/live/tickets',
    {
      schema: {
        tags: ['console'],
        summary: 'A short-lived ticket that opens the live stream of a deal, or of every deal’s edit requests or approvals (GET /console/live)',
        description:
          `EventSource cannot send an Authorization header, and a long-lived token in a URL ends up in logs: this exchanges the bearer token for a ticket that opens one stream within ${TICKET_LIFETIME_MS / 1000} s. ` +
          'With `dealId`, the deal’s stream (every entry of its feed); with `feed: "edit-requests"` instead, the entries of every deal’s edit requests (`edit-request.created`, `.approved`, `.rejected`); with `feed: "approvals"`, those of every deal’s four-eyes approvals (`approval.proposed`, `.decided`), as the console’s Inbox follows them. Exactly one of `dealId` and `feed` (else 400). Staff only.',
        body: StrictObject({
          dealId: Type.Optional(ExternalId),
          feed: Type.Optional(
            Type.Union([Type.Literal('edit-requests'), Type.Literal('approvals')], {
              description: 'instead of `dealId`: the edit-request entries, or the approval entries, of every deal',
            }),
          ),
        }),
        response: { 201: LiveTicket },
      },
    },
    async (request, reply) => reply.code(201).send(await issueLiveTicket(ctx, principalOf(request), request.body, ctx.config.jwt?.secret)),
  );

  app.get(
    '/console/live',
    {
      config: { public: true },
      schema: {
        tags: ['console'],
        summary: 'The live stream of a deal’s feed, or of every deal’s edit requests, as server-sent events',
        description:
          'Authenticated by `ticket` (POST /console/live/tickets), not by a header; the ticket says what the stream follows: one deal’s feed, or the edit-request entries of every deal. ' +
          'Each event is a feed entry (the WebhookEvent of the pull feed, whose `dealId` names its deal) as JSON in `data` ' +
          '(unnamed, so EventSource `onmessage` gets every type), with its `sequence` as the event `id`. Without a cursor the stream starts at the newest entry and sends what follows; ' +
          'with `Last-Event-ID` (sent by EventSource on reconnect) or `after` it sends every entry after that one, in feed order, none twice. ' +
          'A cursor that names no entry of what the stream follows is a 400; an expired, forged or revoked ticket a 401. Comment lines every 15 s keep the connection open.',
        querystring: Type.Object({
          ticket: Type.String({ minLength: 1, maxLength: 2000 }),
          after: Type.Optional(
            Type.Integer({ minimum: 0, maximum: MAX_AFTER, description: 'the sequence of the last entry received; 0 for every entry from the start' }),
          ),
        }),
        headers: Type.Object({
          'last-event-id': Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'the `id` of the last event received; wins over `after`' })),
        }),
        response: {
          200: {
            description: 'The stream: `id: <sequence>`, `data: <WebhookEvent JSON>`, then a blank line, per entry',
            content: { 'text/event-stream': { schema: Type.String() } },
          } as unknown as ReturnType<typeof Type.String>,
          // No bearer token, so not the authenticated routes' list: the refusals it can answer with.
          400: problem('validation', 'A bad ticket parameter, or a cursor that names no entry of what the stream follows'),
          401: problem('unauthenticated', 'A malformed, forged or expired ticket, or one whose token was revoked'),
          404: problem('not-found', 'The ticket’s deal no longer exists'),
          500: problem('internal', 'A bug: quote the requestId'),
          503: problem('database-unavailable', 'The database does not answer, or the service is shutting down; retry later'),
        },
      },
    },
    async (request, reply) => {
      const follow = await checkLiveTicket(ctx, request.query.ticket, ctx.config.jwt?.secret);
      const header = request.headers['last-event-id'];
      const cursor = await feed.startCursor(follow, header !== undefined ? Number(header) : request.query.after);
      const following = follow.kind === 'deal' ? `deal ${JSON.stringify(follow.dealId)}` : 'the edit requests of every deal';
      // One write per page; the feed reads on once the client has taken it (bounded memory).
      return sendEventStream(request, reply, feed, {
        follow,
        cursor,
        greeting: `retry: 2000\n: following ${following} after ${cursor}\n\n`,
        render: (entries) => entries.map(sseEvent).join(''),
        bufferBytes: STREAM_BUFFER_BYTES,
      });
    },
  );
}
