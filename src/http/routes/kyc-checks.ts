// Checks by an external KYC provider (docs/reference/kyc-provider-contract.md): staff start one
// for an investor and list an investor's checks; the provider posts each check's result to the
// webhook, which no token opens: its signature does (Standard Webhooks, over the body's bytes).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { kycCheckStates, kycOutcomes, MAX_KYC_LEVEL } from '../../domain/kyc-check.ts';
import { receiveKycResult, startKycCheck } from '../../operations/kyc-checks.ts';
import { kycChecksOf } from '../../operations/kyc-checks.ts';
import { kycProviderOf } from '../../operations/kyc-provider.ts';
import { parseStrictJson } from '../../wire/strict-json.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { decodeUtf8Body } from '../json-body.ts';
import { ExternalId, StrictObject, Timestamp } from '../schemas/common.ts';
import { problemSchemas } from '../schemas/problems.ts';
import { answer, writeOf } from '../writes.ts';

const tags = ['checks'];
const Params = Type.Object({ investorUserId: ExternalId });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});
const Outcome = Type.String({
  enum: [...kycOutcomes],
  description: 'clear: the level is reached; refer: a person must look; failed; expired: never completed',
});

const KycCheck = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'our id for the check: the `reference` the provider’s result names' }),
    investorUserId: Type.String(),
    dealId: Nullable(Type.String(), 'the deal the check was started for, if any'),
    level: Type.Integer({ description: 'the KYC level asked for' }),
    provider: Type.String({ description: 'KYC_PROVIDER_NAME at the start' }),
    providerCheckId: Type.String({ description: 'the provider’s id for the check' }),
    redirectUrl: Nullable(Type.String(), 'where the investor completes the check on the provider’s pages, when it has such pages'),
    state: Type.String({ enum: [...kycCheckStates], description: 'started until the result arrives, then its outcome, for good' }),
    startedBy: Type.String(),
    startedAt: Timestamp,
    result: Nullable(
      Type.Object({
        outcome: Outcome,
        level: Nullable(Type.Integer(), 'the level reached: set for a clear result only'),
        decidedAt: Timestamp,
        receivedAt: Timestamp,
      }),
      'the provider’s result; null while the check is started',
    ),
  },
  { title: 'KycCheck' },
);

const ResultBody = StrictObject(
  {
    type: Type.Literal('kyc.check.decided'),
    reference: Type.String({ format: 'uuid', description: 'our id for the check, as the start request sent it' }),
    checkId: Type.String({ minLength: 1, maxLength: 200, description: 'the provider’s id for the check, as its answer to the start gave it' }),
    outcome: Outcome,
    level: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_KYC_LEVEL }), 'the level reached: required for clear, absent or null otherwise')),
    decidedAt: Type.String({ format: 'date-time', description: 'when the provider decided' }),
  },
  { title: 'KycCheckResult' },
);

/** The body's text as received, for the signature (the JSON parser of this scope keeps it). */
const rawBodies = new WeakMap<FastifyRequest, string>();
const header = (request: FastifyRequest, name: string) => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};
const signedMessage = (request: FastifyRequest) => ({
  id: header(request, 'webhook-id'),
  timestamp: header(request, 'webhook-timestamp'),
  signature: header(request, 'webhook-signature'),
  body: rawBodies.get(request) ?? '',
});
const problem = (kind: keyof typeof problemSchemas, description: string) => ({
  description,
  content: { 'application/problem+json': { schema: problemSchemas[kind] } },
});
/** The webhook's refusals: it is public, so openapi-document.ts adds only the connection-level ones. */
const webhookProblems = {
  400: problem('validation', 'A body that is not a result of the contract'),
  401: problem('unauthenticated', 'No signature, a signature that does not match, or a webhook-timestamp outside KYC_WEBHOOK_TOLERANCE'),
  404: problem('not-found', 'No check with this reference and provider id, or no provider configured'),
  409: problem('conflict', 'Another result for a decided check, or a webhook-id already used for another result'),
  413: problem('payload-too-large', 'Body over BODY_LIMIT'),
  415: problem('unsupported-media-type', 'A body that is not application/json'),
  500: problem('internal', 'A bug: quote the requestId'),
  503: problem('database-unavailable', 'The database does not answer; retry later (the provider retries)'),
};
const kycOf = (ctx: AppContext) => ({ provider: kycProviderOf(ctx.config.kycProvider), callbackUrl: `${ctx.config.portal.publicUrl}/kyc-provider/webhook` });

