// The console's read models (admin only): the deals list, a deal's board summary, its pages of
// cards and one investor's summary; the investor directory, the inbox of pending edit requests
// across deals, people's names for the ids recorded as actors, a deal's filtered rows, and the
// check of a workflow before it is saved. Each is one or two read queries.
import { type FieldError, invalid, notFound } from '../domain/errors.ts';
import { workflowChanges } from '../domain/workflow-changes.ts';
import { type WorkflowDocument, workflowProblems } from '../domain/workflow-graph.ts';
import { findDeal } from '../store/deals.ts';
import { findWorkflow, stepIdsOfOtherDeals } from '../store/workflows.ts';
import { checkStepTriggersOfWorkflow, type WorkflowStepTriggersInput } from './step-triggers.ts';
import type { PaidState } from '../domain/console.ts';
import type { Principal } from '../domain/principal.ts';
import * as boardStore from '../store/console-board.ts';
import * as store from '../store/console.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';

export async function listDeals(deps: Deps) {
  return boardStore.listDealSummaries(forReading(deps).db);
}

export async function getBoard(deps: Deps, dealId: string, query: string | undefined) {
  const board = await boardStore.boardColumns(forReading(deps).db, dealId, query || undefined);
  if (!board) throw notFound('deal', dealId);
  return { dealId, ...board };
}

export async function getBoardCards(
  deps: Deps,
  dealId: string,
  options: { stepId?: string | undefined; query?: string | undefined; limit: number; page: number },
) {
  const { db } = forReading(deps);
  if (options.stepId !== undefined) {
    const step = await db.selectFrom('workflow_steps').select('deal_id').where('id', '=', options.stepId).executeTakeFirst();
    if (!step || step.deal_id !== dealId) throw notFound('step', options.stepId);
  }
  const result = await boardStore.boardCards(db, dealId, {
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
  const summary = await boardStore.findInvestorSummary(db, dealId, investorUserId);
  if (!summary) {
    const deal = await db.selectFrom('deals').select('id').where('id', '=', dealId).executeTakeFirst();
    throw deal ? notFound('journey of investor', investorUserId) : notFound('deal', dealId);
  }
  return summary;
}

export async function listDirectory(deps: Deps, options: { query: string | undefined; limit: number; page: number }) {
  const { total, entries } = await store.listDirectory(deps.db, {
    query: options.query || undefined,
    limit: options.limit,
    offset: (options.page - 1) * options.limit,
  });
  return { output: entries, page: options.page, totalPages: Math.ceil(total / options.limit), total };
}

export async function listPendingEditRequests(deps: Deps, options: { dealId: string | undefined; limit: number; page: number }) {
  if (options.dealId !== undefined) {
    const deal = await deps.db.selectFrom('deals').select('id').where('id', '=', options.dealId).executeTakeFirst();
    if (!deal) throw notFound('deal', options.dealId);
  }
  const { total, requests } = await store.listPendingRequests(deps.db, {
    dealId: options.dealId,
    limit: options.limit,
    offset: (options.page - 1) * options.limit,
  });
  return { output: requests, page: options.page, totalPages: Math.ceil(total / options.limit), total };
}

/**
 * Names for actor ids: staff people and API keys by their id; the caller's own JWT `name` claim for the caller's
 * id. Ids without a known name are left out (the console shows the id).
 */
export async function namePeople(deps: Deps, principal: Principal, ids: string[]) {
  const unique = [...new Set(ids)];
  if (unique.length > 100) throw invalid([{ in: 'query', field: 'ids', detail: `at most 100 ids at a time; ${unique.length} were given` }]);
  const named = new Map((await store.actorNames(deps.db, unique)).map((p) => [p.id, p.name]));
  if (principal.name && unique.includes(principal.userId) && !named.has(principal.userId)) named.set(principal.userId, principal.name);
  return unique.filter((id) => named.has(id)).map((id) => ({ id, name: named.get(id)! }));
}

const DAY = 86_400_000;

export interface RowQuery {
  stepId?: string | undefined;
  query?: string | undefined;
  minAmount?: string | undefined;
  maxAmount?: string | undefined;
  currency?: string | undefined;
  minDays?: number | undefined;
  maxDays?: number | undefined;
  minKycLevel?: number | undefined;
  classification?: string | undefined;
  pending?: boolean | undefined;
  paid?: PaidState | undefined;
  sort?: store.RowSort | undefined;
  order?: 'asc' | 'desc' | undefined;
  limit: number;
  page: number;
}

/** A deal's investors, filtered and sorted (the board's columns and the table view). */
export async function listDealRows(deps: Deps, dealId: string, q: RowQuery) {
  if (q.stepId !== undefined) {
    const step = await deps.db.selectFrom('workflow_steps').select('deal_id').where('id', '=', q.stepId).executeTakeFirst();
    if (!step || step.deal_id !== dealId) throw notFound('step', q.stepId);
  }
  // Days at the step count whole days since entering it, as the board shows them.
  const now = deps.clock().getTime();
  const result = await store.dealRows(
    deps.db,
    dealId,
    {
      stepId: q.stepId,
      query: q.query,
      minAmount: q.minAmount,
      maxAmount: q.maxAmount,
      currency: q.currency,
      enteredAtOrBefore: q.minDays !== undefined ? new Date(now - q.minDays * DAY) : undefined,
      enteredAfter: q.maxDays !== undefined ? new Date(now - (q.maxDays + 1) * DAY) : undefined,
      minKycLevel: q.minKycLevel,
      classification: q.classification,
      pending: q.pending,
      paid: q.paid,
    },
    { sort: q.sort ?? 'name', descending: q.order === 'desc', limit: q.limit, offset: (q.page - 1) * q.limit },
  );
  if (!result) throw notFound('deal', dealId);
  return { output: result.rows, page: q.page, totalPages: Math.ceil(result.total / q.limit), total: result.total, committed: result.committed };
}

/**
 * Checks a workflow document without saving it: every problem the PUT would report (each naming
 * the field it is about), step ids taken by another deal, and what the change means for the
 * investors already on the deal's current workflow.
 */
export async function checkWorkflow(deps: Deps, dealId: string, doc: WorkflowDocument, triggers: WorkflowStepTriggersInput) {
  if (!(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
  const problems: FieldError[] = [...workflowProblems(doc), ...checkStepTriggersOfWorkflow(triggers).errors];
  const taken = new Set(
    await stepIdsOfOtherDeals(
      deps.db,
      dealId,
      doc.steps.map((s) => s.id),
    ),
  );
  doc.steps.forEach((step, i) => {
    if (taken.has(step.id)) problems.push({ in: 'body', field: `steps.${i}.id`, detail: `step id "${step.id}" belongs to another deal` });
  });
  const existing = await findWorkflow(deps.db, dealId);
  const counts = await deps.db
    .selectFrom('journeys')
    .select(['current_step_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('deal_id', '=', dealId)
    .groupBy('current_step_id')
    .execute();
  const changes = workflowChanges(existing, doc, new Map(counts.map((c) => [c.current_step_id, Number(c.n)])));
  const investors = counts.reduce((sum, c) => sum + Number(c.n), 0);
  return { valid: problems.length === 0 && !changes.some((c) => c.blocking), investors, problems, changes };
}
