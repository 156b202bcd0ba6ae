// Endpoints 2, 3 and 5: move an investor, read one journey, list the journeys of a deal.
import { Type } from 'typebox';
import { getInvestorJourney, listInvestorJourneys } from '../../operations/journeys.ts';
import { moveInvestor } from '../../operations/moves.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { jsonOrCsv, wantsCsv } from '../csv.ts';
import { sendJourneysCsv } from '../exports.ts';
import { DryRunMoveResult, DryRunQuery } from '../schemas/moves.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { answer, writeOf } from '../writes.ts';
import { etagOf, sendVersioned, versionsNamed } from '../etag.ts';
import { ConditionalHeaders, NotModified } from '../schemas/conditional.ts';
import { ExternalId, Page, PageQuery, StrictObject } from '../schemas/common.ts';
import { AbbreviatedEvent, EventData, StepId, WorkflowEvent } from '../schemas/workflow.ts';

const DealParams = Type.Object({ dealId: ExternalId });
/** ETags of a journey (GET …/investor-data/…): `"j<version>"`. */
const JOURNEY_TAG = 'j';

export function journeyRoutes(app: Api, ctx: AppContext) {
  app.post(
    '/deals/deal/:dealId/jump-to-step',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['journeys'],
        summary: 'Update Investor Journey: move an investor to a step',
        description:
          'Jump rules: unknown deal, investor or step 404; the current step, a step on another branch, or a stale expectedCurrentStepId 409; ' +
          'a data key outside the target and intermediary steps, or a value of the wrong kind 400; missing required fields (missingFields) ' +
          'or unmet requirements (failedRequirements) 422. 201 with the new Workflow Event. ?dryRun=true: 200 with the event the move would ' +
          'record and its intermediary steps, or the problem it would get; nothing is written. An investor token moves only its own investor, ' +
          'from where they stand, along a link with investorMay, when the workflow has investorEngagementEnabled (else 403, with the reason in ' +
          "plain words), under every rule above; a deal they have no journey in, or another investor's id, 404 as for an unknown one.",
        params: DealParams,
        querystring: DryRunQuery,
        headers: IdempotencyHeaders,
        body: StrictObject({
          investorUserId: ExternalId,
          targetStepId: StepId,
          data: EventData,
          expectedCurrentStepId: Type.Optional(Type.Union([StepId, Type.Null()], { description: 'null: the investor is not in the workflow yet' })),
        }),
        response: { 200: DryRunMoveResult, 201: WorkflowEvent },
      },
    },
    // Moves of one deal that arrive together commit together (operations/moves.ts, move-groups.ts).
    async (request, reply) =>
      answer(reply, await moveInvestor(ctx, writeOf(ctx, request, undefined, { dryRun: request.query.dryRun === true }), request.params.dealId, request.body)),
  );

  app.get(
    '/deals/deal/:dealId/investor-data/:investorUserId',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['journeys'],
        summary: 'Load Investor Journey: events oldest first',
        description:
          "Answers with an ETag, the journey's version (every move and edit makes a new one); with If-None-Match naming it, 304 and no body " +
          '(docs/reference/http-api.md, "Conditional reads").',
        params: Type.Object({ dealId: ExternalId, investorUserId: ExternalId }),
        headers: ConditionalHeaders,
        response: {
          200: Type.Object({ investor: Type.Object({ id: Type.String() }), journey: Type.Array(WorkflowEvent) }, { title: 'InvestorJourney' }),
          304: NotModified,
        },
      },
    },
    // The body is JSON text built by the database in this schema's shape, sent unchanged.
    async (request, reply) => {
      const held = versionsNamed(request, JOURNEY_TAG);
      const { version, json } = await getInvestorJourney(ctx, principalOf(request), request.params.dealId, request.params.investorUserId, held.versions);
      return sendVersioned(reply, etagOf(JOURNEY_TAG, version), json, held.any);
    },
  );

  app.get(
    '/deals/deal/:dealId/all-investor-workflows',
    {
      schema: {
        tags: ['journeys'],
        summary: 'Load All Investor Journeys: by full name then id',
        params: DealParams,
        querystring: Type.Object({
          ...PageQuery,
          query: Type.Optional(Type.String({ maxLength: 200, description: "case-insensitive part of the investor's full name or e-mail" })),
        }),
        response: {
          200: jsonOrCsv(
            Page(
              Type.Object({ investor: Type.Object({ id: Type.String() }), journey: Type.Array(AbbreviatedEvent) }, { title: 'InvestorJourneySummary' }),
              'InvestorJourneyPage',
            ),
            'Every investor of the deal matching query (no paging): investorUserId, fullName, email, currentStepId, movedAt, paymentReference, then one column per field key of the workflow holding the latest captured value.',
          ),
        },
      },
    },
    async (request, reply) =>
      wantsCsv(request)
        ? sendJourneysCsv(ctx, reply, request.params.dealId, request.query.query)
        : listInvestorJourneys(ctx, request.params.dealId, {
            limit: request.query.limit ?? 20,
            page: request.query.page ?? 1,
            query: request.query.query,
          }),
  );
}
