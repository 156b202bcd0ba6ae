// Management API for the investor directory: PUT (admin) creates (201) or updates (200); GET reads
// (admin, or the investor themself).
import { Type } from 'typebox';
import { getInvestor, putInvestor } from '../../operations/investors.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { ExternalId } from '../schemas/common.ts';
import { Investor } from '../../wire/investor.ts';
import { toInput } from '../../operations/import-readers/investor-rows.ts';
import { InvestorBody as InvestorBodySchema } from '../../wire/investor.ts';
import { sendDigested } from '../etag.ts';
import { CONDITIONAL, ConditionalHeaders, NotModified } from '../schemas/conditional.ts';
import { type MailLanguage, mailLanguages } from '../../domain/mail.ts';
import { getInvestorLanguage, setInvestorLanguage } from '../../operations/investor-language.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { StrictObject } from '../schemas/common.ts';
import { answer, writeOf } from '../writes.ts';

const Params = Type.Object({ investorUserId: ExternalId });
const Language = Type.Unsafe<MailLanguage>(
  Type.String({ enum: [...mailLanguages], description: 'en, de or fr: the e-mails are written in it where a translation exists, else in English' }),
);
const InvestorLanguage = Type.Object(
  { investorUserId: Type.String(), language: Language, chosen: Type.Boolean({ description: 'false: never chosen, English by default' }) },
  { title: 'InvestorLanguage' },
);
const LANGUAGE_ACCESS = "Staff, or the investor themself (in the portal); another investor's id answers 404, as an unknown one does.";

export function investorRoutes(app: Api, ctx: AppContext) {
  app.put(
    '/investors/:investorUserId',
    {
      schema: {
        tags: ['management'],
        summary: "Create or update an investor's directory entry",
        params: Params,
        body: InvestorBodySchema,
        response: { 200: Investor, 201: Investor },
      },
    },
    async (request, reply) => {
      const { investor, created } = await putInvestor(ctx, request.params.investorUserId, toInput(request.body));
      return reply.code(created ? 201 : 200).send(investor);
    },
  );

  app.get(
    '/investors/:investorUserId',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['management'],
        summary: "Read an investor's directory entry",
        description: CONDITIONAL,
        params: Params,
        headers: ConditionalHeaders,
        response: { 200: Investor, 304: NotModified },
      },
    },
    async (request, reply) => sendDigested(request, reply, 'i', await getInvestor(ctx, principalOf(request), request.params.investorUserId)),
  );

  app.get(
    '/investors/:investorUserId/language',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['management'],
        operationId: 'getInvestorLanguage',
        summary: "The language of an investor's e-mails",
        description: LANGUAGE_ACCESS,
        params: Params,
        response: { 200: InvestorLanguage },
      },
    },
    async (request) => getInvestorLanguage(ctx, principalOf(request), request.params.investorUserId),
  );

  app.put(
    '/investors/:investorUserId/language',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['management'],
        operationId: 'setInvestorLanguage',
        summary: "Choose the language of an investor's e-mails",
        description: `${LANGUAGE_ACCESS} Staff need the operator role. Each change is audited as investor.language-changed; the same language again changes nothing. An erased investor: 409.`,
        params: Params,
        headers: IdempotencyHeaders,
        body: StrictObject({ language: Language }),
        response: { 200: InvestorLanguage },
      },
    },
    async (request, reply) => answer(reply, await setInvestorLanguage(ctx, writeOf(ctx, request), request.params.investorUserId, request.body.language)),
  );
}
