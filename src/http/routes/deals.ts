// Management API for deals (admin): PUT creates (201) or updates (200); GET reads.
import { Type } from 'typebox';
import { getDeal, putDeal } from '../../operations/deals.ts';
import type { Api, AppContext } from '../context.ts';
import { ExternalId, StrictObject, Timestamp } from '../schemas/common.ts';
import { sendDigested } from '../etag.ts';
import { CONDITIONAL, ConditionalHeaders, NotModified } from '../schemas/conditional.ts';

const Deal = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  currency: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const DealParams = Type.Object({ dealId: ExternalId });

export function dealRoutes(app: Api, ctx: AppContext) {
  app.put(
    '/deals/deal/:dealId',
    {
      schema: {
        tags: ['management'],
        summary: 'Create or update a deal',
        params: DealParams,
        body: StrictObject({
          name: Type.String({ minLength: 1, maxLength: 200 }),
          description: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
          currency: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217' }), Type.Null()])),
        }),
        response: { 200: Deal, 201: Deal },
      },
    },
    async (request, reply) => {
      const { deal, created } = await putDeal(ctx, request.params.dealId, request.body);
      return reply.code(created ? 201 : 200).send(deal);
    },
  );

  app.get(
    '/deals/deal/:dealId',
    {
      schema: {
        tags: ['management'],
        summary: 'Read a deal',
        description: CONDITIONAL,
        params: DealParams,
        headers: ConditionalHeaders,
        response: { 200: Deal, 304: NotModified },
      },
    },
    async (request, reply) => sendDigested(request, reply, 'd', await getDeal(ctx, request.params.dealId)),
  );
}
