// The CSV exports: what each list holds, streamed from store/exports.ts. Each checks what the JSON
// list checks (404 unknown deal) before the first row, so a refusal is a problem document, never a
// truncated file. Like the JSON lists they mirror, they read through forReading (a replica recent
// enough for the request's consistency token, else the primary) and apply the same filters.
import { canonicalAmount } from '../domain/amount-text.ts';
import { isCurrencyCode } from '../domain/currency.ts';
import { notFound } from '../domain/errors.ts';
import { findDeal } from '../store/deals.ts';
import * as exports from '../store/exports.ts';
import type { SubscriptionFilter } from '../store/subscriptions.ts';
import type { Deps } from './deps.ts';
import { unknownCursor } from './list-deal-events.ts';
import { forReading } from './reads.ts';
import { loadWorkflow } from './workflows.ts';

async function requireDeal(deps: Deps, dealId: string) {
  const deal = await findDeal(deps.db, dealId);
  if (!deal) throw notFound('deal', dealId);
  return deal;
}

/**
 * all-investor-workflows: one row per investor, and the field keys of the deal's workflow in step
 * order. Amount fields are written in one form (domain/amount-text.ts), in the currency the row
 * captured (its first currency field holding a code), else the deal's.
 */
export async function exportInvestorJourneys(deps: Deps, dealId: string, query?: string | undefined) {
  const reading = forReading(deps);
  const deal = await requireDeal(reading, dealId);
  const workflow = (await loadWorkflow(deps, dealId))?.workflow;
  const fields = (workflow?.steps ?? []).flatMap((s) => s.stepFields);
  const fieldKeys = [...new Set(fields.map((f) => f.fieldKey))];
  const amountKeys = [...new Set(fields.filter((f) => f.kind === 'amount').map((f) => f.fieldKey))];
  const currencyKeys = [...new Set(fields.filter((f) => f.kind === 'currency').map((f) => f.fieldKey))];
  const pages = exports.exportJourneys(reading.db, dealId, query?.trim() || undefined);
  async function* rows() {
    for await (const page of pages) {
      yield page.map((row) => {
        if (!amountKeys.some((k) => row.captured[k] !== undefined)) return row;
        const currency = currencyKeys.map((k) => row.captured[k]).find((c) => c !== undefined && isCurrencyCode(c)) ?? deal!.currency;
        const captured = { ...row.captured };
        for (const k of amountKeys) if (captured[k] !== undefined) captured[k] = canonicalAmount(captured[k], currency);
        return { ...row, captured };
      });
    }
  }
  return { fieldKeys, rows: rows() };
}

export async function exportPaymentReferences(deps: Deps, dealId: string) {
  const reading = forReading(deps);
  await requireDeal(reading, dealId);
  return exports.exportPaymentReferences(reading.db, dealId);
}

export const exportActiveInvestors = (deps: Deps, nameOrEmail?: string | null | undefined) =>
  exports.exportActiveInvestors(forReading(deps).db, nameOrEmail?.trim() || undefined);

export const exportSubscriptions = (deps: Deps, filter: SubscriptionFilter) => exports.exportSubscriptions(forReading(deps).db, filter);

export async function exportDealEvents(deps: Deps, dealId: string, after: number) {
  const reading = forReading(deps);
  await requireDeal(reading, dealId);
  const rows = await exports.exportDealFeed(reading.db, dealId, after);
  if (!rows) throw unknownCursor(after, `GET /deals/deal/${dealId}/events?after=0`);
  return rows;
}
