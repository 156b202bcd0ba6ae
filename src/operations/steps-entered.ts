// What entering a step sets off, in the move's transaction: a complete step books the subscription
// (when the deal names an asset, completion-booking.ts), and an investor with a commitment still to
// pay is mailed how to pay (once per amount and bank account, mail-outbox.ts).
import type { Principal } from '../domain/principal.ts';
import type { Step } from '../domain/workflow.ts';
import { findPaymentSettings } from '../store/payment-settings.ts';
import { bookOnCompletion } from './completion-booking.ts';
import type { Deps } from './deps.ts';
import { enqueuePaymentInstructions } from './mail-outbox.ts';

export async function afterStepsEntered(
  tx: Deps,
  dealId: string,
  entered: readonly { investorUserId: string; step: Step | undefined; eventId: string; by: Principal; at: Date }[],
): Promise<void> {
  if (entered.length === 0) return;
  // Without a bank account there is nothing to tell how to pay: one look per batch, not per move.
  const payable = (await findPaymentSettings(tx.db, [dealId])).get(dealId)?.iban != null;
  for (const e of entered) {
    await bookOnCompletion(tx, e.by, { dealId, investorUserId: e.investorUserId, step: e.step, eventId: e.eventId, at: e.at });
    if (payable) await enqueuePaymentInstructions(tx, dealId, e.investorUserId);
  }
}
