// Subscription transactions (createSubscription). Contract of createSubscription:
// - input amounts are exact decimals (converted from JSON numbers at the HTTP edge);
// - settlement before invoice → 422 `unprocessable` (field settlement_date);
// - total not equal to units × price_per_unit to the cent → 422 with `expectedTotal` (a string);
// - unknown asset or investor → 404;
// - otherwise one row, its outbox entry and its audit entry, written in one statement (one round
//   trip: the statement is its own transaction), returned as stored (with the asset's currency);
// - with an Idempotency-Key, the same statement stores the key and the response
//   (createSubscriptionKeepingResponse).
import { AppError, notFound, unprocessable } from '../domain/errors.ts';
import { currenciesTooCoarseFor, decimalsOf, minorUnitsProblem } from '../domain/currency.ts';
import { checkTotal } from '../domain/money.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import { settlesBeforeInvoice, type Subscription, type SubscriptionInput } from '../domain/subscription.ts';
import type { DoneKey } from '../store/idempotency.ts';
import * as subscriptions from '../store/subscriptions.ts';
import { bookingAuditEntry } from './audit-entries.ts';
import type { Deps } from './deps.ts';
import { runInOneStatement } from './idempotency.ts';
import { type Answer, answered, encodedAround, type WriteRequest } from './pipeline.ts';

/**
 * The booking as a write (POST /portfolio/transactions/subscriptions): one statement, which with
 * an Idempotency-Key also stores the key and the encoded 201 (runInOneStatement).
 */
export async function bookSubscription(deps: Deps, request: WriteRequest, input: SubscriptionInput): Promise<Answer> {
  const { principal, key } = request;
  if (!key) return answered(request, 201, await createSubscription(deps, principal, input));
  const { ttlMs, ...ref } = key;
  return runInOneStatement(deps, ref, { ttlMs, status: 201 }, (done) =>
    createSubscriptionKeepingResponse(deps, principal, input, { key: done, bodyAround: (s) => encodedAround(request.encode, 201, { ...s }, 'currency') }),
  );
}

export async function createSubscription(deps: Deps, principal: Principal, input: SubscriptionInput): Promise<Subscription> {
  return (await book(deps, principal, input, undefined)).subscription;
}

/**
 * The response a booking with an Idempotency-Key stores with it, in the booking's statement: the
 * key, and the body as sent cut around the currency (`bodyAround` gets the subscription as it will
 * be stored, its currency still ''), which the statement reads from the asset.
 */
export interface KeptResponse {
  key: DoneKey;
  bodyAround: (subscription: Subscription) => { before: string; after: string };
}

/**
 * createSubscription that also stores the key and the response (operations/idempotency.ts,
 * runInOneStatement): the body stored, or undefined when a live row held the key and nothing was
 * written. An asset or investor that vanished since an earlier booking with the key answers 404,
 * not that booking's replay (no API deletes either).
 */
export async function createSubscriptionKeepingResponse(
  deps: Deps,
  principal: Principal,
  input: SubscriptionInput,
  kept: KeptResponse,
): Promise<string | undefined> {
  return (await book(deps, principal, input, kept)).body;
}

async function book(deps: Deps, principal: Principal, input: SubscriptionInput, kept: KeptResponse | undefined) {
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
  const id = deps.newId();
  const now = deps.clock();
  // The booking as it will be stored, built here rather than read back: `numeric` without a
  // declared precision keeps the digits written, and dates and texts come back as sent.
  const subscription: Subscription = { ...input, id, currency: '', createdByUserId: actorOf(principal), createdAt: now.toISOString() };
  const response = kept && { key: kept.key, ...kept.bodyAround(subscription) };
  // One statement, so one transaction of its own (or a part of the caller's, as when a completing
  // move books): the booking, its outbox entry to the platform feed (GET /webhooks/events; a
  // subscription names no deal) and its audit entry, and with a key the stored response.
  const result = await subscriptions.insertSubscriptionWithEntry(
    deps.db,
    { ...input, id, createdByUserId: actorOf(principal), createdAt: now },
    { id: deps.newId(), type: 'subscription.created', occurredAt: now, dealId: null, stepIds: [] },
    bookingAuditEntry(principal, id, input, now),
    response,
    currenciesTooCoarseFor(Math.max(decimalsOf(input.total), decimalsOf(input.fee))),
  );
  if (!result.assetFound) throw notFound('asset', String(input.assetId));
  if (!result.investorFound) throw notFound('investor', input.investorId);
  if (!result.currencyFits) {
    // The asset's currency has fewer minor units than total or fee carry: nothing was written.
    const errors = (['total', 'fee'] as const).flatMap((field) => {
      const problem = minorUnitsProblem(input[field], result.currency!);
      return problem ? [{ in: 'body' as const, field, detail: problem }] : [];
    });
    throw unprocessable(`The amounts do not fit the asset's currency ${result.currency}: ${errors.map((e) => `${e.field} ${e.detail}`).join('; ')}`, {
      errors,
    });
  }
  if (!result.written && !kept) throw new Error(`subscription ${id} was not written by its own statement`);
  return { subscription: { ...subscription, currency: result.currency! }, body: result.body };
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
