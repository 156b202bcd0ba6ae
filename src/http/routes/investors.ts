// Management API for the investor directory: PUT (admin) creates (201) or updates (200); GET reads
// (admin, or the investor themself).
import { Type } from 'typebox';
import type { InvestorInput } from '../../operations/investors.ts';
import { getInvestor, putInvestor } from '../../operations/investors.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { ExternalId } from '../schemas/common.ts';
import { Investor, type InvestorBody } from '../schemas/investor.ts';
import { InvestorBody as InvestorBodySchema } from '../schemas/investor.ts';

const Params = Type.Object({ investorUserId: ExternalId });

/** Omitted nullable members are stored as null, so every read has the interface's full shape. */
export function toInput(body: InvestorBody): InvestorInput {
  const { contact } = body;
  return {
    remoteId: body.remoteId,
    dataSource: body.dataSource,
    teamUserId: body.teamUserId ?? null,
    kycCheckLevel: body.kycCheckLevel ?? null,
    contact: {
      guid: contact.guid,
      externalId: contact.externalId ?? null,
      userType: contact.userType,
      status: contact.status,
      contact: {
        forename: contact.contact.forename,
        middleNames: contact.contact.middleNames ?? null,
        surname: contact.contact.surname,
        title: contact.contact.title ?? null,
        nickname: contact.contact.nickname ?? null,
        dateOfBirth: contact.contact.dateOfBirth ?? null,
        email: contact.contact.email ?? null,
      },
      username: contact.username,
      profilePhotoFileKey: contact.profilePhotoFileKey ?? null,
      name: contact.name,
      classifications: contact.classifications.map((c) => ({
        investorClassId: c.investorClassId,
        organisation: c.organisation ?? null,
        investorClass: c.investorClass,
        name: c.name,
      })),
      fullName: contact.fullName,
      tfaEnabled: contact.tfaEnabled,
      compliance: contact.compliance,
    },
  };
}

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
      schema: { tags: ['management'], summary: "Read an investor's directory entry", params: Params, response: { 200: Investor } },
    },
    async (request) => getInvestor(ctx, principalOf(request), request.params.investorUserId),
  );
}
