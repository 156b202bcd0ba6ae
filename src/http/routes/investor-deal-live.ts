// The live stream of one investor's journey in one deal (GET /investors/{investorUserId}/deals/{dealId}/live),
// for the investor portal: server-sent events that say "your deal changed" (a move, a payment, an
// edited answer, a decided request), so the page reads the deal again at once instead of on reload.
// The portal's EventSource is authenticated by its session cookie (the route is mirrored behind it
// like every investor route, portal-api.ts); a bearer token works too. It reads the deal's feed
// (the console's live feed, operations/live-feed.ts) and keeps only the entries about this
// investor, and of each sends its type, sequence and time: nothing of anyone else's journey and no
// payload, since the page reads what it shows from GET …/deals/{dealId}, under the usual rules.
import { type TSchema, Type } from 'typebox';
import { getInvestorDeal } from '../../operations/investor-deals.ts';
import type { LiveFeed } from '../../operations/live-feed.ts';
import type { OutboxEntry } from '../../domain/feed-entry.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { ExternalId } from '../schemas/common.ts';
import { sendEventStream } from '../event-stream.ts';

const STREAM_BUFFER_BYTES = 16 * 1024;

/** An entry of the deal's feed about this investor's journey (every journey entry names its investor). */
const about = (investorUserId: string) => (entry: OutboxEntry) => (entry.data as { investorUserId?: unknown } | null)?.investorUserId === investorUserId;

/** What the investor's stream says of an entry: that something happened, not what staff see of it. */
export const investorSseEvent = (entry: OutboxEntry) =>
  `id: ${entry.sequence}\ndata: ${JSON.stringify({ type: entry.type, sequence: entry.sequence, timestamp: entry.timestamp })}\n\n`;

export function investorDealLiveRoutes(app: Api, ctx: AppContext, feed: LiveFeed) {
  app.get(
    '/investors/:investorUserId/deals/:dealId/live',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        operationId: 'getInvestorDealLiveStream',
        tags: ['investor side'],
        summary: "The live stream of an investor's own journey in a deal, as server-sent events",
        description:
          'Each event says that the journey changed: `data` is `{"type","sequence","timestamp"}` of a feed entry about this investor in this deal (a move, a payment, an edited answer, an edit request), with its `sequence` as the event `id`; read the deal again (GET …/deals/{dealId}) to see what changed. ' +
          "Nothing about other investors. An investor reads only its own (another investor's id, or a deal without their journey: 404). Reconnecting with `Last-Event-ID` goes on after that entry. Comment lines every 15 s keep the connection open.",
        params: Type.Object({ investorUserId: ExternalId, dealId: ExternalId }),
        headers: Type.Object({
          'last-event-id': Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'the `id` of the last event received' })),
        }),
        response: {
          200: {
            description: 'The stream: `id: <sequence>`, `data: {"type","sequence","timestamp"}`, then a blank line, per entry about the investor',
            content: { 'text/event-stream': { schema: Type.String() } },
          } as unknown as TSchema,
        },
      },
    },
    async (request, reply) => {
      const { investorUserId, dealId } = request.params;
      await getInvestorDeal(ctx, principalOf(request), investorUserId, dealId); // 404 unless it is theirs
      const follow = { kind: 'deal' as const, dealId };
      const header = request.headers['last-event-id'];
      const cursor = await feed.startCursor(follow, header !== undefined ? Number(header) : undefined);
      const mine = about(investorUserId);
      return sendEventStream(request, reply, feed, {
        follow,
        cursor,
        greeting: 'retry: 2000\n: following your journey\n\n',
        render: (entries) => entries.filter(mine).map(investorSseEvent).join(''),
        bufferBytes: STREAM_BUFFER_BYTES,
      });
    },
  );
}
