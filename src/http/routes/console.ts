// Read models of the operations console (admin only, tag `back office`): the investor directory,
// the inbox of pending edit requests across deals, and names for the ids recorded as actors.
import { Type } from 'typebox';
import { listDirectory, listPendingEditRequests, namePeople } from '../../operations/console.ts';
import type { Api, AppContext } from '../app.ts';
import { principalOf } from '../auth.ts';
import { ExternalId, PageQuery, Timestamp } from '../schemas/common.ts';

const tags = ['back office'];
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

const pageOf = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ output: Type.Array(item), page: Type.Integer(), totalPages: Type.Integer(), total: Type.Integer() });

export function consoleRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/back-office/investors',
    {
      schema: {
        tags,
        summary: 'The investor directory, a page at a time, by full name then id',
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
    '/back-office/edit-requests',
    {
      schema: {
        tags,
        summary: 'Every pending edit request across deals (or of one deal), oldest first',
        querystring: Type.Object({ dealId: Type.Optional(ExternalId), ...PageQuery }),
        response: { 200: pageOf(PendingRequest) },
      },
    },
    async (request) => listPendingEditRequests(ctx, { dealId: request.query.dealId, limit: request.query.limit ?? 20, page: request.query.page ?? 1 }),
  );

  app.get(
    '/back-office/people',
    {
      schema: {
        tags,
        summary: "Names of the people behind actor ids (API keys by id; the caller's own JWT name claim); unknown ids are left out",
        querystring: Type.Object({
          ids: Type.String({ minLength: 1, maxLength: 8000, description: 'Comma-separated user ids, at most 100' }),
        }),
        response: { 200: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })) },
      },
    },
    async (request) => namePeople(ctx, principalOf(request), request.query.ids.split(',').map((id) => id.trim()).filter(Boolean)),
  );
}
