// Read models of the console (admin only, tag `console`): the investor directory,
// the inbox of pending edit requests across deals, and names for the ids recorded as actors.
import { Type } from 'typebox';
import { PaymentProgress } from '../schemas/payment-progress.ts';
import { checkWorkflow, listDealRows, listDirectory, listPendingEditRequests, namePeople } from '../../operations/console.ts';
import { workflowChangeKinds } from '../../domain/workflow-changes.ts';
import { paidStates, rowSorts } from '../../domain/console.ts';
import { WorkflowBody } from '../schemas/workflow.ts';
import { toDocument, triggersOf } from './workflows.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { ExternalId, PageQuery, Timestamp } from '../schemas/common.ts';

const tags = ['console'];
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Data = Type.Record(Type.String(), Type.String());

const DirectoryEntry = Type.Object({
  id: Type.String(),
  fullName: Type.String(),
  email: Nullable(Type.String()),
  status: Type.String(),
  kycCheckLevel: Nullable(Type.Integer()),
  classifications: Type.Array(Type.String(), { description: 'Names of the investor classes' }),
  deals: Type.Integer({ description: 'Deals the investor has a journey in' }),
  updatedAt: Timestamp,
});

const PendingRequest = Type.Object({
  id: Type.String(),
  dealId: Type.String(),
  dealName: Type.String(),
  investorUserId: Type.String(),
  investorFullName: Type.String(),
  workflowEventId: Type.String(),
  type: Type.String(),
  reason: Type.String(),
  newData: Nullable(Data),
  createdByUserId: Type.String(),
  dateRecieved: Timestamp,
  event: Type.Object(
    { fromStepId: Nullable(Type.String()), toStepId: Type.String(), toStepLabel: Type.String(), data: Data },
    { description: 'The event the request is about, with its current data (the values a change would replace)' },
  ),
});

const Money = Type.Object({ currency: Type.String({ description: 'ISO 4217' }), amount: Type.String({ description: 'Exact decimal' }) });
const Decimal = Type.String({ pattern: '^[0-9]{1,20}(\\.[0-9]{1,10})?$', description: 'A non-negative decimal, e.g. 25000.00' });

const DealRow = Type.Object({
  investorUserId: Type.String(),
  fullName: Type.String(),
  email: Nullable(Type.String()),
  stepId: Type.String(),
  enteredStepAt: Timestamp,
  committedAmount: Nullable(Type.String()),
  currency: Nullable(Type.String()),
  ...PaymentProgress.properties,
  kycCheckLevel: Nullable(Type.Integer()),
  classifications: Type.Array(Type.String()),
  pendingEditRequests: Type.Integer(),
  paymentReference: Type.String({ description: 'The reference the investor pays with (structured creditor reference)' }),
});

const pageOf = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ output: Type.Array(item), page: Type.Integer(), totalPages: Type.Integer(), total: Type.Integer() });

