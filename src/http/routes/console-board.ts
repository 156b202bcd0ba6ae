// The console's deals list, a deal's board and its cards, and one investor's summary. Admin only;
// our extension, in the style of the interface. The console also calls the interface's own
// endpoints for everything they already answer.
import { Type } from 'typebox';
import { PaymentProgress } from '../schemas/payment-progress.ts';
import { getBoard, getBoardCards, getInvestorSummary, listDeals } from '../../operations/console.ts';
import type { Api, AppContext } from '../context.ts';
import { ExternalId, PageQuery, Timestamp } from '../schemas/common.ts';

const tags = ['console'];

const Money = Type.Object(
  { currency: Type.String({ description: 'ISO 4217' }), amount: Type.String({ description: 'Exact decimal, e.g. "125000.00"' }) },
  { description: 'A total in one currency' },
);

const DealSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  currency: Type.Union([Type.String(), Type.Null()]),
  investors: Type.Object(
    {
      total: Type.Integer(),
      inProgress: Type.Integer({ description: 'At a step of type default' }),
      complete: Type.Integer({ description: 'At a step of type complete' }),
      withdrawn: Type.Integer({ description: 'At a step of type withdrawn' }),
    },
    { description: 'Investors with a journey in the deal, by the type of the step they stand on' },
  ),
  committed: Type.Array(Money, { description: 'Committed amounts of investors not withdrawn, per currency' }),
});

const BoardColumn = Type.Object({
  stepId: Type.String(),
  count: Type.Integer(),
  committed: Type.Array(Money, { description: 'Committed amounts of the investors at this step, per currency' }),
});

const Card = Type.Object({
  investorUserId: Type.String(),
  fullName: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  stepId: Type.String({ description: 'The step the investor stands on' }),
  enteredStepAt: Timestamp,
  committedAmount: Type.Union([Type.String(), Type.Null()], {
    description:
      "Captured value of the deal's commitment field (the payment settings' commitment field, else committed_amount); what an undo reversed does not count",
  }),
  currency: Type.Union([Type.String(), Type.Null()], { description: "Captured value of the deal's currency field, else the deal's currency" }),
  ...PaymentProgress.properties,
});

const InvestorSummary = Type.Object({
  ...Card.properties,
  paymentReference: Type.String(),
  pendingEditRequests: Type.Integer(),
  captured: Type.Record(Type.String(), Type.String(), {
    description: "What the journey captured that still counts: its events' data, later events winning, less what an undo reversed",
  }),
  undoneEventIds: Type.Array(Type.String(), { description: 'Events of the journey that an undo reversed (their data no longer counts)' }),
});

const DealParams = Type.Object({ dealId: ExternalId });
const Query = Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive match anywhere in the name or e-mail' }));

export function consoleBoardRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/console/deals',
    {
      schema: {
        tags,
        summary: 'Deals with investors per state and committed totals per currency',
        response: { 200: Type.Array(DealSummary) },
      },
    },
    async () => listDeals(ctx),
  );

  app.get(
    '/console/deals/:dealId/board',
    {
      schema: {
        tags,
        summary: "A deal's board: investors and committed totals per step (steps without investors are left out)",
        params: DealParams,
        querystring: Type.Object({ query: Query }),
        response: { 200: Type.Object({ dealId: Type.String(), total: Type.Integer(), columns: Type.Array(BoardColumn) }) },
      },
    },
    async (request) => getBoard(ctx, request.params.dealId, request.query.query),
  );

  app.get(
    '/console/deals/:dealId/board/cards',
    {
      schema: {
        tags,
        summary: "A page of a deal's board cards, ordered by name, optionally of one step",
        params: DealParams,
        querystring: Type.Object({ stepId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), query: Query, ...PageQuery }),
        response: {
          200: Type.Object({ output: Type.Array(Card), page: Type.Integer(), totalPages: Type.Integer(), total: Type.Integer() }),
        },
      },
    },
    async (request) =>
      getBoardCards(ctx, request.params.dealId, {
        stepId: request.query.stepId,
        query: request.query.query,
        limit: request.query.limit ?? 20,
        page: request.query.page ?? 1,
      }),
  );

  app.get(
    '/console/deals/:dealId/investors/:investorUserId',
    {
      schema: {
        tags,
        summary: 'One investor in one deal: position, committed amount, payment reference, pending edit requests',
        params: Type.Object({ dealId: ExternalId, investorUserId: ExternalId }),
        response: { 200: InvestorSummary },
      },
    },
    async (request) => getInvestorSummary(ctx, request.params.dealId, request.params.investorUserId),
  );
}
