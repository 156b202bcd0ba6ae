// A deal's documents (docs/reference/documents.md): upload a PDF (operator), release it to a step or
// an investor (operator), list them (staff: with releases and reads; an investor: those released to
// them), open one (staff, or an investor it is released to; the read is recorded first) and see who
// opened it (staff). Under /portal/api as well, behind the session cookie, for the investor.
import { Readable, Stream } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import type { Deps } from '../../operations/deps.ts';
import {
  DOCUMENT_MAX_BYTES,
  listDocumentReads,
  listDocuments,
  openDocument,
  recordDocument,
  releaseDocument,
  storeDocumentContent,
  tooLarge,
} from '../../operations/documents.ts';
import { write } from '../../operations/pipeline.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { ExternalId, Timestamp } from '../schemas/common.ts';
import { StepId } from '../schemas/workflow.ts';
import { answer, writeOf } from '../writes.ts';

const tags = ['documents'];
const DealParams = Type.Object({ dealId: ExternalId });
const DocumentParams = Type.Object({ dealId: ExternalId, documentId: Type.String({ format: 'uuid' }) });

const Document = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    dealId: Type.String(),
    title: Type.String(),
    fileName: Type.String(),
    contentHash: Type.String({ description: 'SHA-256 of the bytes, hex: what a signature or a reader can check the file against' }),
    size: Type.Integer({ description: 'bytes' }),
    uploadedBy: Type.String(),
    uploadedAt: Timestamp,
  },
  { title: 'DealDocument' },
);
const Release = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    stepId: Type.Union([Type.String(), Type.Null()], { description: 'released to every investor whose journey has entered this step' }),
    investorUserId: Type.Union([Type.String(), Type.Null()], { description: 'released to this investor' }),
    investorName: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "staff lists: that investor's name" })),
    releasedBy: Type.String(),
    releasedAt: Timestamp,
  },
  { title: 'DocumentRelease' },
);
const StaffDocument = Type.Intersect([
  Document,
  Type.Object({
    releases: Type.Optional(Type.Array(Release, { description: 'staff only: who the document is released to' })),
    reads: Type.Optional(Type.Integer({ description: 'staff only: how many times it was opened' })),
  }),
]);
const Read = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    documentId: Type.String({ format: 'uuid' }),
    reader: Type.String({ description: 'the investor id, or the staff member or key' }),
    readerRole: Type.String(),
    readAt: Timestamp,
  },
  { title: 'DocumentRead' },
);

/** The uploaded PDF as a stream: 415 for any other content type, 413 for a size announced over the limit. */
function pdfBody(request: FastifyRequest): AsyncIterable<Uint8Array> {
  if (!(request.body instanceof Stream)) throw new AppError('unsupported-media-type', 'Send the document itself as application/pdf');
  if (Number(request.headers['content-length'] ?? 0) > DOCUMENT_MAX_BYTES) throw tooLarge();
  return request.body as unknown as AsyncIterable<Uint8Array>;
}

// A name for downloads: no path, no quote, no control character (the title may hold any of them).
const safeName = (name: string) => [...name].map((c) => (c < ' ' || c === '\u007f' || c === '/' || c === '\\' || c === '"' ? '_' : c)).join('');
const documentMeta = (query: { title: string; fileName?: string }) => ({ title: query.title, fileName: safeName(query.fileName ?? `${query.title}.pdf`) });

