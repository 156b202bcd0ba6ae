// Four-eyes approvals (docs/reference/approvals.md): the proposals held for a second person (staff,
// viewer and up, to read), their decision (approve or reject: the role the held write needs, never
// the proposer), and a deal's four-eyes rules (admin to set, viewer to read).
import { Type } from 'typebox';
import { approveProposal, rejectProposal } from '../../operations/approvals.ts';
import { getFourEyesRules, setFourEyesRules } from '../../operations/four-eyes.ts';
import { getApproval, listApprovals } from '../../operations/proposals.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { Approval, FourEyesRules } from '../schemas/approvals.ts';
import { DecimalText } from '../schemas/payments.ts';
import { ExternalId, Page, PageQuery, StrictObject } from '../schemas/common.ts';
import { answer, writeOf } from '../writes.ts';

const tags = ['approvals'];
const ProposalParams = Type.Object({ proposalId: Type.String({ format: 'uuid' }) });
const DealParams = Type.Object({ dealId: ExternalId });

export function approvalRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/approvals',
    {
      schema: {
        tags,
        summary: 'Proposals held for a second person, newest first: pending, decided, or both',
        querystring: Type.Object(
          { status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('decided')])), dealId: Type.Optional(ExternalId), ...PageQuery },
          { additionalProperties: false },
        ),
        response: { 200: Page(Approval, 'ApprovalPage') },
      },
    },
    async (request) => {
      const { limit = 20, page = 1, ...filter } = request.query;
      return listApprovals(ctx, principalOf(request), filter, { limit, page });
    },
  );

  app.get(
    '/approvals/:proposalId',
    { schema: { tags, summary: 'One proposal with its decision, if any', params: ProposalParams, response: { 200: Approval } } },
    async (request) => getApproval(ctx, principalOf(request), request.params.proposalId),
  );

  app.post(
    '/approvals/:proposalId/approve',
    {
      schema: {
        tags,
        summary: 'Approve a proposal: its stored input is applied, unless what it was checked against moved (409, recorded as refused)',
        params: ProposalParams,
        headers: IdempotencyHeaders,
        response: { 200: Approval },
      },
    },
    async (request, reply) => answer(reply, await approveProposal(ctx, writeOf(ctx, request), request.params.proposalId)),
  );

  app.post(
    '/approvals/:proposalId/reject',
    {
      schema: {
        tags,
        summary: 'Reject a proposal with a reason; nothing is applied',
        params: ProposalParams,
        headers: IdempotencyHeaders,
        body: StrictObject({ reason: Type.String({ minLength: 1, maxLength: 2000 }) }),
        response: { 200: Approval },
      },
    },
    async (request, reply) => answer(reply, await rejectProposal(ctx, writeOf(ctx, request), request.params.proposalId, request.body.reason)),
  );

  app.get(
    '/deals/deal/:dealId/four-eyes',
    { schema: { tags, summary: "A deal's four-eyes rules", params: DealParams, response: { 200: FourEyesRules } } },
    async (request) => getFourEyesRules(ctx, request.params.dealId),
  );

  app.put(
    '/deals/deal/:dealId/four-eyes',
    {
      schema: {
        tags,
        summary:
          "Set a deal's four-eyes rules: whether its payment decisions, from how many investors or what sum of commitments its bulk moves, and whether its workflow changes and the erasure of its investors wait for a second person",
        params: DealParams,
        headers: IdempotencyHeaders,
        body: StrictObject({
          paymentDecisions: Type.Boolean(),
          bulkMovesFrom: Type.Optional(
            Type.Union([Type.Integer({ minimum: 1, maximum: 1000 }), Type.Null()], {
              description: 'bulk moves of at least this many investors wait for a second person; null or left out: none',
            }),
          ),
          bulkMovesFromAmount: Type.Optional(
            Type.Union([DecimalText, Type.Null()], {
              description:
                "bulk moves whose investors' commitments (as the moves leave them) add up to at least this amount wait for a second person; greater than 0; null or left out: none by amount",
            }),
          ),
          workflowChanges: Type.Optional(
            Type.Boolean({ description: 'replacing the workflow and migrating its journeys wait for a second admin; left out: false' }),
          ),
          erasure: Type.Optional(
            Type.Boolean({ description: 'erasing the personal data of an investor with a journey in the deal waits for a second admin; left out: false' }),
          ),
        }),
        response: { 200: FourEyesRules },
      },
    },
    async (request, reply) => answer(reply, await setFourEyesRules(ctx, writeOf(ctx, request), request.params.dealId, request.body)),
  );
}
