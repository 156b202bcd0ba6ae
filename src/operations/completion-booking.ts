// Booking on completion: when an investor reaches a `complete` step of a deal that names an asset
// and a price per unit (deal payment settings), their subscription transaction is booked in the
// move's own transaction, through createSubscription (same rules, same outbox event). At most one
// booking per journey, ever: journey_bookings' primary key is claimed first, so a move back and
// forward again books nothing new. A booking that cannot be made exactly (no commitment, units
// that do not divide, no matched payment, an unknown asset) is queued there for staff instead, and
// the move still happens.
import { AppError } from '../domain/errors.ts';
import { settlementDate, unitsFor } from '../domain/completion-booking.ts';
import type { Principal } from '../domain/principal.ts';
import type { Step } from '../domain/workflow.ts';
import { findAsset } from '../store/assets.ts';
import { findDeal } from '../store/deals.ts';
import { claimJourneyBooking, setJourneyBooking } from '../store/journey-bookings.ts';
import { findPaymentSettings } from '../store/payment-settings.ts';
import { latestPaymentValueDate, lockJourneyPaymentFacts } from '../store/payment-facts.ts';
import type { Deps } from './deps.ts';
import { createSubscription } from './subscriptions.ts';

/** Called by moveToStep after it wrote the event, in its transaction (the journey is locked). */
export async function bookOnCompletion(
  tx: Deps,
  principal: Principal,
  move: { dealId: string; investorUserId: string; step: Step | undefined; eventId: string; at: Date },
): Promise<void> {
  if (move.step?.type !== 'complete') return;
  const settings = (await findPaymentSettings(tx.db, [move.dealId])).get(move.dealId);
  if (!settings || settings.assetId === null || settings.pricePerUnit === null) return;
  const key = { dealId: move.dealId, investorUserId: move.investorUserId };
  if (!(await claimJourneyBooking(tx.db, { ...key, eventId: move.eventId, at: move.at }))) return;
  const queue = (reason: string) => setJourneyBooking(tx.db, key, { status: 'queued', reason });

  const facts = await lockJourneyPaymentFacts(tx.db, key, { commitment: settings.commitmentFieldKey, currency: settings.currencyFieldKey });
  if (!facts?.commitment) return queue(`no ${settings.commitmentFieldKey} captured`);
  // Every amount of a subscription is in its asset's currency: a commitment in another is not booked.
  const asset = await findAsset(tx.db, settings.assetId);
  const currency = facts.commitmentCurrency ?? (await findDeal(tx.db, move.dealId))?.currency ?? null;
  if (asset && currency !== null && currency !== asset.currency) return queue(`the commitment is in ${currency}, the asset in ${asset.currency}`);
  const units = unitsFor(facts.commitment, settings.pricePerUnit, settings.unitDecimals);
  if (!units.ok) return queue(units.reason);
  const valueDate = await latestPaymentValueDate(tx.db, move.dealId, move.investorUserId);
  if (!valueDate) return queue('no matched payment on file: its value date is the settlement date');
  const invoiceDate = move.at.toISOString().slice(0, 10);
  try {
    const subscription = await createSubscription(tx, principal, {
      assetId: settings.assetId,
      investorId: move.investorUserId,
      units: units.units,
      pricePerUnit: settings.pricePerUnit,
      total: units.total,
      fee: '0',
      fundingSource: 'bank_transfer',
      invoiceDate,
      settlementDate: settlementDate(invoiceDate, valueDate),
      source: 'dealflow',
      sourceId: `${move.dealId}/${move.investorUserId}`,
      description: `Booked on completion of deal ${move.dealId}; payment value date ${valueDate}`,
    });
    await setJourneyBooking(tx.db, key, { status: 'booked', subscriptionId: subscription.id });
  } catch (err) {
    // Refusals are raised before anything is written, so the move's transaction is intact.
    if (!(err instanceof AppError)) throw err;
    await queue(`the subscription was refused: ${err.message}`);
  }
}
