// Investors' categories under the UK's financial promotion rules (docs/reference/checks.md,
// "Investor categories"): the statements an investor signed, recorded by an approver with their
// evidence, and read by staff or the investor themself (anyone else: 404, as for an unknown id).
import { Type } from 'typebox';
import { investorCategories } from '../../domain/investor-category.ts';
import type { Deps } from '../../operations/deps.ts';
import { categoriesOf, listExpiringCategories, recordCategoryStatement } from '../../operations/investor-categories.ts';
import { write } from '../../operations/pipeline.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { ExternalId, PageQuery, Timestamp } from '../schemas/common.ts';
import { answer, writeOf } from '../writes.ts';

const tags = ['checks'];
const Params = Type.Object({ investorUserId: ExternalId });
const Category = Type.String({
  enum: [...investorCategories],
  description: 'FPO art. 48 certified high net worth; art. 50 certified or art. 50A self-certified sophisticated; COBS 3.5 elective or per se professional',
});
const Day = (description: string) => Type.String({ format: 'date', description: `${description}: YYYY-MM-DD` });

const Statement = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    investorId: Type.String(),
    category: Category,
    statementText: Type.String({ description: 'the statement as the investor signed it' }),
    evidence: Type.Union([Type.String(), Type.Null()], { description: 'where the signed statement is kept; cleared by an erasure' }),
    signedOn: Day('the day the investor signed it'),
    expiresOn: Day('the day it no longer counts: 12 months after signedOn'),
    recordedBy: Type.String({ description: 'the staff member who recorded it, or who accepted the certificate of what the investor confirmed' }),
    recordedAt: Timestamp,
    confirmationId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: "the investor's confirmation in the portal it records (source: the investor); null when staff recorded it",
    }),
  },
  { title: 'InvestorCategoryStatement' },
);

const Categories = Type.Object(
  {
    investorUserId: Type.String(),
    current: Type.Union(
      [
        Type.Intersect([
          Statement,
          Type.Object({
            standing: Type.Union([Type.Literal('valid'), Type.Literal('expiring'), Type.Literal('expired')], {
              description: 'today (UTC): valid; expiring within 30 days; expired from expiresOn on',
            }),
          }),
        ]),
        Type.Null(),
      ],
      { description: 'the newest statement, the one that counts; null when none was recorded' },
    ),
    statements: Type.Array(Statement, { description: 'every statement recorded, newest first' }),
  },
  { title: 'InvestorCategories' },
);

const Expiring = Type.Object(
  {
    output: Type.Array(
      Type.Object({
        investorUserId: Type.String(),
        investorName: Type.String(),
        category: Category,
        signedOn: Day('the day the investor signed it'),
        expiresOn: Day('the day it no longer counts'),
        standing: Type.Union([Type.Literal('valid'), Type.Literal('expiring'), Type.Literal('expired')]),
      }),
    ),
    page: Type.Integer(),
    totalPages: Type.Integer(),
    total: Type.Integer({ description: 'how many investors the filter holds, over every page' }),
  },
  { title: 'ExpiringCategoryStatements' },
);

export function investorCategoryRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/investor-categories/expiring',
    {
      schema: {
        tags,
        operationId: 'listExpiringCategoryStatements',
        summary: 'Investors whose newest category statement has expired or expires within `within` days, soonest first',
        description:
          'Staff. The renewals to chase (30 days ahead unless `within` says otherwise; 0: only the expired). With `dealId`, only that ' +
          "deal's investors: `total` with `within=0` is how many of them an expired statement keeps out of the payment step. Erased investors are left out.",
        querystring: Type.Object({
          within: Type.Optional(Type.Integer({ minimum: 0, maximum: 366, description: 'days ahead of today (UTC); 30 when absent' })),
          dealId: Type.Optional(ExternalId),
          ...PageQuery,
        }),
        response: { 200: Expiring },
      },
    },
    async (request) => listExpiringCategories(ctx, principalOf(request), request.query),
  );

  app.post(
    '/investors/:investorUserId/category-statements',
    {
      schema: {
        tags,
        operationId: 'createInvestorCategoryStatement',
        summary: 'Record the category statement an investor signed: from now on their newest, counting for 12 months from its signing',
        description:
          'Approver. A workflow step may require a current category (`investor-category` requirement), and while the newest statement ' +
          'has expired the steps that take money are blocked. One transaction with its audit entry; an erased investor: 409.',
        params: Params,
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            category: Category,
            statementText: Type.String({ minLength: 1, maxLength: 10_000, description: 'the statement as the investor signed it' }),
            signedOn: Type.String({ minLength: 10, maxLength: 10, description: 'YYYY-MM-DD, not after today' }),
            evidence: Type.Optional(Type.String({ maxLength: 2000, description: 'where the signed statement is kept (a document, a file reference)' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Statement },
      },
    },
    async (request, reply) => {
      const record = (tx: Deps) => recordCategoryStatement(tx, principalOf(request), request.params.investorUserId, request.body);
      return answer(reply, await write(ctx, writeOf(ctx, request), 201, record));
    },
  );

  app.get(
    '/investors/:investorUserId/category-statements',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags,
        operationId: 'listInvestorCategoryStatements',
        summary: "An investor's category statements, newest first, with the standing of the newest",
        description: "Staff, or the investor themself; another investor's id answers 404, as an unknown one does.",
        params: Params,
        response: { 200: Categories },
      },
    },
    async (request) => categoriesOf(ctx, principalOf(request), request.params.investorUserId),
  );
}