export function consoleRoutes(app: Api, ctx: AppContext) {
  app.post(
    '/console/deals/:dealId/workflow/check',
    {
      schema: {
        operationId: 'previewWorkflow',
        tags,
        summary: 'Check a workflow document without saving it: its problems, and what it changes for investors already on the deal',
        description:
          'The body is what PUT /deals/deal/{dealId}/workflow takes. Nothing is written. `problems` are the field errors that PUT would answer 400 with ' +
          '(plus step ids of another deal, a 409 there); `changes` compare it with the current workflow; `valid` is false when the PUT would be refused.',
        params: Type.Object({ dealId: ExternalId }),
        body: WorkflowBody,
        response: {
          200: Type.Object({
            valid: Type.Boolean(),
            investors: Type.Integer({ description: 'investors with a journey in the deal: the changes concern them only when there are some' }),
            problems: Type.Array(
              Type.Object({
                in: Type.String(),
                field: Type.String({ description: 'e.g. steps.2.stepFields.0.fieldKey, links.3.toStepId' }),
                detail: Type.String(),
              }),
            ),
            changes: Type.Array(
              Type.Object({
                kind: Type.String({ description: workflowChangeKinds.join(', ') }),
                stepId: Type.String(),
                investors: Type.Integer({ description: 'Investors standing on the step (for links: on the step the link leaves)' }),
                blocking: Type.Boolean({ description: 'The save would be refused because of this change' }),
                detail: Type.String(),
              }),
            ),
          }),
        },
      },
    },
    async ({ params, body }) => checkWorkflow(ctx, params.dealId, toDocument(body), triggersOf(body)),
  );

  app.get(
    '/console/deals/:dealId/rows',
    {
      schema: {
        operationId: 'listDealRows',
        tags,
        summary: "A deal's investors filtered and sorted (board columns and table view), with the filtered count and committed totals",
        description:
          'Committed amount and currency are as on the board cards. Days at step count whole days since the investor entered their step. ' +
          'Sorting by amount puts investors without one last; ties are broken by name then id.',
        params: Type.Object({ dealId: ExternalId }),
        querystring: Type.Object({
          stepId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          query: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive match anywhere in the name or e-mail' })),
          minAmount: Type.Optional(Decimal),
          maxAmount: Type.Optional(Decimal),
          currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
          minDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000, description: 'At the step for at least this many days' })),
          maxDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000, description: 'At the step for at most this many days' })),
          minKycLevel: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
          classification: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'An investor class name (case-insensitive)' })),
          pending: Type.Optional(Type.Boolean({ description: 'true: only investors with a pending edit request; false: only those without' })),
          paid: Type.Optional(
            Type.Union(
              paidStates.map((s) => Type.Literal(s)),
              {
                description: 'none: nothing received; partly: something received, less than the commitment; full: at least the commitment received',
              },
            ),
          ),
          sort: Type.Optional(
            Type.Union(
              rowSorts.map((s) => Type.Literal(s)),
              { default: 'name' },
            ),
          ),
          order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'asc' })),
          ...PageQuery,
        }),
        response: {
          200: Type.Object({
            ...pageOf(DealRow).properties,
            committed: Type.Array(Money, { description: 'Committed totals of the filtered investors, per currency' }),
          }),
        },
      },
    },
    async (request) => listDealRows(ctx, request.params.dealId, { ...request.query, limit: request.query.limit ?? 20, page: request.query.page ?? 1 }),
  );

  app.get(
    '/console/investors',
    {
      schema: {
        operationId: 'listDirectoryInvestors',
        tags,
        summary: 'The investor directory, a page at a time, by full name then id',
        description: 'Each entry with its KYC level, class names and the number of deals the investor has a journey in; `total` counts every match.',
        querystring: Type.Object({
          query: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive match anywhere in the name, e-mail or id' })),
          ...PageQuery,
        }),
        response: { 200: pageOf(DirectoryEntry) },
      },
    },
    async (request) => listDirectory(ctx, { query: request.query.query, limit: request.query.limit ?? 20, page: request.query.page ?? 1 }),
  );

  app.get(
    '/console/edit-requests',
    {
      schema: {
        operationId: 'listPendingEditRequests',
        tags,
        summary: 'Every pending edit request across deals (or of one deal), oldest first',
        description:
          'The inbox of the console: each request with its deal, investor and the event it is about, including the event’s current data (the values an approval would replace).',
        querystring: Type.Object({ dealId: Type.Optional(ExternalId), ...PageQuery }),
        response: { 200: pageOf(PendingRequest) },
      },
    },
    async (request) => listPendingEditRequests(ctx, { dealId: request.query.dealId, limit: request.query.limit ?? 20, page: request.query.page ?? 1 }),
  );

  app.get(
    '/console/people',
    {
      schema: {
        operationId: 'listPeopleNames',
        description: 'Actor ids are recorded on events, revisions and decisions; this turns them into names for display. At most 100 ids per call (400 above).',
        tags,
        summary: "Names of the people behind actor ids (API keys by id; the caller's own JWT name claim); unknown ids are left out",
        querystring: Type.Object({
          ids: Type.String({ minLength: 1, maxLength: 8000, description: 'Comma-separated user ids, at most 100' }),
        }),
        response: { 200: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })) },
      },
    },
    async (request) =>
      namePeople(
        ctx,
        principalOf(request),
        request.query.ids
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      ),
  );
}
