// What an investor sees of their deals (GET /investors/{investorUserId}/deals and …/deals/{dealId}):
// staff for anyone, an investor for themselves (another investor's id, or a deal without their
// journey, 404 as an unknown one).
import { Type } from 'typebox';
import { getInvestorDeal, listInvestorDeals } from '../../operations/investor-deals.ts';
import { stepWaits } from '../../domain/investor-deal.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { sendDigested } from '../etag.ts';
import { CONDITIONAL, ConditionalHeaders, NotModified } from '../schemas/conditional.ts';
import { ExternalId, Timestamp } from '../schemas/common.ts';
import { FieldKind, StepType } from '../schemas/vocabularies.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Money = (description: string) => Type.String({ description: `${description} (exact decimal text)` });

export const InvestorDeal = Type.Object(
  {
    dealId: Type.String(),
    dealName: Type.String(),
    workflowLabel: Type.String(),
    investorEngagementEnabled: Type.Boolean({ description: 'the investor may move themselves along the links open to them' }),
    currentStep: Nullable(Type.Object({ id: Type.String(), label: Type.String(), type: StepType, enteredAt: Timestamp })),
    pastSteps: Type.Array(Type.Object({ stepId: Type.String(), label: Type.String(), enteredAt: Timestamp }), {
      description: 'the steps the investor stood at before the current one, oldest first (one entry per stay)',
    }),
    nextSteps: Type.Array(
      Type.Object({
        id: Type.String(),
        label: Type.String(),
        type: StepType,
        investorMay: Type.Boolean({
          description: 'the investor may move there themselves now: the link is open to investors and the workflow has investorEngagementEnabled',
        }),
        waitingFor: Type.Array(Type.String({ enum: [...stepWaits] }), {
          description:
            'what a move there waits for, and who is to act: investor-signature (the investor signs the subscription agreement), countersignature (an approver countersigns it); empty when nothing known holds it back',
        }),
        stepFields: Type.Array(
          Type.Object({
            fieldKey: Type.String(),
            label: Nullable(Type.String()),
            kind: FieldKind,
            required: Type.Boolean(),
            options: Nullable(Type.Array(Type.String())),
          }),
        ),
      }),
      { description: 'the steps the links from the current step lead to, with the fields a move there captures' },
    ),
    commitment: Nullable(
      Type.Object({
        eventId: Type.String({ description: 'the event that holds it: the one an edit request about the amount names' }),
        fieldKey: Type.String({ description: "the field that holds it (the payment settings' commitmentFieldKey): the key of an edit request's newData" }),
        amount: Money('the latest committed amount'),
        currency: Nullable(Type.String()),
      }),
    ),
    commitmentHistory: Type.Array(
      Type.Object({
        eventId: Type.String(),
        amount: Type.String(),
        currency: Nullable(Type.String()),
        at: Timestamp,
        changedBy: Type.Union([Type.Literal('investor'), Type.Literal('staff')], {
          description: 'investor: the investor (or one of their tokens) set it; staff: anyone else, such as an approved edit request',
        }),
        revision: Type.Integer({ description: 'the revision of the event (1 is what the move captured)' }),
      }),
      { description: 'every value the commitment has had, oldest first' },
    ),
    payment: Nullable(
      Type.Object(
        {
          reference: Type.String({ description: "the investor's RF creditor reference for this deal (ISO 11649), to quote when paying" }),
          currency: Nullable(Type.String()),
          amountDue: Money('the commitment'),
          received: Money('money reconciled to the investor so far'),
          remaining: Money('what is still due, never below zero'),
          beneficiaryName: Nullable(Type.String()),
          iban: Nullable(Type.String()),
          bic: Nullable(Type.String()),
          payeeChangedAt: Nullable(
            Type.String({
              format: 'date-time',
              description: 'when the bank details last changed after being set first: the portal tells the investor to pay only into the account shown',
            }),
          ),
          epcQr: Nullable(
            Type.String({ description: 'EPC069-12 QR code payload (version 002, UTF-8) for the remaining amount; only in EUR with a beneficiary and IBAN' }),
          ),
        },
        { description: 'null until the investor has committed an amount' },
      ),
    ),
    editRequests: Type.Array(
      Type.Object({
        requestId: Type.String(),
        eventId: Type.String(),
        type: Type.String({ description: 'Investment Amount or Withdraw Investment' }),
        status: Type.String({ description: 'pending, approved or rejected' }),
        newAmount: Nullable(Type.String()),
        reason: Type.String(),
        createdAt: Timestamp,
        decidedAt: Nullable(Timestamp),
        decisionNote: Nullable(Type.String()),
      }),
      { description: 'oldest first' },
    ),
  },
  { title: 'InvestorDeal' },
);

const tags = ['investor side'];

export function investorDealRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/investors/:investorUserId/deals',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        operationId: 'listInvestorDeals',
        tags,
        summary: "An investor's deals: where they stand, what they committed, how to pay",
        description:
          "Every deal the investor has a journey in, by deal name. An investor token reads only its own (another investor's id: 404 as an unknown one).",
        params: Type.Object({ investorUserId: ExternalId }),
        response: { 200: Type.Object({ deals: Type.Array(InvestorDeal) }, { title: 'InvestorDeals' }) },
      },
    },
    async (request) => listInvestorDeals(ctx, principalOf(request), request.params.investorUserId),
  );

  app.get(
    '/investors/:investorUserId/deals/:dealId',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        operationId: 'getInvestorDeal',
        tags,
        summary: 'One deal as the investor sees it',
        description: `404 when the investor has no journey in the deal (for an investor token, as for an unknown deal). ${CONDITIONAL}`,
        params: Type.Object({ investorUserId: ExternalId, dealId: ExternalId }),
        headers: ConditionalHeaders,
        response: { 200: InvestorDeal, 304: NotModified },
      },
    },
    async (request, reply) =>
      sendDigested(request, reply, 'id', await getInvestorDeal(ctx, principalOf(request), request.params.investorUserId, request.params.dealId)),
  );
}
