// The webhook body (components.schemas.WebhookDelivery) as the OpenAPI document shows it: the
// feeds' WebhookEvent as one variant per event type, told apart by `type` (a discriminator), each with the members of its `data`
// (docs/reference/webhooks-and-feed.md), so that a typed client narrows `data` by comparing `type`.
// The service serializes `data` as written (its route schema keeps it open); the document only
// describes it. A variant lists the members every entry of its type has; more may come (additive).
import type { OutboxEventType } from '../../domain/outbox-event.ts';

type Json = Record<string, any>;

const str = { type: 'string' };
const nullableStr = { anyOf: [{ type: 'string' }, { type: 'null' }] };
const object = (description: string) => ({ type: 'object', description });
const data = (properties: Json, required = Object.keys(properties)) => ({ type: 'object', required, properties });

const editRequestData = data(
  {
    dealId: str,
    investorUserId: str,
    stepId: str,
    editRequest: object('the edit request as GET …/edit-requests shows it'),
    decidedByUserId: { ...str, description: 'approved and rejected only' },
  },
  ['dealId', 'investorUserId', 'stepId', 'editRequest'],
);

const approvalData = data({
  dealId: str,
  proposal: object('the proposal as GET /approvals/{proposalId} shows it (approval.decided: with its decision)'),
});

const dataOf: Record<OutboxEventType, Json> = {
  'journey.step-entered': data({
    dealId: str,
    investorUserId: str,
    fromStepId: nullableStr,
    toStepId: str,
    event: {
      type: 'object',
      description: 'the new event, as in the journey of getInvestorJourney',
      required: ['id', 'fromStepId', 'toStepId', 'data', 'createdByUserId', 'createdAt'],
      properties: {
        id: str,
        fromStepId: nullableStr,
        toStepId: str,
        data: { type: 'object' },
        createdByUserId: str,
        createdAt: { type: 'string', format: 'date-time' },
      },
    },
  }),
  'event.edited': data({
    dealId: str,
    investorUserId: str,
    eventId: str,
    stepId: str,
    oldData: { type: 'object' },
    newData: { type: 'object' },
    editedByUserId: str,
    editedAt: { type: 'string', format: 'date-time' },
  }),
  'edit-request.created': editRequestData,
  'edit-request.approved': editRequestData,
  'edit-request.rejected': editRequestData,
  'subscription.created': data({ subscription: object('the subscription transaction, amounts as exact decimal strings') }),
  'payment.matched': data({
    dealId: str,
    investorUserId: str,
    lineId: str,
    eventId: { ...str, description: 'the move it made' },
    received: { ...str, description: 'all received for the commitment so far, a decimal string' },
    line: object('the statement line (GET /payments/lines/{lineId})'),
  }),
  'payment.queued': data({
    dealId: nullableStr,
    investorUserId: nullableStr,
    lineId: str,
    outcome: { ...str, description: 'why it waits (payments reference)' },
    line: object('the statement line (GET /payments/lines/{lineId})'),
  }),
  'approval.proposed': approvalData,
  'approval.decided': approvalData,
  'kyc-check.decided': data({
    checkId: str,
    investorUserId: str,
    dealId: { ...nullableStr, description: 'the deal the check was started for, if any' },
    outcome: { type: 'string', enum: ['clear', 'refer', 'failed', 'expired'] },
    level: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'the level reached: clear only' },
    kycCheckLevel: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: "the investor's KYC level after the result" },
  }),
};

/** `schema` (the route's WebhookEvent, `data` open) as a union of one variant per type. */
export function webhookEventUnion(schema: Json): Json {
  const { title: _title, description, ...common } = schema;
  const variants = Object.entries(dataOf).map(([type, dataSchema]) => {
    const name = `WebhookEvent_${type.replace(/[^a-z]+(.)/g, (_, c: string) => c.toUpperCase()).replace(/^./, (c) => c.toUpperCase())}`;
    return [
      name,
      {
        ...common,
        title: name,
        description: `A ${type} event`,
        properties: { ...common.properties, type: { type: 'string', enum: [type] }, data: dataSchema },
      },
    ] as const;
  });
  return {
    variants: Object.fromEntries(variants),
    union: {
      title: 'WebhookDelivery',
      description: `${description}, by type: \`type\` tells the variant, and with it the members of \`data\``,
      oneOf: variants.map(([name]) => ({ $ref: `#/components/schemas/${name}` })),
      discriminator: {
        propertyName: 'type',
        mapping: Object.fromEntries(variants.map(([name], i) => [Object.keys(dataOf)[i]!, `#/components/schemas/${name}`])),
      },
    },
  };
}
