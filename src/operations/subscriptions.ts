// Subscription transactions (endpoint 10). Contract of createSubscription:
// - input amounts are exact decimals (converted from JSON numbers at the HTTP edge);
// - settlement before invoice → 422 `unprocessable` (field settlement_date);
// - total not equal to units × price_per_unit to the cent → 422 with `expectedTotal` (a string);
// - unknown asset or investor → 404;
// - otherwise one row, written in one transaction, returned as stored (with the asset's currency).
import { AppError, notFound, unprocessable } from '../domain/errors.ts';
import { checkTotal } from '../domain/money.ts';
import type { Principal } from '../domain/principal.ts';
import { settlesBeforeInvoice, type Subscription, type SubscriptionInput } from '../domain/subscription.ts';
import * as assets from '../store/assets.ts';
import { sqlState, SQLSTATE } from '../store/errors.ts';
import { findInvestor } from '../store/investors.ts';
import * as subscriptions from '../store/subscriptions.ts';
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
    if (!(await assets.findAsset(tx.db, input.assetId))) throw notFound('asset', String(input.assetId));
    if (!(await findInvestor(tx.db, input.investorId))) throw notFound('investor', input.investorId);
    const id = tx.newId();
    try {
      await subscriptions.insertSubscription(tx.db, { ...input, id, createdByUserId: principal.userId, createdAt: tx.clock() });
    } catch (err) {
      // The asset or investor went away between the check and the insert (no API deletes them today).
      if (sqlState(err) === SQLSTATE.foreignKeyViolation) throw notFound('asset or investor', `${input.assetId}/${input.investorId}`);
      throw err;
    }
    const stored = await subscriptions.findSubscription(tx.db, id);
    if (!stored) throw new Error(`subscription ${id} vanished inside its own transaction`);
    return stored;
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
