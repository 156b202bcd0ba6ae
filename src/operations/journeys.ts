// Investor journeys: the move (endpoint 2), one investor's journey (endpoint 3) and the journeys of
// every investor of a deal (endpoint 5).
import { AppError, forbidden, notFound } from '../domain/errors.ts';
import { dataObject, type WorkflowEvent } from '../domain/event.ts';
import { planJump } from '../domain/jump.ts';
import { canActFor, type Principal } from '../domain/principal.ts';
import { findDeal } from '../store/deals.ts';
import { insertEventAndMove, listJourneyEvents, listJourneysEvents, publicEvent, type StoredEvent } from '../store/events.ts';
import { findInvestor } from '../store/investors.ts';
import { countPendingEditRequests, deleteEmptyJourney, lockJourney, pageJourneyInvestors } from '../store/journeys.ts';
import { generatePaymentReference } from '../store/payment-references.ts';
import type { DB } from '../store/schema.ts';
import type { Kysely } from 'kysely';
import { type Deps, inTransaction } from './deps.ts';
import { recordStepEntered } from './outbox-events.ts';
import { loadWorkflow } from './workflows.ts';

export interface JumpInput {
  investorUserId: string;
  targetStepId: string;
  data: Record<string, string>;
  /** Omitted: unconditional. null: only if the investor is not in the workflow yet. */
  expectedCurrentStepId?: string | null;
}

/** The data an investor's events hold, later events winning (what "captured earlier" means). */
export function capturedData(events: readonly Pick<WorkflowEvent, 'data'>[]): Map<string, string> {
  const captured = new Map<string, string>();
  for (const event of events) for (const [key, value] of Object.entries(event.data)) captured.set(key, value);
  return captured;
}

async function dealNotFound(db: Kysely<DB>, dealId: string): Promise<AppError> {
  return (await findDeal(db, dealId)) ? notFound('workflow of deal', dealId) : notFound('deal', dealId);
}

/**
 * Endpoint 2: moves an investor to a step under the jump rules (domain/jump.ts) and records the
 * Workflow Event. Serialized per investor and deal by the journey row lock (store/journeys.ts).
 * Joins the caller's transaction when there is one (edit-request approvals, idempotent requests).
 */
export async function jumpToStep(deps: Deps, principal: Principal, dealId: string, input: JumpInput): Promise<WorkflowEvent> {
  if (principal.role !== 'admin') throw forbidden('Only staff move investors');
  return inTransaction(deps, async (tx) => {
    const { db, clock, newId } = tx;
    // FOR SHARE: many moves of one deal run side by side; a re-applied workflow waits for them.
    const workflow = (await loadWorkflow(tx, dealId, { lock: 'share' }))?.workflow;
    if (!workflow) throw await dealNotFound(db, dealId);
    const investor = await findInvestor(db, input.investorUserId);
    if (!investor) throw notFound('investor', input.investorUserId);
    if (!workflow.steps.some((s) => s.id === input.targetStepId)) throw notFound('step', input.targetStepId);

    const now = clock();
    const key = { dealId, investorUserId: investor.id };
    const journey = await lockJourney(db, key, { stepId: input.targetStepId, now, newReference: generatePaymentReference });
    let earlier: StoredEvent[];
    try {
      earlier = await listJourneyEvents(db, dealId, investor.id);
      planJump(
        {
          steps: workflow.steps,
          links: workflow.links,
          currentStepId: journey.currentStepId,
          visitedStepIds: earlier.map((e) => e.toStepId),
          captured: capturedData(earlier),
          investor: { kycCheckLevel: investor.kycCheckLevel, classes: investor.contact.classifications.map((c) => c.investorClass) },
          // Counted only when the target step asks (issue #8: one query less on most moves).
          pendingEditRequests: workflow.steps.find((s) => s.id === input.targetStepId)!.requirements.some((r) => r.kind === 'no-pending-edit-requests')
            ? await countPendingEditRequests(db, dealId, investor.id)
            : 0,
        },
        {
          targetStepId: input.targetStepId,
          data: new Map(Object.entries(input.data)),
          ...(input.expectedCurrentStepId !== undefined ? { expectedCurrentStepId: input.expectedCurrentStepId } : {}),
        },
      );
    } catch (err) {
      // A refused first move leaves no journey behind, even when the caller's transaction commits.
      if (journey.created && err instanceof AppError) await deleteEmptyJourney(db, key);
      throw err;
    }
    const event: StoredEvent = {
      id: newId(),
      fromStepId: journey.currentStepId,
      toStepId: input.targetStepId,
      data: dataObject(Object.entries(input.data)),
      createdByUserId: principal.userId,
      createdAt: now.toISOString(),
      dealId,
      investorUserId: investor.id,
      seq: journey.eventCount + 1,
    };
    await insertEventAndMove(db, event);
    // Issue #6: the outbox entry commits with the move, or not at all.
    await recordStepEntered({ db, clock, newId }, { dealId, investorUserId: investor.id, event: publicEvent(event) });
    return publicEvent(event);
  });
}

export interface InvestorJourney {
  investor: { id: string };
  journey: WorkflowEvent[];
}

/** Endpoint 3: an investor's events in a deal, oldest first (empty before their first move). */
export async function getInvestorJourney(deps: Deps, principal: Principal, dealId: string, investorUserId: string): Promise<InvestorJourney> {
  if (!canActFor(principal, investorUserId)) throw forbidden('An investor token may read only its own journey');
  // Events exist only for a known deal and investor (foreign keys through journeys), so the usual
  // case is one simple query; only an empty journey needs to tell a 404 from "no move yet".
  const events = await listJourneyEvents(deps.db, dealId, investorUserId);
  if (events.length === 0) {
    // An investor with no journey in the deal cannot tell it from an unknown deal.
    if (principal.role !== 'admin' || !(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
    if (!(await findInvestor(deps.db, investorUserId))) throw notFound('investor', investorUserId);
  }
  return { investor: { id: investorUserId }, journey: events.map(publicEvent) };
}

export interface JourneyPageQuery {
  limit: number;
  page: number;
  query?: string | undefined;
}

export type AbbreviatedEvent = Pick<WorkflowEvent, 'id' | 'toStepId' | 'data' | 'createdAt'>;

export interface JourneyPage {
  output: { investor: { id: string }; journey: AbbreviatedEvent[] }[];
  page: number;
  totalPages: number;
}

/**
 * Endpoint 5: the investors with a journey in the deal, by full name then id, filtered on name or
 * e-mail. Two queries whatever the page size: the page of investors, then all of their events.
 */
export async function listInvestorJourneys(deps: Deps, dealId: string, query: JourneyPageQuery): Promise<JourneyPage> {
  const search = query.query?.trim();
  const { dealExists, total, investorUserIds } = await pageJourneyInvestors(deps.db, dealId, {
    limit: query.limit,
    offset: (query.page - 1) * query.limit,
    ...(search ? { query: search } : {}),
  });
  if (!dealExists) throw notFound('deal', dealId);
  const events = await listJourneysEvents(deps.db, dealId, investorUserIds);
  return {
    output: investorUserIds.map((id) => ({
      investor: { id },
      journey: (events.get(id) ?? []).map(({ id: eventId, toStepId, data, createdAt }) => ({ id: eventId, toStepId, data, createdAt })),
    })),
    page: query.page,
    totalPages: Math.ceil(total / query.limit),
  };
}