/** RFC 6266: an ASCII fallback name, and the name itself in UTF-8 (`filename*`). */
const attachment = (fileName: string) =>
  `attachment; filename="${fileName.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;

export function documentRoutes(app: Api, ctx: AppContext) {
  return app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // The PDF is handed on as the raw stream and stored a chunk at a time.
    scope.addContentTypeParser('application/pdf', (_request, payload, done) => done(null, payload));

    scope.post(
      '/deals/deal/:dealId/documents',
      {
        schema: {
          tags,
          operationId: 'createDealDocument',
          summary: 'Upload a PDF to a deal: stored once by its SHA-256, released to nobody until a release says so',
          description:
            'Operator. The body is the PDF itself (application/pdf, at most 64 MiB; one that does not begin with %PDF- is 400). ' +
            'The bytes are stored first, a chunk at a time; the document and its audit entry follow in one transaction.',
          params: DealParams,
          querystring: Type.Object({
            title: Type.String({ minLength: 1, maxLength: 200 }),
            fileName: Type.Optional(
              Type.String({ minLength: 1, maxLength: 200, pattern: '^[^/\\\\"\\r\\n]+$', description: 'kept for downloads; the title when absent' }),
            ),
          }),
          headers: IdempotencyHeaders,
          response: { 201: Document },
        },
      },
      async (request, reply) => {
        const stored = await storeDocumentContent(ctx, principalOf(request), request.params.dealId, pdfBody(request));
        const record = (tx: Deps) => recordDocument(tx, principalOf(request), request.params.dealId, documentMeta(request.query), stored);
        return answer(reply, await write(ctx, writeOf(ctx, request), 201, record));
      },
    );

    scope.post(
      '/deals/deal/:dealId/documents/:documentId/releases',
      {
        schema: {
          tags,
          operationId: 'createDocumentRelease',
          summary: 'Release a document to every investor at or past a step, or to one investor',
          description:
            'Operator. `stepId`: every investor whose journey in the deal has entered that step (now or later) may list and open it; ' +
            '`investorUserId`: that investor. A release is never withdrawn: a new version is a new document. The same release twice is 409.',
          params: DocumentParams,
          headers: IdempotencyHeaders,
          body: Type.Object({ stepId: Type.Optional(StepId), investorUserId: Type.Optional(ExternalId) }, { additionalProperties: false }),
          response: { 201: Type.Intersect([Release, Type.Object({ documentId: Type.String({ format: 'uuid' }) })]) },
        },
      },
      async (request, reply) => {
        const release = (tx: Deps) => releaseDocument(tx, principalOf(request), request.params.dealId, request.params.documentId, request.body);
        return answer(reply, await write(ctx, writeOf(ctx, request), 201, release));
      },
    );

    scope.get(
      '/deals/deal/:dealId/documents',
      {
        config: { roles: ['admin', 'investor'] },
        schema: {
          tags,
          operationId: 'listDealDocuments',
          summary: "A deal's documents, oldest first: for staff with their releases and reads, for an investor those released to them",
          description: 'An investor with no journey in the deal, or a deal that does not exist: 404.',
          params: DealParams,
          response: { 200: Type.Array(StaffDocument) },
        },
      },
      async (request) => listDocuments(ctx, principalOf(request), request.params.dealId),
    );

    scope.get(
      '/deals/deal/:dealId/documents/:documentId/content',
      {
        config: { roles: ['admin', 'investor'] },
        schema: {
          tags,
          operationId: 'getDealDocumentContent',
          summary: 'The PDF, streamed; the read is recorded (and audited) before a byte is sent',
          description: 'Staff, or an investor the document is released to; any other document, or one not released to them, is 404 as an unknown one is.',
          params: DocumentParams,
          response: {
            200: {
              description: 'The PDF, as an attachment, with its SHA-256 in ETag',
              content: { 'application/pdf': { schema: Type.String({ format: 'binary' }) } },
            } as unknown as ReturnType<typeof Type.String>,
          },
        },
      },
      async (request, reply) => {
        const { document, content } = await openDocument(ctx, principalOf(request), request.params.dealId, request.params.documentId);
        reply.type('application/pdf').header('Content-Length', String(content.size)).header('ETag', `"${document.contentHash}"`);
        reply.header('Content-Disposition', attachment(document.fileName)).header('Cache-Control', 'private, no-store');
        return reply.send(Readable.from(content.chunks) as unknown as string);
      },
    );

    scope.get(
      '/deals/deal/:dealId/documents/:documentId/reads',
      {
        schema: {
          tags,
          operationId: 'listDocumentReads',
          summary: 'Who opened a document, and when, oldest first',
          description: 'Staff. Each read is also an audit entry `document.read` on the chain `documents:{dealId}`.',
          params: DocumentParams,
          response: { 200: Type.Array(Read) },
        },
      },
      async (request) => listDocumentReads(ctx, principalOf(request), request.params.dealId, request.params.documentId),
    );
  });
}
