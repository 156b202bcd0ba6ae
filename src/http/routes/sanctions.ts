// Sanctions screening (docs/reference/checks.md): a list file uploaded as the operator downloaded it
// (admin), the loads, the review queue of hits and its decisions (approver), and a screen on demand.
// Staff only: an investor's key or cookie gets the 403 every staff route gives.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Stream } from 'node:stream';
import { AppError } from '../../domain/errors.ts';
import { Type } from 'typebox';
import type { Deps } from '../../operations/deps.ts';
import type { Spooled } from '../../operations/import-readers/limits.ts';
import { spoolUpload } from '../spool-upload.ts';
import { write } from '../../operations/pipeline.ts';
import { decideSanctionsHit, listSanctionsHits, listSanctionsLists, loadSanctionsList, screenOnDemand } from '../../operations/sanctions.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { ExternalId, Page, PageQuery, Timestamp } from '../schemas/common.ts';
import { answer, writeOf } from '../writes.ts';

const tags = ['checks'];
const LIST_TYPES = ['application/xml', 'text/xml', 'text/csv'];
/** The largest list file taken: the official lists are tens of megabytes. */
export const SANCTIONS_FILE_LIMIT = 256 * 1024 * 1024;

const Source = Type.Union([Type.Literal('eu'), Type.Literal('uk'), Type.Literal('ofac'), Type.Literal('un')]);
const Status = Type.Union([Type.Literal('open'), Type.Literal('confirmed'), Type.Literal('dismissed')]);
const HitParams = Type.Object({ hitId: Type.String({ format: 'uuid' }) });

const ListLoad = Type.Object(
  {
    versionId: Type.String({ format: 'uuid' }),
    source: Source,
    entryCount: Type.Integer(),
    newHits: Type.Integer({ description: 'investors newly matching an entry of this version (each an open hit in the review queue)' }),
  },
  { title: 'SanctionsListLoad' },
);
const ListVersion = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    source: Source,
    fileName: Type.String(),
    entryCount: Type.Integer(),
    loadedAt: Timestamp,
    loadedBy: Type.String(),
    current: Type.Boolean({ description: 'the newest load of its source: the one investors are screened against' }),
  },
  { title: 'SanctionsListVersion' },
);
const Hit = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    investorId: Type.String(),
    investorName: Type.String(),
    source: Source,
    sourceId: Type.String({ description: "the entry's id in its list" }),
    score: Type.String({ description: 'similarity, 0 to 1 (three decimals); a hit is 0.9 or more' }),
    matchedName: Type.String(),
    status: Status,
    reason: Type.Union([Type.String(), Type.Null()]),
    decidedBy: Type.Union([Type.String(), Type.Null()]),
    decidedAt: Type.Union([Timestamp, Type.Null()]),
    createdAt: Timestamp,
    listed: Type.Boolean({ description: "false once the entry has left its list's newest version: the hit then blocks nothing" }),
  },
  { title: 'SanctionsHit' },
);
const HitDecided = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: Type.Union([Type.Literal('confirmed'), Type.Literal('dismissed')]),
    reason: Type.Union([Type.String(), Type.Null()]),
    decidedBy: Type.String(),
    decidedAt: Timestamp,
  },
  { title: 'SanctionsHitDecision' },
);

/** The uploaded list on disk, removed when the response is done (a retried transaction reads it again). */
async function spoolList(request: FastifyRequest, reply: FastifyReply): Promise<Spooled> {
  if (!(request.body instanceof Stream)) {
    throw new AppError('unsupported-media-type', 'Send the list file as it was downloaded: application/xml or text/xml (EU, OFAC, UN), text/csv (UK)');
  }
  const file = await spoolUpload(request, reply, { quoted: false, header: false, maxBytes: SANCTIONS_FILE_LIMIT, what: 'The list file' });
  reply.raw.once('close', () => void file.remove());
  return file;
}

