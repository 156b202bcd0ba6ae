// listPaymentReferences: GET /deals/deal/{dealId}/all-payment-refernces (the interface's spelling), and the
// lenient lookup GET /payments/references/{reference}. Admin only.
import { Type } from 'typebox';
import { listPaymentReferences, lookupPaymentReference } from '../../operations/payment-references.ts';
import type { Api, AppContext } from '../context.ts';
import { jsonOrCsv, wantsCsv } from '../csv.ts';
import { sendPaymentReferencesCsv } from '../exports.ts';
import { ExternalId } from '../schemas/common.ts';
import { sendDigested } from '../etag.ts';
import { CONDITIONAL, ConditionalHeaders, NotModified } from '../schemas/conditional.ts';

const Reference = Type.String({ description: 'ISO 11649 RF creditor reference, compact: RF18539007547034' });

export function paymentReferenceRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/deals/deal/:dealId/all-payment-refernces',
    {
      schema: {
        tags: ['investor side'],
        summary: "Every investor's payment reference in the deal, by investor id",
        params: Type.Object({ dealId: ExternalId }),
        response: {
          200: jsonOrCsv(
            Type.Array(Type.Object({ investorUserId: Type.String(), paymentReference: Reference }, { title: 'PaymentReference' })),
            'Columns investorUserId, paymentReference.',
          ),
        },
      },
    },
    async (request, reply) =>
      wantsCsv(request) ? sendPaymentReferencesCsv(ctx, reply, request.params.dealId) : listPaymentReferences(ctx, request.params.dealId),
  );

  app.get(
    '/payments/references/:reference',
    {
      schema: {
        tags: ['investor side'],
        summary: 'Resolve a payment reference to its deal and investor (spaces and case ignored)',
        description: `400 when the reference is malformed or its check digits are wrong (mistyped); 404 when it is well-formed but unknown. ${CONDITIONAL}`,
        params: Type.Object({ reference: Type.String({ minLength: 1, maxLength: 100 }) }),
        headers: ConditionalHeaders,
        response: { 304: NotModified, 200: Type.Object({ dealId: Type.String(), investorUserId: Type.String(), paymentReference: Reference }) },
      },
    },
    async (request, reply) => sendDigested(request, reply, 'p', await lookupPaymentReference(ctx, request.params.reference)),
  );
}
