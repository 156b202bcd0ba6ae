// Subscription agreements (docs/reference/documents.md, "Subscription agreements"): a deal's
// template (operator), each investor's agreement and its PDF in its newest form (staff, or the
// investor themselves), and signing: options whose WebAuthn challenge binds the document's hash,
// then the passkey's answer; the investor signs in the portal, an approver countersigns in the
// console. Under /portal/api and /console/api behind the session cookie, where signing happens.
import { Readable, Stream } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { isStaff } from '../../domain/principal.ts';
import { createSigningOptions, signAgreement } from '../../operations/agreement-signing.ts';
import { getAgreement, listAgreements, openAgreement, recordAgreementTemplate } from '../../operations/agreements.ts';
import type { Deps } from '../../operations/deps.ts';
import { DOCUMENT_MAX_BYTES, storeDocumentContent, tooLarge } from '../../operations/documents.ts';
import { write } from '../../operations/pipeline.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { ExternalId, Timestamp } from '../schemas/common.ts';
import { answer, writeOf } from '../writes.ts';

const tags = ['documents'];
const DealParams = Type.Object({ dealId: ExternalId });
const AgreementParams = Type.Object({ dealId: ExternalId, investorUserId: ExternalId });
const Hash = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256, hex' });

const Template = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    dealId: Type.String(),
    contentHash: Hash,
    fields: Type.Array(Type.String(), {
      description: "the template's form fields, filled by name (investor_name, amount, currency, date, deal_name, or a captured field's key)",
    }),
    uploadedBy: Type.String(),
    uploadedAt: Timestamp,
  },
  { title: 'AgreementTemplate' },
);
const Signature = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    role: Type.Union([Type.Literal('investor'), Type.Literal('countersigner')]),
    signer: Type.String({ description: 'the investor id, or the staff person who countersigned' }),
    signedHash: Hash,
    sealedHash: Hash,
    credentialId: Type.String({ description: "the passkey's credential id" }),
    ip: Type.String({ description: "the signer's address as the service saw it" }),
    signedAt: Timestamp,
  },
  { title: 'AgreementSignature' },
);
const Agreement = Type.Object(
  {
    dealId: Type.String(),
    investorUserId: Type.String(),
    investorName: Type.String(),
    state: Type.Union([Type.Literal('to-sign'), Type.Literal('signed'), Type.Literal('countersigned')]),
    contentHash: Type.String({ description: 'SHA-256 of the PDF in its newest form: what the next signature binds' }),
    templateHash: Type.Union([Type.String(), Type.Null()], { description: 'the template filled; null for a page made from the deal text, or once signed' }),
    required: Type.Boolean({ description: "whether a step of the deal's workflow requires it signed and countersigned (signed-agreement)" }),
    signatures: Type.Array(Signature),
  },
  { title: 'SubscriptionAgreement' },
);
const SigningOptions = Type.Object(
  {
    contentHash: Hash,
    options: Type.Object({}, { additionalProperties: true, description: 'WebAuthn request options; the challenge is the SHA-256 then 16 random bytes' }),
  },
  { title: 'SigningOptions' },
);
const Assertion = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 1024 }),
    rawId: Type.String({ minLength: 1, maxLength: 1024 }),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: Type.String({ minLength: 1, maxLength: 16_384 }),
        authenticatorData: Type.String({ minLength: 1, maxLength: 16_384 }),
        signature: Type.String({ minLength: 1, maxLength: 4096 }),
        userHandle: Type.Optional(Type.String({ maxLength: 1024 })),
      },
      { additionalProperties: false },
    ),
    clientExtensionResults: Type.Object({}, { additionalProperties: true }),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: false },
);

function pdfBody(request: FastifyRequest): AsyncIterable<Uint8Array> {
  if (!(request.body instanceof Stream)) throw new AppError('unsupported-media-type', 'Send the template itself as application/pdf');
  if (Number(request.headers['content-length'] ?? 0) > DOCUMENT_MAX_BYTES) throw tooLarge();
  return request.body as unknown as AsyncIterable<Uint8Array>;
}

const signerRole = (request: FastifyRequest) => (isStaff(principalOf(request)) ? 'countersigner' : 'investor');
const rp = (ctx: AppContext) => ({ origin: ctx.config.portal.origin, rpId: ctx.config.portal.rpId });

