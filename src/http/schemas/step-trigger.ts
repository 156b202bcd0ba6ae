// Step triggers in the workflow document: what a client sends on PUT …/workflow, and
// what getWorkflowStatus returns as `workflowCustomStepTriggers` (our additive field; never the secret).
import { Type } from 'typebox';
import { MAX_TRIGGERS_PER_STEP } from '../../domain/step-trigger.ts';
import { type OutboxEventType, outboxEventTypes } from '../../domain/outbox-event.ts';
import { StrictObject } from './common.ts';

const eventsDescription = `event types that fire it: ${outboxEventTypes.join(', ')} (default: journey.step-entered)`;

/** The closed list of domain event types (domain/outbox-event.ts): the `type` of a webhook body, and what a trigger fires on. */
export const eventTypeSchema = {
  type: 'string',
  enum: [...outboxEventTypes],
  title: 'WebhookEventType',
  description: 'the domain event: one of a closed list',
};
const EventType = Type.Unsafe<OutboxEventType>(eventTypeSchema);

export const StepTriggerBody = StrictObject({
  kind: Type.Literal('webhook'),
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL without credentials' }),
  secret: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'whsec_<base64 of 24–64 bytes>: signs deliveries (Standard Webhooks). Left out: the secret already set for this step and URL is kept; none set: deliveries are unsigned.',
    }),
  ),
  events: Type.Optional(Type.Array(EventType, { maxItems: outboxEventTypes.length, description: eventsDescription })),
});

export const StepTriggersBody = Type.Array(StepTriggerBody, { maxItems: MAX_TRIGGERS_PER_STEP });

export const StepTriggerView = Type.Object({
  kind: Type.Literal('webhook'),
  url: Type.String(),
  events: Type.Array(Type.String()),
  hasSecret: Type.Boolean({ description: 'a secret is set (it is never shown)' }),
});

export const WorkflowCustomStepTriggers = Type.Optional(
  Type.Array(StepTriggerView, { description: 'Webhook triggers of the step, when it has some (staff only; an investor never sees them)' }),
);
