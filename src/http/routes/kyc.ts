// KYC evidence and category confirmation (docs/reference/checks.md, "KYC evidence"): a deal's KYC
// settings (admin), an investor's KYC in a deal (staff, or the investor themself; anyone else 404 as
// for an unknown id), the investor's confirmation of a category statement in the portal, and the
// staff lists of files to decide and levels about to expire.
import { Type } from 'typebox';
import { type InvestorCategory, investorCategories } from '../../domain/investor-category.ts';
import { type KycDocumentKind, kycDocumentKinds } from '../../domain/kyc.ts';
import { confirmCategory } from '../../operations/category-confirmations.ts';
import type { Deps } from '../../operations/deps.ts';
import { getKycSettings, kycStatusOf, listExpiringKyc, listKycReviews, putKycSettings } from '../../operations/kyc.ts';
import { write } from '../../operations/pipeline.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { ExternalId, PageQuery, Timestamp } from '../schemas/common.ts';
import { KycDocument, KycParams } from '../schemas/kyc.ts';
import { StepId } from '../schemas/workflow.ts';
import { answer, writeOf } from '../writes.ts';

const tags = ['checks'];
const Day = (description: string) => Type.String({ format: 'date', description: `${description}: YYYY-MM-DD` });
const Standing = Type.Union([Type.Literal('valid'), Type.Literal('expiring'), Type.Literal('expired')], {
  description: 'today (UTC): valid; expiring within 30 days; expired from expiresOn on',
});
const Category = Type.String({ enum: [...investorCategories] });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const Settings = Type.Object(
  {
    dealId: Type.String(),
    stepId: Type.String({ description: 'the KYC step: investors whose journey has entered it are asked for the documents' }),
    level: Type.Integer({ description: 'the kycCheckLevel an investor earns once every document is accepted' }),
    documents: Type.Array(Type.String({ enum: [...kycDocumentKinds] }), { description: 'the documents asked for' }),
    updatedBy: Type.String(),
    updatedAt: Timestamp,
  },
  { title: 'KycSettings' },
);

const Level = Type.Object({
  level: Type.Integer(),
  dealId: Type.String({ description: 'the deal whose documents earned it' }),
  acceptedOn: Day('the day its last document was accepted'),
  expiresOn: Day('the day it no longer counts'),
  standing: Standing,
});

const Status = Type.Object(
  {
    dealId: Type.String(),
    investorUserId: Type.String(),
    settings: Nullable(Type.Object({ stepId: Type.String(), level: Type.Integer(), documents: Type.Array(Type.String()) })),
    open: Type.Boolean({ description: "the investor's journey has entered the KYC step: the requests are theirs to answer" }),
    satisfied: Type.Boolean({ description: "the investor holds, unexpired, at least the deal's level: nothing is asked" }),
    requests: Type.Array(
      Type.Object({
        kind: Type.String(),
        state: Type.Union([Type.Literal('requested'), Type.Literal('submitted'), Type.Literal('accepted'), Type.Literal('rejected')]),
        reason: Nullable(Type.String({ description: 'why staff asked for another file (rejected)' })),
      }),
    ),
    documents: Type.Array(KycDocument, { description: 'every file uploaded in this deal, oldest first' }),
    level: Nullable(Level),
    categories: Type.Array(Type.Object({ category: Category, statementText: Type.String(), needsCertificate: Type.Boolean() }), {
      description: "the categories the deal's workflow requires, each with the statement the investor confirms",
    }),
    confirmation: Nullable(
      Type.Object({
        id: Type.String({ format: 'uuid' }),
        category: Category,
        needsReview: Type.Boolean(),
        confirmedAt: Timestamp,
        recorded: Type.Boolean({ description: 'a statement records it: it counts' }),
      }),
    ),
    category: Nullable(
      Type.Object({ category: Category, expiresOn: Day('the day it no longer counts'), standing: Standing, confirmationId: Nullable(Type.String()) }),
    ),
  },
  { title: 'KycStatus' },
);

const Confirmation = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    dealId: Type.String(),
    investorUserId: Type.String(),
    category: Category,
    statementText: Type.String({ description: 'the statement as the investor confirmed it' }),
    needsReview: Type.Boolean({ description: 'the category needs a certificate: it counts once staff accept its evidence' }),
    confirmedAt: Timestamp,
    recorded: Type.Boolean({ description: 'a category statement records it: it counts for 12 months' }),
  },
  { title: 'CategoryConfirmation' },
);

const Paged = <T extends Parameters<typeof Type.Array>[0]>(item: T, title: string) =>
  Type.Object({ output: Type.Array(item), page: Type.Integer(), totalPages: Type.Integer(), total: Type.Integer() }, { title });

