// The outbox writers of reconciliation, called inside the transaction that decides a line (as
// outbox-events.ts's writers are): `payment.matched` joins the deal's feed and fires the triggers
// of the payment step that list it; `payment.queued` joins the deal's feed when the line names a
// deal, else the platform stream. A decision that writes one passes the entry to recordDecision,
// which writes both in one statement (one round trip less per line, under the journey lock).
import type { PaymentLine } from '../store/payment-lines.ts';
import { appendOutbox, type OutboxEntryInput } from '../store/outbox.ts';
import type { Deps } from './deps.ts';

/** The `payment.matched` entry, for recordPaymentMatched or a decision that writes it (store/payment-decisions.ts). */
export function paymentMatchedEntry(
  tx: Deps,
  input: { line: PaymentLine; dealId: string; investorUserId: string; paymentStepId: string; eventId: string; received: string },
): OutboxEntryInput {
  return {
    id: tx.newId(),
    type: 'payment.matched',
    occurredAt: tx.clock(),
    dealId: input.dealId,
    stepIds: [input.paymentStepId],
    data: {
      dealId: input.dealId,
      investorUserId: input.investorUserId,
      lineId: input.line.id,
      eventId: input.eventId,
      received: input.received,
      line: input.line,
    },
  };
}

/** The `payment.queued` entry, for recordPaymentQueued or a decision that writes it. */
export function paymentQueuedEntry(tx: Deps, input: { line: PaymentLine }): OutboxEntryInput {
  return {
    id: tx.newId(),
    type: 'payment.queued',
    occurredAt: tx.clock(),
    dealId: input.line.dealId,
    stepIds: [],
    data: { dealId: input.line.dealId, investorUserId: input.line.investorUserId, lineId: input.line.id, outcome: input.line.outcome, line: input.line },
  };
}

export async function recordPaymentMatched(tx: Deps, input: Parameters<typeof paymentMatchedEntry>[1]): Promise<void> {
  await appendOutbox(tx.db, paymentMatchedEntry(tx, input));
}

export async function recordPaymentQueued(tx: Deps, input: { line: PaymentLine }): Promise<void> {
  await appendOutbox(tx.db, paymentQueuedEntry(tx, input));
}
