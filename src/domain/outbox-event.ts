// The domain events written to the outbox: a closed list, one name per event in every
// layer (outbox rows, webhook bodies, trigger `events`, the pull feed).

export const outboxEventTypes = [
  'journey.step-entered', // an investor moved to a step (jump-to-step, an approved withdrawal)
  'event.edited', // a workflow event's data was replaced (old and new data)
  'edit-request.created',
  'edit-request.approved',
  'edit-request.rejected',
  'subscription.created',
  'payment.matched', // a statement line moved an investor to the deal's payment step
  'payment.queued', // a statement line went to the reconciliation queue for staff
  'approval.proposed', // a write was held for a second person (four-eyes)
  'approval.decided', // a held write was approved (and applied), rejected, or refused because its basis moved
  'kyc-check.decided', // a KYC provider's result for a check was recorded (clear, refer, failed, expired)
] as const;
export type OutboxEventType = (typeof outboxEventTypes)[number];

export const isOutboxEventType = (value: unknown): value is OutboxEventType => (outboxEventTypes as readonly unknown[]).includes(value);

/** Where a webhook delivery stands: due (now or later), delivered (a 2xx), or dead (schedule exhausted). */
export const deliveryStatuses = ['pending', 'delivered', 'dead'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];
