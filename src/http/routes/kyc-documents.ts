// An investor's KYC documents (docs/reference/checks.md, "KYC evidence"): the investor (or staff)
// uploads a PDF, JPEG or PNG, streamed into the content store; staff (operator) accept it or ask for
// another with a reason; the investor and staff open it. Under /portal/api as well, behind the
// session cookie; another investor's file answers 404 as an unknown one does.
import { Readable, Stream } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { type KycMediaType, type KycUploadKind, kycMediaTypes, kycUploadKinds } from '../../domain/kyc.ts';
import type { Deps } from '../../operations/deps.ts';
import { kycTooLarge, openKycDocument, recordKycDocument, reviewKycDocument, storeKycContent } from '../../operations/kyc-documents.ts';
import { write } from '../../operations/pipeline.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { KycDocument, KycParams } from '../schemas/kyc.ts';
import { answer, writeOf } from '../writes.ts';

const tags = ['checks'];
const DocumentParams = Type.Object({ ...KycParams.properties, documentId: Type.String({ format: 'uuid' }) });

/** The uploaded file as a stream and the type it claims: 415 for another content type, 413 for a size announced over the limit. */
function fileBody(request: FastifyRequest, maxBytes: number): { mediaType: KycMediaType; body: AsyncIterable<Uint8Array> } {
  const mediaType = String(request.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase() as KycMediaType;
  if (!(request.body instanceof Stream) || !kycMediaTypes.includes(mediaType)) {
    throw new AppError('unsupported-media-type', `Send the file itself as ${kycMediaTypes.join(', ')}`);
  }
  if (Number(request.headers['content-length'] ?? 0) > maxBytes) throw kycTooLarge(maxBytes);
  return { mediaType, body: request.body as unknown as AsyncIterable<Uint8Array> };
}

// A name for downloads: no path, no quote, no control character.
const safeName = (name: string) => [...name].map((c) => (c < ' ' || c === '\u007f' || c === '/' || c === '\\' || c === '"' ? '_' : c)).join('');
const extension: Record<KycMediaType, string> = { 'application/pdf': 'pdf', 'image/jpeg': 'jpg', 'image/png': 'png' };

/** What an upload names: the investor's KYC, the request it answers, the file's name and type; and its bytes. */
function uploadOf(request: FastifyRequest, maxBytes: number) {
  const { mediaType, body } = fileBody(request, maxBytes);
  const query = request.query as { kind: KycUploadKind; fileName?: string };
  const fileName = safeName(query.fileName ?? `${query.kind}.${extension[mediaType]}`);
  return { target: { ...(request.params as { dealId: string; investorUserId: string }), mediaType, kind: query.kind, fileName }, body };
}

export function kycDocumentRoutes(app: Api, ctx: AppContext) {
  return app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // The file is handed on as the raw stream and stored a chunk at a time.
    for (const type of kycMediaTypes) scope.addContentTypeParser(type, (_request, payload, done) => done(null, payload));
    const maxBytes = ctx.config.kyc.documentMaxBytes;

    scope.post(
      '/deals/deal/:dealId/kyc/:investorUserId/documents',
      {
        config: { roles: ['admin', 'investor'] },
        schema: {
          tags,
          operationId: 'createKycDocument',
          summary: 'Upload a KYC document: a PDF, JPEG or PNG, stored once by its SHA-256, waiting for staff',
          description:
            `The investor themself, or staff (operator). The body is the file itself (at most KYC_DOCUMENT_MAX_BYTES, ${maxBytes} bytes here); ` +
            'its first bytes must show the type its Content-Type names (400 otherwise). The bytes are stored first, a chunk at a time; ' +
            'the file and its audit entry follow in one transaction.',
          params: KycParams,
          querystring: Type.Object({
            kind: Type.String({ enum: [...kycUploadKinds], description: 'the request it answers; category-evidence: the certificate of a category' }),
            fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[^/\\\\"\\r\\n]+$', description: 'kept for downloads' })),
          }),
          headers: IdempotencyHeaders,
          response: { 201: KycDocument },
        },
      },
      async (request, reply) => {
        const { target, body } = uploadOf(request, maxBytes);
        const stored = await storeKycContent(ctx, principalOf(request), { ...target, maxBytes }, body);
        return answer(reply, await write(ctx, writeOf(ctx, request), 201, (tx: Deps) => recordKycDocument(tx, principalOf(request), target, stored)));
      },
    );

    for (const decision of ['accept', 'reject'] as const) {
      scope.post(
        `/deals/deal/:dealId/kyc/:investorUserId/documents/:documentId/${decision}`,
        {
          schema: {
            tags,
            operationId: decision === 'accept' ? 'setKycDocumentAccepted' : 'setKycDocumentRejected',
            summary: decision === 'accept' ? 'Accept a KYC document' : 'Ask for another KYC document, with the reason the investor reads',
            description:
              'Operator. Once per file (409 when decided already). ' +
              (decision === 'accept'
                ? "Accepting the last of the deal's required documents sets the investor's kycCheckLevel to the deal's level and records it with its day and expiry; " +
                  'accepting category evidence records the category statement the investor confirmed.'
                : 'The request is open again: the investor sees the reason and uploads another file.'),
            params: DocumentParams,
            headers: IdempotencyHeaders,
            body:
              decision === 'accept'
                ? Type.Optional(Type.Object({}, { additionalProperties: false }))
                : Type.Object({ reason: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false }),
            response: { 200: KycDocument },
          },
        },
        async (request, reply) => {
          const review = {
            decision: decision === 'accept' ? ('accepted' as const) : ('rejected' as const),
            reason: (request.body as { reason?: string } | undefined)?.reason,
          };
          const decide = (tx: Deps) => reviewKycDocument(tx, principalOf(request), request.params, review, ctx.config.kyc.validMonths);
          return answer(reply, await write(ctx, writeOf(ctx, request), 200, decide));
        },
      );
    }

    scope.get(
      '/deals/deal/:dealId/kyc/:investorUserId/documents/:documentId/content',
      {
        config: { roles: ['admin', 'investor'] },
        schema: {
          tags,
          operationId: 'getKycDocumentContent',
          summary: 'A KYC document, streamed',
          description: "Staff, or the investor who uploaded it; another investor's file is 404 as an unknown one is.",
          params: DocumentParams,
          response: {
            200: {
              description: 'The file, as an attachment, with its SHA-256 in ETag',
              content: Object.fromEntries(kycMediaTypes.map((t) => [t, { schema: Type.String({ format: 'binary' }) }])),
            } as unknown as ReturnType<typeof Type.String>,
          },
        },
      },
      async (request, reply) => {
        const p = request.params;
        const { document, content } = await openKycDocument(ctx, principalOf(request), p.dealId, p.investorUserId, p.documentId);
        reply.type(document.mediaType).header('Content-Length', String(content.size)).header('ETag', `"${document.contentHash}"`);
        reply
          .header('Content-Disposition', `attachment; filename="${document.fileName.replace(/[^\x20-\x7e]/g, '_')}"`)
          .header('Cache-Control', 'private, no-store');
        return reply.send(Readable.from(content.chunks) as unknown as string);
      },
    );
  });
}
