// The CSV side of the lists (Accept: text/csv): each route hands over to one of these, which sends
// the same rows as its JSON list, with the same filters, all of them (no paging), streamed.
import type { FastifyReply } from 'fastify';
import * as exports from '../operations/exports.ts';
import type { Deps } from '../operations/deps.ts';
import type { SubscriptionFilter } from '../domain/subscription.ts';
import { type Cell, sendCsvPages } from './csv.ts';
import { INVESTOR_COLUMNS, investorCells } from '../operations/import-readers/investor-rows.ts';

/** The store's pages of rows as pages of cells. */
async function* mapRows<T>(pages: AsyncIterable<T[]>, cells: (row: T) => Cell[]): AsyncGenerator<Cell[][]> {
  for await (const page of pages) yield page.map(cells);
}

/** One row per investor: where they stand, since when, their reference, every captured field. */
export async function sendJourneysCsv(deps: Deps, reply: FastifyReply, dealId: string, query: string | undefined) {
  const { fieldKeys, rows } = await exports.exportInvestorJourneys(deps, dealId, query);
  const header = ['investorUserId', 'fullName', 'email', 'currentStepId', 'movedAt', 'paymentReference', ...fieldKeys];
  return sendCsvPages(
    reply,
    `${dealId}-investor-workflows.csv`,
    header,
    mapRows(rows, (r) => [
      r.investorUserId,
      r.fullName,
      r.email,
      r.currentStepId,
      r.movedAt.toISOString(),
      r.paymentReference,
      ...fieldKeys.map((k) => r.captured[k]),
    ]),
  );
}

export async function sendPaymentReferencesCsv(deps: Deps, reply: FastifyReply, dealId: string) {
  const rows = await exports.exportPaymentReferences(deps, dealId);
  return sendCsvPages(
    reply,
    `${dealId}-payment-references.csv`,
    ['investorUserId', 'paymentReference'],
    mapRows(rows, (r) => [r.investorUserId, r.paymentReference]),
  );
}

/** The investor columns of the import (so the file reads back), then the deal counts. */
export function sendActiveInvestorsCsv(deps: Deps, reply: FastifyReply, nameOrEmail: string | null | undefined) {
  const header = [...INVESTOR_COLUMNS, 'dealsCompletedCount', 'dealsInProgressCount', 'dealsTotal'];
  return sendCsvPages(
    reply,
    'active-investors.csv',
    header,
    mapRows(exports.exportActiveInvestors(deps, nameOrEmail), (r) => [
      ...investorCells(r.investor),
      r.dealsCompletedCount,
      r.dealsInProgressCount,
      r.dealsTotal,
    ]),
  );
}

export const SUBSCRIPTION_COLUMNS = [
  'id',
  'asset_id',
  'investor_id',
  'units',
  'price_per_unit',
  'total',
  'fee',
  'currency',
  'funding_source',
  'invoice_date',
  'settlement_date',
  'source',
  'source_id',
  'description',
  'created_by_user_id',
  'created_at',
] as const;

/** Amounts exactly as stored (decimal text), never through a binary float. */
export function sendSubscriptionsCsv(deps: Deps, reply: FastifyReply, filter: SubscriptionFilter) {
  return sendCsvPages(
    reply,
    'subscriptions.csv',
    SUBSCRIPTION_COLUMNS,
    mapRows(exports.exportSubscriptions(deps, filter), (r) => SUBSCRIPTION_COLUMNS.map((c) => (c === 'created_at' ? r.created_at.toISOString() : r[c]))),
  );
}

/** The feed: one row per entry; `data` is the entry's JSON payload in one cell. */
export async function sendDealEventsCsv(deps: Deps, reply: FastifyReply, dealId: string, after: number) {
  const rows = await exports.exportDealEvents(deps, dealId, after);
  return sendCsvPages(
    reply,
    `${dealId}-events.csv`,
    ['sequence', 'id', 'type', 'timestamp', 'dealId', 'data'],
    mapRows(rows, (e) => [e.sequence, e.id, e.type, e.timestamp, e.dealId, JSON.stringify(e.data)]),
  );
}
