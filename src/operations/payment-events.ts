// The outbox writers of reconciliation, called inside the transaction that decides a line (as
// outbox-events.ts's writers are): `payment.matched` joins the deal's feed and fires the triggers
// of the payment step that list it; `payment.queued` joins the deal's feed when the line names a
// deal, else the platform stream.
import type { PaymentLine } from '../store/payments.ts';
import { appendOutbox } from '../store/outbox.ts';
import type { Deps } from './deps.ts';

export async function recordPaymentMatched(
  tx: Deps,
  input: { line: PaymentLine; dealId: string; investorUserId: string; paymentStepId: string; eventId: string; received: string },
): Promise<void> {
  await appendOutbox(tx.db, {
    id: tx.newId(),
    type: 'payment.matched',
    occurredAt: tx.clock(),
    dealId: input.dealId,
    stepIds: [input.paymentStepId],
    data: { dealId: input.dealId, investorUserId: input.investorUserId, lineId: input.line.id, eventId: input.eventId, received: input.received, line: input.line },
  });
}

export async function recordPaymentQueued(tx: Deps, input: { line: PaymentLine }): Promise<void> {
  await appendOutbox(tx.db, {
    id: tx.newId(),
    type: 'payment.queued',
    occurredAt: tx.clock(),
    dealId: input.line.dealId,
    stepIds: [],
    data: { dealId: input.line.dealId, investorUserId: input.line.investorUserId, lineId: input.line.id, outcome: input.line.outcome, line: input.line },
  });
}
