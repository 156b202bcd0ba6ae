// Read models for the back-office app, admin only: the deals list, a deal's board
// summary, its pages of cards and one investor's summary. Each is one or two read queries.
import { notFound } from '../domain/errors.ts';
import * as backOffice from '../store/back-office.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';

export type { BoardCard, BoardColumn, DealSummary, InvestorSummary, Money } from '../store/back-office.ts';

export async function listDeals(deps: Deps) {
  return backOffice.listDealSummaries(forReading(deps).db);
}

export async function getBoard(deps: Deps, dealId: string, query: string | undefined) {
  const board = await backOffice.boardColumns(forReading(deps).db, dealId, query || undefined);
  if (!board) throw notFound('deal', dealId);
  return { dealId, ...board };
}

export async function getBoardCards(deps: Deps, dealId: string, options: { stepId?: string | undefined; query?: string | undefined; limit: number; page: number }) {
  const { db } = forReading(deps);
  if (options.stepId !== undefined) {
    const step = await db.selectFrom('workflow_steps').select('deal_id').where('id', '=', options.stepId).executeTakeFirst();
    if (!step || step.deal_id !== dealId) throw notFound('step', options.stepId);
  }
  const result = await backOffice.boardCards(db, dealId, {
    stepId: options.stepId,
    query: options.query || undefined,
    limit: options.limit,
    offset: (options.page - 1) * options.limit,
  });
  if (!result) throw notFound('deal', dealId);
  return { output: result.cards, page: options.page, totalPages: Math.ceil(result.total / options.limit), total: result.total };
}

export async function getInvestorSummary(deps: Deps, dealId: string, investorUserId: string) {
  const { db } = forReading(deps);
  const summary = await backOffice.findInvestorSummary(db, dealId, investorUserId);
  if (!summary) {
    const deal = await db.selectFrom('deals').select('id').where('id', '=', dealId).executeTakeFirst();
    throw deal ? notFound('journey of investor', investorUserId) : notFound('deal', dealId);
  }
  return summary;
}
