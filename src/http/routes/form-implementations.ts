// getInvestorFormImplementation: GET /deals/workflow/step/{stepId}/investor-form-implementation (admin, or the
// investor themself; investorUserId defaults to an investor token's own).
import { Type } from 'typebox';
import { getFormImplementation } from '../../operations/form-implementations.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { ExternalId, Timestamp } from '../schemas/common.ts';
import { sendDigested } from '../etag.ts';
import { CONDITIONAL, ConditionalHeaders, NotModified } from '../schemas/conditional.ts';

const FormImplementation = Type.Object(
  {
    id: Type.String({ description: 'the same on every call for this investor and step' }),
    stepId: Type.String(),
    investorUserId: Type.String(),
    formId: Type.String({ description: "the step's form when the implementation was created" }),
    createdAt: Timestamp,
  },
  { title: 'InvestorFormImplementation' },
);

export function formImplementationRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/deals/workflow/step/:stepId/investor-form-implementation',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['investor side'],
        summary: "Get (creating on first call) an investor's form implementation for a step with a form",
        description: `dealId, when given, must be the step's deal. investorUserId is required with an admin token and defaults to an investor token's own. ${CONDITIONAL}`,
        params: Type.Object({ stepId: ExternalId }),
        querystring: Type.Object({
          dealId: Type.Optional(ExternalId),
          investorUserId: Type.Optional(ExternalId),
        }),
        headers: ConditionalHeaders,
        response: { 200: FormImplementation, 304: NotModified },
      },
    },
    async (request, reply) => sendDigested(request, reply, 'f', await getFormImplementation(ctx, principalOf(request), request.params.stepId, request.query)),
  );
}
