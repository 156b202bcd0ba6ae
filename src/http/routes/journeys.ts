// Endpoints 2, 3 and 5: move an investor, read one journey, list the journeys of a deal.
import { Type } from 'typebox';
import { getInvestorJourney, jumpToStep, listInvestorJourneys } from '../../operations/journeys.ts';
import type { Api, AppContext } from '../app.ts';
import { principalOf } from '../auth.ts';
import { IdempotencyHeaders, idempotent } from '../idempotency.ts';
import { ExternalId, Page, PageQuery, StrictObject } from '../schemas/common.ts';
import { AbbreviatedEvent, EventData, StepId, WorkflowEvent } from '../schemas/workflow.ts';

const DealParams = Type.Object({ dealId: ExternalId });

export function journeyRoutes(app: Api, ctx: AppContext) {
  app.post(
    '/deals/deal/:dealId/jump-to-step',
    {
      schema: {
        tags: ['journeys'],
        summary: 'Update Investor Journey (endpoint 2): move an investor to a step',
        description:
          'Jump rules: unknown deal, investor or step 404; the current step, a step on another branch, or a stale expectedCurrentStepId 409; ' +
          'a data key outside the target and intermediary steps, or a value of the wrong kind 400; missing required fields (missingFields) ' +
          'or unmet requirements (failedRequirements) 422. 201 with the new Workflow Event.',
        params: DealParams,
        headers: IdempotencyHeaders,
        body: StrictObject({
          investorUserId: ExternalId,
          targetStepId: StepId,
          data: EventData,
          expectedCurrentStepId: Type.Optional(Type.Union([StepId, Type.Null()], { description: 'null: the investor is not in the workflow yet' })),
        }),
        response: { 201: WorkflowEvent },
      },
    },
    async (request, reply) => idempotent(ctx, request, reply, 201, (deps) => jumpToStep(deps, principalOf(request), request.params.dealId, request.body)),
  );

  app.get(
    '/deals/deal/:dealId/investor-data/:investorUserId',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['journeys'],
        summary: 'Load Investor Journey (endpoint 3): events oldest first',
        params: Type.Object({ dealId: ExternalId, investorUserId: ExternalId }),
        response: { 200: Type.Object({ investor: Type.Object({ id: Type.String() }), journey: Type.Array(WorkflowEvent) }, { title: 'InvestorJourney' }) },
      },
    },
    async (request) => getInvestorJourney(ctx, principalOf(request), request.params.dealId, request.params.investorUserId),
  );

  app.get(
    '/deals/deal/:dealId/all-investor-workflows',
    {
      schema: {
        tags: ['journeys'],
        summary: 'Load All Investor Journeys (endpoint 5): by full name then id',
        params: DealParams,
        querystring: Type.Object({
          ...PageQuery,
          query: Type.Optional(Type.String({ maxLength: 200, description: "case-insensitive part of the investor's full name or e-mail" })),
        }),
        response: { 200: Page(Type.Object({ investor: Type.Object({ id: Type.String() }), journey: Type.Array(AbbreviatedEvent) }, { title: 'InvestorJourneySummary' }), 'InvestorJourneyPage') },
      },
    },
    async (request) =>
      listInvestorJourneys(ctx, request.params.dealId, {
        limit: request.query.limit ?? 20,
        page: request.query.page ?? 1,
        query: request.query.query,
      }),
  );
}
