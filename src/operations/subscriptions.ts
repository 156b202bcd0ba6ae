// Subscription transactions (endpoint 10). Contract of createSubscription:
// - input amounts are exact decimals (converted from JSON numbers at the HTTP edge);
// - settlement before invoice → 422 `unprocessable` (field settlement_date);
// - total not equal to units × price_per_unit to the cent → 422 with `expectedTotal` (a string);
// - unknown asset or investor → 404;
// - otherwise one row and its outbox entry, written in one statement, returned as stored (with the
//   asset's currency).
import { AppError, notFound, unprocessable } from '../domain/errors.ts';
import { checkTotal } from '../domain/money.ts';
import type { Principal } from '../domain/principal.ts';
import { settlesBeforeInvoice, type Subscription, type SubscriptionInput } from '../domain/subscription.ts';
import { sqlState, SQLSTATE } from '../store/errors.ts';
import * as subscriptions from '../store/subscriptions.ts';
import { bookingAuditEntry } from './audit-entries.ts';
import { inTransaction, type Deps } from './deps.ts';

export async function createSubscription(deps: Deps, principal: Principal, input: SubscriptionInput): Promise<Subscription> {
  if (settlesBeforeInvoice(input)) {
    throw new AppError('unprocessable', `settlement_date ${input.settlementDate} is before invoice_date ${input.invoiceDate}`, {
      errors: [{ in: 'body', field: 'settlement_date', detail: 'must not be before invoice_date' }],
    });
  }
  const total = checkTotal(input.total, input.units, input.pricePerUnit);
  if (!total.ok) {
    throw unprocessable(
      `total ${input.total} is not units × price_per_unit (${input.units} × ${input.pricePerUnit} = ${total.product}) to the cent; expected ${total.expected}`,
      { expectedTotal: total.expected, exactProduct: total.product, errors: [{ in: 'body', field: 'total', detail: `must be ${total.expected}` }] },
    );
  }
  return inTransaction(deps, async (tx) => {
    const id = tx.newId();
    let result: Awaited<ReturnType<typeof subscriptions.insertSubscriptionWithEntry>>;
    try {
      // The booking, read back as stored, and its outbox entry (they commit together) in one
      // statement. A subscription names no deal: the entry goes to the platform feed
      // (GET /webhooks/events); amounts stay exact decimal strings.
      result = await subscriptions.insertSubscriptionWithEntry(
        tx.db,
        { ...input, id, createdByUserId: principal.userId, createdAt: tx.clock() },
        { id: tx.newId(), type: 'subscription.created', occurredAt: tx.clock(), dealId: null, stepIds: [] },
        bookingAuditEntry(principal, id, input, tx.clock()),
      );
    } catch (err) {
      // The asset or investor went away between the statement's snapshot and its insert (no API deletes them today).
      if (sqlState(err) === SQLSTATE.foreignKeyViolation) throw notFound('asset or investor', `${input.assetId}/${input.investorId}`);
      throw err;
    }
    if (!result.assetFound) throw notFound('asset', String(input.assetId));
    if (!result.investorFound) throw notFound('investor', input.investorId);
    if (!result.stored) throw new Error(`subscription ${id} vanished inside its own statement`);
    return result.stored;
  });
}

export async function getSubscription(deps: Deps, id: string): Promise<Subscription> {
  const subscription = await subscriptions.findSubscription(deps.db, id);
  if (!subscription) throw notFound('subscription', id);
  return subscription;
}

export async function listSubscriptions(deps: Deps, filter: subscriptions.SubscriptionFilter, page: { limit: number; page: number }) {
  const { items, total } = await subscriptions.listSubscriptions(deps.db, filter, { limit: page.limit, offset: (page.page - 1) * page.limit });
  return { output: items, page: page.page, totalPages: Math.ceil(total / page.limit) };
}