export function kycCheckRoutes(app: Api, ctx: AppContext) {
  app.post(
    '/investors/:investorUserId/kyc-checks',
    {
      schema: {
        tags,
        operationId: 'createInvestorKycCheck',
        summary: 'Start a check of the investor’s identity by the KYC provider, for a level',
        description:
          'Operator. The provider (KYC_PROVIDER) is asked to check the investor; the check is recorded as `started` with its audit entry, and ' +
          'its `redirectUrl`, when the provider gives one, is where the investor completes it. The provider’s signed result decides it later ' +
          '(POST /kyc-provider/webhook): a clear result raises the investor’s `kycCheckLevel`. No provider configured, or one that refuses or does not answer: 422, nothing recorded.',
        params: Params,
        headers: IdempotencyHeaders,
        body: StrictObject({
          level: Type.Integer({
            minimum: 1,
            maximum: MAX_KYC_LEVEL,
            description: 'the KYC level to check for, as a workflow’s kyc-level requirement names it',
          }),
          dealId: Type.Optional(ExternalId),
        }),
        response: { 201: KycCheck },
      },
    },
    async (request, reply) => answer(reply, await startKycCheck(ctx, kycOf(ctx), writeOf(ctx, request), request.params.investorUserId, request.body)),
  );

  app.get(
    '/investors/:investorUserId/kyc-checks',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags,
        operationId: 'listInvestorKycChecks',
        summary: 'An investor’s checks by the KYC provider, newest first, each with its state',
        description: "Staff, or the investor themself; another investor's id answers 404, as an unknown one does.",
        params: Params,
        response: { 200: Type.Object({ investorUserId: Type.String(), checks: Type.Array(KycCheck) }, { title: 'KycChecks' }) },
      },
    },
    async (request) => kycChecksOf(ctx, principalOf(request), request.params.investorUserId),
  );

  // The webhook reads the body's bytes, which the signature covers: its scope's JSON parser keeps them.
  app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      try {
        const text = decodeUtf8Body(body as Buffer);
        rawBodies.set(request, text);
        done(null, parseStrictJson(text));
      } catch (err) {
        done(err as Error, undefined);
      }
    });
    (scope as unknown as Api).post(
      '/kyc-provider/webhook',
      {
        config: { public: true },
        schema: {
          tags,
          operationId: 'createKycProviderResult',
          summary: 'The KYC provider’s result for a check, signed with the shared secret (Standard Webhooks)',
          description:
            'No token: the `webhook-signature` over `webhook-id.webhook-timestamp.body` with KYC_WEBHOOK_SECRET authenticates it, and a timestamp more than ' +
            'KYC_WEBHOOK_TOLERANCE (5 min) away is refused (401). An unknown check: 404. The same result again: 200 with `duplicate: true`, nothing changes. ' +
            'Another result for a decided check, or a webhook-id reused for another result: 409, nothing changes.',
          headers: Type.Object({
            'webhook-id': Type.Optional(Type.String({ maxLength: 200, description: 'the message’s id; the same for each retry of one message' })),
            'webhook-timestamp': Type.Optional(Type.String({ maxLength: 20, description: 'seconds since 1970-01-01T00:00:00Z, when this attempt was signed' })),
            'webhook-signature': Type.Optional(
              Type.String({ maxLength: 2000, description: '`v1,` + base64 HMAC-SHA256; several, space-separated, while a secret is rotated' }),
            ),
          }),
          body: ResultBody,
          response: {
            200: Type.Object(
              {
                checkId: Type.String({ format: 'uuid' }),
                state: Type.String({ enum: [...kycCheckStates] }),
                duplicate: Type.Boolean({ description: 'true: this result was already recorded, nothing changed' }),
              },
              { title: 'KycResultReceived' },
            ),
            ...webhookProblems,
          },
        },
      },
      async (request) => receiveKycResult(ctx, ctx.config.kycProvider, signedMessage(request), request.body),
    );
  });
}
