// Management API for the investor directory: PUT (admin) creates (201) or updates (200); GET reads
// (admin, or the investor themself).
import { Type } from 'typebox';
import { getInvestor, putInvestor } from '../../operations/investors.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { ExternalId } from '../schemas/common.ts';
import { Investor } from '../../wire/investor.ts';
import { toInput } from '../../operations/import-readers/investor-rows.ts';
import { InvestorBody as InvestorBodySchema } from '../../wire/investor.ts';
import { sendDigested } from '../etag.ts';
import { CONDITIONAL, ConditionalHeaders, NotModified } from '../schemas/conditional.ts';

const Params = Type.Object({ investorUserId: ExternalId });

export function investorRoutes(app: Api, ctx: AppContext) {
  app.put(
    '/investors/:investorUserId',
    {
      schema: {
        tags: ['management'],
        summary: "Create or update an investor's directory entry",
        params: Params,
        body: InvestorBodySchema,
        response: { 200: Investor, 201: Investor },
      },
    },
    async (request, reply) => {
      const { investor, created } = await putInvestor(ctx, request.params.investorUserId, toInput(request.body));
      return reply.code(created ? 201 : 200).send(investor);
    },
  );

  app.get(
    '/investors/:investorUserId',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['management'],
        summary: "Read an investor's directory entry",
        description: CONDITIONAL,
        params: Params,
        headers: ConditionalHeaders,
        response: { 200: Investor, 304: NotModified },
      },
    },
    async (request, reply) => sendDigested(request, reply, 'i', await getInvestor(ctx, principalOf(request), request.params.investorUserId)),
  );
}