export function agreementRoutes(app: Api, ctx: AppContext) {
  return app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    scope.addContentTypeParser('application/pdf', (_request, payload, done) => done(null, payload));

    scope.post(
      '/deals/deal/:dealId/agreement-template',
      {
        schema: {
          tags,
          operationId: 'createAgreementTemplate',
          summary: "Upload the deal's subscription agreement template: a PDF whose form fields are filled for each investor",
          description:
            'Operator. The body is the PDF itself (application/pdf, at most 64 MiB). The newest upload is the template in use; ' +
            'without one, the agreement is a page made from the deal text. Agreements signed already keep the document they signed.',
          params: DealParams,
          headers: IdempotencyHeaders,
          response: { 201: Template },
        },
      },
      async (request, reply) => {
        const stored = await storeDocumentContent(ctx, principalOf(request), request.params.dealId, pdfBody(request));
        const record = (tx: Deps) => recordAgreementTemplate(tx, principalOf(request), request.params.dealId, stored);
        return answer(reply, await write(ctx, writeOf(ctx, request), 201, record));
      },
    );

    scope.get(
      '/deals/deal/:dealId/agreements',
      {
        schema: {
          tags,
          operationId: 'listAgreements',
          summary: "The deal's agreements that have a signature: signed, waiting for the countersignature, or countersigned",
          description: 'Staff.',
          params: DealParams,
          response: { 200: Type.Array(Agreement) },
        },
      },
      async (request) => listAgreements(ctx, principalOf(request), request.params.dealId),
    );

    scope.get(
      '/deals/deal/:dealId/agreements/:investorUserId',
      {
        config: { roles: ['admin', 'investor'] },
        schema: {
          tags,
          operationId: 'getAgreement',
          summary: "An investor's subscription agreement: its state, the hash of its newest form, and its signatures",
          description: "Staff, or the investor themselves; another investor's agreement, or an investor with no journey in the deal, is 404.",
          params: AgreementParams,
          response: { 200: Agreement },
        },
      },
      async (request) => getAgreement(ctx, principalOf(request), request.params.dealId, request.params.investorUserId),
    );

    scope.get(
      '/deals/deal/:dealId/agreements/:investorUserId/content',
      {
        config: { roles: ['admin', 'investor'] },
        schema: {
          tags,
          operationId: 'getAgreementContent',
          summary: 'The agreement as a PDF in its newest form: filled to review, signed, or countersigned',
          description: 'Staff, or the investor themselves (else 404). The read is an audit entry `agreement.read`; the ETag is the SHA-256.',
          params: AgreementParams,
          response: {
            200: {
              description: 'The PDF, with its SHA-256 in ETag',
              content: { 'application/pdf': { schema: Type.String({ format: 'binary' }) } },
            } as unknown as ReturnType<typeof Type.String>,
          },
        },
      },
      async (request, reply) => {
        const { agreement, content } = await openAgreement(ctx, principalOf(request), request.params.dealId, request.params.investorUserId);
        reply.type('application/pdf').header('Content-Length', String(content.size)).header('ETag', `"${agreement.contentHash}"`);
        reply
          .header('Content-Disposition', `attachment; filename="subscription-agreement-${agreement.state}.pdf"`)
          .header('Cache-Control', 'private, no-store');
        return reply.send(Readable.from(content.chunks) as unknown as string);
      },
    );

    scope.post(
      '/deals/deal/:dealId/agreements/:investorUserId/signing-options',
      {
        config: { roles: ['admin', 'investor'] },
        schema: {
          tags,
          operationId: 'createAgreementSigningOptions',
          summary: 'WebAuthn options to sign (investor) or countersign (approver) the agreement: the challenge binds the reviewed PDF',
          description:
            'The investor in the portal, or an approver in the console, each signed in with a passkey (else 403). `contentHash` is the ' +
            "SHA-256 of the PDF reviewed; 409 when the agreement is no longer that PDF, or it is not the signer's turn.",
          params: AgreementParams,
          headers: IdempotencyHeaders,
          body: Type.Object({ contentHash: Hash }, { additionalProperties: false }),
          response: { 201: SigningOptions },
        },
      },
      async (request, reply) => {
        const input = { ...request.params, role: signerRole(request), contentHash: request.body.contentHash } as const;
        return answer(reply, await write(ctx, writeOf(ctx, request), 201, (tx) => createSigningOptions(tx, principalOf(request), input, rp(ctx))));
      },
    );

    scope.post(
      '/deals/deal/:dealId/agreements/:investorUserId/signatures',
      {
        config: { roles: ['admin', 'investor'] },
        schema: {
          tags,
          operationId: 'createAgreementSignature',
          summary: "Sign (investor) or countersign (approver) with the passkey's answer: the PDF is sealed with a PAdES signature",
          description:
            'The answer to signing options, with user verification (else 400, and the options are spent). The sealed PDF, its hash and ' +
            'the assertion are recorded with the time and the client address, and appended to the audit chain `documents:{dealId}`.',
          params: AgreementParams,
          headers: IdempotencyHeaders,
          body: Type.Object({ response: Assertion }, { additionalProperties: false }),
          response: { 201: Agreement },
        },
      },
      async (request, reply) => {
        const input = { ...request.params, role: signerRole(request), response: request.body.response as AuthenticationResponseJSON, ip: request.ip } as const;
        return answer(reply, await write(ctx, writeOf(ctx, request), 201, (tx) => signAgreement(tx, principalOf(request), input, rp(ctx), ctx.config.seal)));
      },
    );
  });
}
