// Portfolio: assets (management API, admin) and subscription transactions (createSubscription, admin).
// POST is idempotent with an Idempotency-Key header (operations/subscriptions.ts bookSubscription).
import { Type } from 'typebox';
import { getAsset, putAsset } from '../../operations/assets.ts';
import { bookSubscription, getSubscription, listSubscriptions } from '../../operations/subscriptions.ts';
import type { Api, AppContext } from '../context.ts';
import { jsonOrCsv, wantsCsv } from '../csv.ts';
import { sendSubscriptionsCsv } from '../exports.ts';
import type { Subscription } from '../../domain/subscription.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { answer, writeOf } from '../writes.ts';
import { ExternalId, Page, PageQuery } from '../schemas/common.ts';
import {
  Asset,
  AssetBody,
  AssetIdText,
  assetIdOf,
  SubscriptionBody,
  SubscriptionRecord,
  toSubscriptionInput,
  toSubscriptionRecord,
} from '../schemas/portfolio.ts';
import { sendDigested } from '../etag.ts';
import { CONDITIONAL, ConditionalHeaders, NotModified } from '../schemas/conditional.ts';

const AssetParams = Type.Object({ assetId: AssetIdText });
const SUBSCRIPTIONS = '/portfolio/transactions/subscriptions';
const presentSubscription = (_status: number, s: unknown) => toSubscriptionRecord(s as Subscription);

export function portfolioRoutes(app: Api, ctx: AppContext) {
  app.put(
    '/portfolio/assets/:assetId',
    {
      schema: {
        tags: ['portfolio'],
        summary: 'Create (201) or update (200) an asset',
        params: AssetParams,
        body: AssetBody,
        response: { 200: Asset, 201: Asset },
      },
    },
    async (request, reply) => {
      const { asset, created } = await putAsset(ctx, assetIdOf(request.params.assetId), request.body);
      return reply.code(created ? 201 : 200).send(asset);
    },
  );

  app.get(
    '/portfolio/assets/:assetId',
    {
      schema: {
        tags: ['portfolio'],
        summary: 'Read an asset',
        description: CONDITIONAL,
        params: AssetParams,
        headers: ConditionalHeaders,
        response: { 200: Asset, 304: NotModified },
      },
    },
    async (request, reply) => sendDigested(request, reply, 'a', await getAsset(ctx, assetIdOf(request.params.assetId))),
  );

  app.post(
    SUBSCRIPTIONS,
    {
      schema: {
        tags: ['portfolio'],
        summary: 'Create a subscription transaction',
        description:
          'Amounts are stored as exact decimals and returned as the same numbers. total must equal units × price_per_unit to the cent ' +
          '(422 with expectedTotal otherwise); settlement_date must not be before invoice_date (422). Unknown asset or investor: 404.',
        headers: IdempotencyHeaders,
        body: SubscriptionBody,
        response: { 201: SubscriptionRecord },
      },
    },
    async (request, reply) => answer(reply, await bookSubscription(ctx, writeOf(ctx, request, presentSubscription), toSubscriptionInput(request.body))),
  );

  app.get(
    `${SUBSCRIPTIONS}/:id`,
    {
      schema: {
        tags: ['portfolio'],
        summary: 'Read a subscription transaction',
        params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
        response: { 200: SubscriptionRecord },
      },
    },
    async (request) => toSubscriptionRecord(await getSubscription(ctx, request.params.id)),
  );

  app.get(
    SUBSCRIPTIONS,
    {
      schema: {
        tags: ['portfolio'],
        summary: 'List subscription transactions, oldest first, filtered by investor, asset and source',
        querystring: Type.Object(
          {
            investor_id: Type.Optional(ExternalId),
            asset_id: Type.Optional(AssetIdText),
            source: Type.Optional(Type.String({ maxLength: 200 })),
            source_id: Type.Optional(Type.String({ maxLength: 200 })),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: {
          200: jsonOrCsv(
            Page(SubscriptionRecord, 'SubscriptionTransactionPage'),
            'Every matching subscription (no paging), the columns of the JSON record; amounts exactly as stored.',
          ),
        },
      },
    },
    async (request, reply) => {
      const { investor_id, asset_id, source, source_id, limit = 20, page = 1 } = request.query;
      const filter = {
        ...(investor_id !== undefined ? { investorId: investor_id } : {}),
        ...(asset_id !== undefined ? { assetId: assetIdOf(asset_id) } : {}),
        ...(source !== undefined ? { source } : {}),
        ...(source_id !== undefined ? { sourceId: source_id } : {}),
      };
      if (wantsCsv(request)) return sendSubscriptionsCsv(ctx, reply, filter);
      const result = await listSubscriptions(ctx, filter, { limit, page });
      return { ...result, output: result.output.map(toSubscriptionRecord) };
    },
  );
}
