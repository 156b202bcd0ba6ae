// listActiveInvestors: POST /deals/deal/all-transactions?limit&page, optional body { nameOrEmail } (admin).
import { Type } from 'typebox';
import { listActiveInvestors } from '../../operations/active-investors.ts';
import type { Api, AppContext } from '../context.ts';
import { jsonOrCsv, wantsCsv } from '../csv.ts';
import { sendActiveInvestorsCsv } from '../exports.ts';
import { Page, PageQuery, StrictObject } from '../schemas/common.ts';
import { Investor } from '../../wire/investor.ts';

const Count = Type.String({ pattern: '^[0-9]+$', description: 'numeric text' });

const ActiveInvestorEntry = Type.Object(
  {
    investor: Investor,
    dealsCompletedCount: Type.String({ ...Count, description: 'journeys standing at a step of type complete' }),
    dealsInProgressCount: Type.String({ ...Count, description: 'journeys standing at a step of type default' }),
    dealsTotal: Type.String({ ...Count, description: 'all journeys (withdrawn ones included)' }),
  },
  { title: 'ActiveInvestor' },
);

export function activeInvestorRoutes(app: Api, ctx: AppContext) {
  app.post(
    '/deals/deal/all-transactions',
    {
      schema: {
        tags: ['investor side'],
        summary: 'Active investors with at least one journey, with counts of their completed and in-progress deals',
        description:
          'Ordered by full name, then id. The body is optional (none, empty, or {}); nameOrEmail matches case-insensitively anywhere in the full name or e-mail.',
        querystring: Type.Object(PageQuery),
        body: StrictObject({ nameOrEmail: Type.Optional(Type.Union([Type.String({ maxLength: 320 }), Type.Null()])) }),
        response: {
          200: jsonOrCsv(
            Page(ActiveInvestorEntry, 'ActiveInvestorPage'),
            'Every active investor with a journey matching nameOrEmail (no paging): the columns of the investor import (POST /investors/import), then dealsCompletedCount, dealsInProgressCount, dealsTotal.',
          ),
        },
      },
      // Reads only (the search comes in a body): it answers no consistency token.
      config: { readOnly: true },
      // No body at all (and no content type) is the interface's "optional body": validate it as {}.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) =>
      wantsCsv(request)
        ? sendActiveInvestorsCsv(ctx, reply, request.body.nameOrEmail)
        : listActiveInvestors(ctx, { nameOrEmail: request.body.nameOrEmail, limit: request.query.limit ?? 20, page: request.query.page ?? 1 }),
  );
}
