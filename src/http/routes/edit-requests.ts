// Edit requests: create (investor for own events, or admin), read, list (listInvestorEditRequests), and decide
// (admin). Wire names keep the interface's spelling (`dateRecieved`).
import { Type } from 'typebox';
import { authorizeEditRequest, createEditRequest, decideEditRequest, getEditRequest, listEditRequests } from '../../operations/edit-requests.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { write } from '../../operations/pipeline.ts';
import type { Deps } from '../../operations/deps.ts';
import { answer, writeOf } from '../writes.ts';
import { ExternalId, StrictObject, Timestamp } from '../schemas/common.ts';
import { sendDigested } from '../etag.ts';
import { CONDITIONAL, ConditionalHeaders, NotModified } from '../schemas/conditional.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Data = Type.Record(Type.String(), Type.String());
// The closed vocabularies of domain/edit-request.ts, spelled out so the types stay literal.
const RequestType = Type.Union([Type.Literal('Investment Amount'), Type.Literal('Withdraw Investment')]);
const Status = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]);

const EditRequest = Type.Object(
  {
    workflowEventId: Type.String(),
    dateRecieved: Type.String({ format: 'date-time', description: 'when the request was made (spelled as in the interface)' }),
    reason: Type.String(),
    type: RequestType,
    id: Type.String(),
    status: Status,
    decidedAt: Nullable(Timestamp),
    decidedByUserId: Nullable(Type.String()),
    decisionReason: Nullable(Type.String()),
    newData: Nullable(Data),
  },
  { title: 'EventEditRequest' },
);

const RequestParams = Type.Object({ requestId: Type.String({ format: 'uuid' }) });
const DecisionBody = StrictObject({ reason: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))) });

export function editRequestRoutes(app: Api, ctx: AppContext) {
  app.post(
    '/deals/request-to-edit',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['investor side'],
        summary: 'Request a change to an event: a new investment amount, or withdrawal',
        description:
          "Investment Amount: newData holds new values of the event's amount fields only. Withdraw Investment: no newData. One pending request per event (409).",
        body: StrictObject({
          workflowEventId: Type.String({ format: 'uuid' }),
          type: RequestType,
          reason: Type.String({ minLength: 1, maxLength: 2000 }),
          newData: Type.Optional(Nullable(Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 100 }), { maxProperties: 50 }))),
        }),
        headers: IdempotencyHeaders,
        response: { 201: EditRequest },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const authorize = (deps: Deps) => authorizeEditRequest(deps, principal, request.body.workflowEventId);
      return answer(reply, await write(ctx, writeOf(ctx, request), 201, (tx) => createEditRequest(tx, principal, request.body), { authorize }));
    },
  );

  app.get(
    '/deals/request-to-edit/filtered',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['investor side'],
        summary: "An investor's edit requests in a deal, newest first",
        querystring: Type.Object({ dealId: ExternalId, investorUserId: ExternalId }),
        response: { 200: Type.Array(EditRequest) },
      },
    },
    async (request) => listEditRequests(ctx, principalOf(request), request.query.dealId, request.query.investorUserId),
  );

  app.get(
    '/deals/request-to-edit/:requestId',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['investor side'],
        summary: 'Read an edit request',
        description: CONDITIONAL,
        params: RequestParams,
        headers: ConditionalHeaders,
        response: { 200: EditRequest, 304: NotModified },
      },
    },
    async (request, reply) => sendDigested(request, reply, 'e', await getEditRequest(ctx, principalOf(request), request.params.requestId)),
  );

  for (const decision of ['approve', 'reject'] as const) {
    app.post(
      `/deals/request-to-edit/:requestId/${decision}`,
      {
        schema: {
          tags: ['investor side'],
          summary:
            decision === 'approve'
              ? 'Approve a pending request and apply it (edit the event, or move the investor to the withdrawn step)'
              : 'Reject a pending request',
          params: RequestParams,
          headers: IdempotencyHeaders,
          body: DecisionBody,
          response: { 200: EditRequest },
        },
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request, reply) => {
        const decide = (tx: Deps) => decideEditRequest(tx, principalOf(request), request.params.requestId, decision, request.body.reason ?? null);
        return answer(reply, await write(ctx, writeOf(ctx, request), 200, decide));
      },
    );
  }
}