export function kycRoutes(app: Api, ctx: AppContext) {
  app.put(
    '/deals/deal/:dealId/kyc-settings',
    {
      schema: {
        tags,
        operationId: 'setKycSettings',
        summary: 'Set what a deal asks of its investors for KYC: the step, the documents and the level they earn',
        description: 'Admin. The step must be one of the workflow (404 otherwise). Replaces the settings; an audit entry records each change.',
        params: Type.Object({ dealId: ExternalId }),
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            stepId: StepId,
            level: Type.Integer({ minimum: 1, maximum: 1000 }),
            documents: Type.Array(Type.String({ enum: [...kycDocumentKinds] }), { minItems: 1, maxItems: 4 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Settings },
      },
    },
    async (request, reply) => {
      const put = (tx: Deps) =>
        putKycSettings(tx, principalOf(request), request.params.dealId, { ...request.body, documents: request.body.documents as KycDocumentKind[] });
      return answer(reply, await write(ctx, writeOf(ctx, request), 200, put));
    },
  );

  app.get(
    '/deals/deal/:dealId/kyc-settings',
    {
      schema: {
        tags,
        operationId: 'getKycSettings',
        summary: "A deal's KYC settings",
        description: 'Staff. 404 when the deal has none.',
        params: Type.Object({ dealId: ExternalId }),
        response: { 200: Settings },
      },
    },
    async (request) => getKycSettings(ctx, principalOf(request), request.params.dealId),
  );

  app.get(
    '/deals/deal/:dealId/kyc/:investorUserId',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags,
        operationId: 'getKycStatus',
        summary: "An investor's KYC in a deal: each request's state, the files, the level and its expiry, the categories to confirm",
        description: "Staff, or the investor themself with a journey in the deal; another investor's id, or no journey, answers 404 as an unknown one does.",
        params: KycParams,
        response: { 200: Status },
      },
    },
    async (request) => kycStatusOf(ctx, principalOf(request), request.params.dealId, request.params.investorUserId),
  );

  app.post(
    '/deals/deal/:dealId/kyc/:investorUserId/category-confirmations',
    {
      config: { roles: ['investor'] },
      schema: {
        tags,
        operationId: 'createCategoryConfirmation',
        summary: 'The investor confirms the statement of one of the categories the deal requires',
        description:
          'The investor themself (staff record statements with createInvestorCategoryStatement). Kept with its time and IP address. ' +
          'Self-certified sophisticated counts at once, for 12 months; a category that needs a certificate counts once staff accept its evidence ' +
          '(a KYC document of kind category-evidence). A category the deal does not require: 422.',
        params: KycParams,
        headers: IdempotencyHeaders,
        body: Type.Object(
          { category: Category, confirmed: Type.Literal(true, { description: 'the investor ticked that they read and confirm the statement' }) },
          { additionalProperties: false },
        ),
        response: { 201: Confirmation },
      },
    },
    async (request, reply) => {
      const input = { category: request.body.category as InvestorCategory, ip: request.ip };
      const confirm = (tx: Deps) => confirmCategory(tx, principalOf(request), request.params, input);
      return answer(reply, await write(ctx, writeOf(ctx, request), 201, confirm));
    },
  );

  app.get(
    '/kyc/reviews',
    {
      schema: {
        tags,
        operationId: 'listKycReviews',
        summary: 'KYC documents waiting for a decision, oldest first',
        description: 'Staff. Each file with its investor; erased investors are left out.',
        querystring: Type.Object({ ...PageQuery }),
        response: { 200: Paged(Type.Intersect([KycDocument, Type.Object({ investorName: Type.String() })]), 'KycReviews') },
      },
    },
    async (request) => listKycReviews(ctx, principalOf(request), request.query),
  );

  app.get(
    '/kyc/expiring',
    {
      schema: {
        tags,
        operationId: 'listExpiringKycLevels',
        summary: 'Investors whose newest accepted KYC level has expired or expires within `within` days, soonest first',
        description: 'Staff. 30 days ahead unless `within` says otherwise (0: only the expired). Erased investors are left out.',
        querystring: Type.Object({
          within: Type.Optional(Type.Integer({ minimum: 0, maximum: 366, description: 'days ahead of today (UTC); 30 when absent' })),
          ...PageQuery,
        }),
        response: {
          200: Paged(
            Type.Object({
              investorUserId: Type.String(),
              investorName: Type.String(),
              dealId: Type.String(),
              level: Type.Integer(),
              acceptedOn: Day('the day it was accepted'),
              expiresOn: Day('the day it no longer counts'),
              standing: Standing,
            }),
            'ExpiringKycLevels',
          ),
        },
      },
    },
    async (request) => listExpiringKyc(ctx, principalOf(request), request.query),
  );
}