export function sanctionsRoutes(app: Api, ctx: AppContext) {
  return app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // The list file is handed on as the raw stream and spooled to disk before it is read.
    scope.addContentTypeParser(LIST_TYPES, (_request, payload, done) => done(null, payload));

    scope.post(
      '/sanctions/lists',
      {
        schema: {
          tags,
          operationId: 'importSanctionsList',
          summary: 'Load a sanctions list file: EU FSF XML, UK OFSI CSV, OFAC SDN XML or the UN consolidated XML, as downloaded',
          description:
            'The list is recognised from its content (docs/reference/checks.md). One transaction: a new version of its source, its entries, an audit ' +
            'entry, and a screen of every investor against the newest version of each list. A file that is none of the four lists: 422, nothing stored.',
          querystring: Type.Object({ fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'kept with the version' })) }),
          headers: IdempotencyHeaders,
          response: { 201: ListLoad },
        },
      },
      async (request, reply) => {
        const file = await spoolList(request, reply);
        const load = (tx: Deps) => loadSanctionsList(tx, principalOf(request), request.query.fileName ?? 'upload', file.open());
        return answer(reply, await write(ctx, writeOf(ctx, request), 201, load));
      },
    );

    scope.get(
      '/sanctions/lists',
      {
        schema: {
          tags,
          operationId: 'listSanctionsLists',
          summary: 'Every list load, newest first',
          description:
            "Each load is a version of its source; `current` marks each source's newest, the one investors are screened against. Older versions stay as history.",
          response: { 200: Type.Array(ListVersion) },
        },
      },
      async (request) => listSanctionsLists(ctx, principalOf(request)),
    );

    scope.get(
      '/sanctions/hits',
      {
        schema: {
          tags,
          operationId: 'listSanctionsHits',
          summary: 'The review queue: investors matching a list entry, oldest first (open ones unless a status is named)',
          description:
            'An open or confirmed hit whose entry is still on its list keeps the investor out of the steps that take money (`listed`); ' +
            'a dismissed one names who dismissed it and why.',
          querystring: Type.Object({ status: Type.Optional(Type.Union([Status, Type.Literal('all')])), investorId: Type.Optional(ExternalId), ...PageQuery }),
          response: { 200: Page(Hit, 'SanctionsHitPage') },
        },
      },
      async (request) => listSanctionsHits(ctx, principalOf(request), request.query),
    );

    for (const decision of ['confirm', 'dismiss'] as const) {
      scope.post(
        `/sanctions/hits/:hitId/${decision}`,
        {
          schema: {
            tags,
            operationId: decision === 'confirm' ? 'setSanctionsHitConfirmed' : 'setSanctionsHitDismissed',
            summary:
              decision === 'confirm'
                ? 'Confirm an open hit: the investor stays out of the steps that take money'
                : 'Dismiss an open hit as a false positive, with a reason: it does not hit again until its list entry changes',
            description: 'Approver. A decision is final: deciding a hit that is no longer open is 409. Audited on the sanctions chain.',
            params: HitParams,
            headers: IdempotencyHeaders,
            body: Type.Object(
              { reason: decision === 'dismiss' ? Type.String({ minLength: 1, maxLength: 2000 }) : Type.Optional(Type.String({ maxLength: 2000 })) },
              { additionalProperties: false },
            ),
            response: { 200: HitDecided },
          },
        },
        async (request, reply) => {
          const decide = (tx: Deps) => decideSanctionsHit(tx, principalOf(request), request.params.hitId, decision, request.body.reason);
          return answer(reply, await write(ctx, writeOf(ctx, request), 200, decide));
        },
      );
    }

    scope.post(
      '/sanctions/screen',
      {
        schema: {
          tags,
          operationId: 'screenInvestors',
          summary: 'Screen investors now against the newest version of each list (every investor when none are named)',
          description:
            'Operator. Investors are also screened at creation, update, import and every list load; this is for a check on demand. New hits go to the review queue.',
          headers: IdempotencyHeaders,
          body: Type.Object({ investorIds: Type.Optional(Type.Array(ExternalId, { minItems: 1, maxItems: 1000 })) }, { additionalProperties: false }),
          response: { 200: Type.Object({ newHits: Type.Integer() }, { title: 'SanctionsScreen' }) },
        },
      },
      async (request, reply) =>
        answer(reply, await write(ctx, writeOf(ctx, request), 200, (tx: Deps) => screenOnDemand(tx, principalOf(request), request.body.investorIds))),
    );
  });
}
