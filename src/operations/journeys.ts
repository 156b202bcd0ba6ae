// Investor journeys: the move (endpoint 2), one investor's journey (endpoint 3) and the journeys of
// every investor of a deal (endpoint 5).
import { AppError, forbidden, notFound } from '../domain/errors.ts';
import { dataObject, type WorkflowEvent } from '../domain/event.ts';
import { type JumpPlan, planJump } from '../domain/jump.ts';
import { canActFor, type Principal } from '../domain/principal.ts';
import { moveEntry } from '../domain/audit.ts';
import type { ChainHead } from '../store/audit.ts';
import { findDeal } from '../store/deals.ts';
import type { Investor } from '../domain/investor.ts';
import type { Workflow } from '../domain/workflow.ts';
import { findJourneyJson, listJourneyEvents, listJourneysEvents, publicEvent, type StoredEvent } from '../store/events.ts';
import { findInvestor } from '../store/investors.ts';
import { countPendingEditRequests, deleteEmptyJourney, lockJourney, pageJourneyInvestors } from '../store/journeys.ts';
import { type EarlierEvent, loadMoveFacts, writeMove } from '../store/moves.ts';
import { generatePaymentReference } from '../store/payment-references.ts';
import type { DB } from '../store/schema.ts';
import type { Kysely } from 'kysely';
import { bookOnCompletion } from './completion-booking.ts';
import { type Deps, inTransaction } from './deps.ts';
import { stepEnteredEntry } from './outbox-events.ts';
import { forReading } from './reads.ts';
import { type CachedWorkflow, loadWorkflow, loadWorkflowVersion } from './workflows.ts';

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

/** What the jump rules need, loaded under the move's locks (one statement in the usual case). */
interface LoadedMove {
  /** The structure of the version the journey moves on (the current one unless not yet migrated). */
  workflow: Workflow;
  investor: Investor;
  journey: { currentStepId: string | null; eventCount: number; created: boolean; auditHead: ChainHead };
  earlier: EarlierEvent[];
  pendingEditRequests: number;
}

/**
 * The load step of a move: one statement (store/moves.ts) takes the locks and reads the workflow's
 * version, the investor, the journey and its events. More only when needed: the workflow's
 * structure when this instance's cache does not hold that version, a first move's journey row, and
 * the events again when the journey lock waited for a change made after the statement's snapshot.
 */
async function loadMove(tx: Deps, dealId: string, input: JumpInput): Promise<LoadedMove> {
  const { db } = tx;
  const key = { dealId, investorUserId: input.investorUserId };
  const cached = tx.caches?.workflows.get(dealId, tx.clock().getTime()) as CachedWorkflow | undefined;
  // Counted only when the target step asks (or the structure is not at hand to tell).
  const needsCount = (workflow: Workflow | undefined) =>
    workflow?.steps.find((s) => s.id === input.targetStepId)?.requirements.some((r) => r.kind === 'no-pending-edit-requests') ?? true;
  const facts = await loadMoveFacts(db, key, { countPendingEditRequests: needsCount(cached?.workflow) });
  if (facts.workflowVersion === undefined) throw await dealNotFound(db, dealId);
  // A journey moves on its own version until migrated (README, "Workflow versions and migration").
  const onVersion = facts.journey?.workflowVersion ?? facts.workflowVersion;
  // The row is held FOR SHARE: a cached structure of its version is the one in force until we commit.
  const workflow =
    onVersion !== facts.workflowVersion
      ? (await loadWorkflowVersion(tx, dealId, onVersion))?.workflow
      : cached?.workflow.version === facts.workflowVersion
        ? cached.workflow
        : (await loadWorkflow(tx, dealId, { lockedVersion: facts.workflowVersion }))?.workflow;
  if (!workflow) throw await dealNotFound(db, dealId);
  if (!facts.investor) throw notFound('investor', input.investorUserId);
  if (!workflow.steps.some((s) => s.id === input.targetStepId)) throw notFound('step', input.targetStepId);

  let journey = facts.journey && { ...facts.journey, created: false };
  let earlier = facts.events;
  if (!journey) {
    const locked = await lockJourney(db, key, { stepId: input.targetStepId, now: tx.clock(), newReference: generatePaymentReference, absent: true });
    journey = { currentStepId: locked.currentStepId, eventCount: locked.eventCount, workflowVersion: null, created: locked.created, auditHead: locked.auditHead ?? { seq: 0, hash: null } };
    earlier = locked.created ? [] : undefined;
  }
  earlier ??= (await listJourneyEvents(db, dealId, input.investorUserId)).map(({ toStepId, data }) => ({ toStepId, data }));
  // The statement's count is good when it was asked for and its snapshot is current (as the events').
  let pendingEditRequests = 0;
  if (needsCount(workflow)) {
    const counted = earlier === facts.events && needsCount(cached?.workflow);
    pendingEditRequests = counted ? facts.pendingEditRequests : await countPendingEditRequests(db, dealId, input.investorUserId);
  }
  return { workflow, investor: facts.investor, journey, earlier, pendingEditRequests };
}

/** What a migration sees of a journey under its lock: its position, version and captured data. */
export interface LockedJourney {
  currentStepId: string;
  workflowVersion: number | null;
  captured: Map<string, string>;
}

/**
 * A workflow migration's move of one journey onto the current version (operations/workflow-migration.ts):
 * the journey is locked and read as a move's is, `decide` says where it goes (or nothing), and the
 * event is written as a move's (data empty, the current version), with its outbox entry and, onto a
 * complete step, its booking. The caller holds the workflow row FOR SHARE at `version`.
 */
export async function migrateJourney(
  tx: Deps,
  principal: Principal,
  key: { dealId: string; investorUserId: string },
  target: { workflow: Workflow; decide: (journey: LockedJourney) => string | undefined },
): Promise<WorkflowEvent | undefined> {
  const facts = await loadMoveFacts(tx.db, key, { countPendingEditRequests: false });
  if (!facts.journey || facts.journey.currentStepId === null) return undefined;
  const earlier = facts.events ?? (await listJourneyEvents(tx.db, key.dealId, key.investorUserId));
  const toStepId = target.decide({ currentStepId: facts.journey.currentStepId, workflowVersion: facts.journey.workflowVersion, captured: capturedData(earlier) });
  if (toStepId === undefined) return undefined;
  const now = tx.clock();
  const event: StoredEvent = {
    id: tx.newId(),
    fromStepId: facts.journey.currentStepId,
    toStepId,
    data: {},
    createdByUserId: principal.userId,
    createdAt: now.toISOString(),
    ...key,
    seq: facts.journey.eventCount + 1,
  };
  // Recorded in the journey's audit chain as any move is, saying it was the migration to this version.
  const audit = moveEntry(facts.journey.auditHead, event, { principal: principal.userId, tokenId: principal.tokenKey }, { migratedToVersion: target.workflow.version });
  await writeMove(tx.db, event, stepEnteredEntry(tx, { ...key, event: publicEvent(event) }), target.workflow.version, audit);
  if (toStepId !== event.fromStepId) {
    await bookOnCompletion(tx, principal, { ...key, step: target.workflow.steps.find((s) => s.id === toStepId), eventId: event.id, at: now });
  }
  return publicEvent(event);
}

/** Observers of a move, for callers that report more than the event (dry runs: the steps passed over). */
export interface JumpHooks {
  /** Called with the plan once the rules have allowed the move, before anything is written. */
  onPlan?(plan: JumpPlan): void;
}

/** What a caller inside the service records with the move (never taken from a request body). */
export interface JumpRecord {
  /** Stored with the event's first revision (GET /deals/event/{eventId}/revisions), e.g. the approval that made the move. */
  reason?: string | null;
}

/**
 * Endpoint 2: moves an investor to a step under the jump rules (domain/jump.ts) and records the
 * Workflow Event. Serialized per investor and deal by the journey row lock (store/journeys.ts).
 * Joins the caller's transaction when there is one (edit-request approvals, idempotent requests).
 * Three parts: load the facts (locks taken), planJump decides, write the move in one statement.
 */
export async function jumpToStep(
  deps: Deps,
  principal: Principal,
  dealId: string,
  input: JumpInput,
  hooks: JumpHooks = {},
  record: JumpRecord = {},
): Promise<WorkflowEvent> {
  if (principal.role !== 'admin') throw forbidden('Only staff move investors');
  return inTransaction(deps, async (tx) => {
    const { db, clock } = tx;
    const { workflow, investor, journey, earlier, pendingEditRequests } = await loadMove(tx, dealId, input);
    const now = clock();
    try {
      const plan = planJump(
        {
          steps: workflow.steps,
          links: workflow.links,
          currentStepId: journey.currentStepId,
          visitedStepIds: earlier.map((e) => e.toStepId),
          captured: capturedData(earlier),
          investor: { kycCheckLevel: investor.kycCheckLevel, classes: investor.contact.classifications.map((c) => c.investorClass) },
          pendingEditRequests,
        },
        {
          targetStepId: input.targetStepId,
          data: new Map(Object.entries(input.data)),
          ...(input.expectedCurrentStepId !== undefined ? { expectedCurrentStepId: input.expectedCurrentStepId } : {}),
        },
      );
      hooks.onPlan?.(plan);
    } catch (err) {
      // A refused first move leaves no journey behind, even when the caller's transaction commits.
      if (journey.created && err instanceof AppError) await deleteEmptyJourney(db, { dealId, investorUserId: investor.id });
      throw err;
    }
    const event: StoredEvent = {
      id: tx.newId(),
      fromStepId: journey.currentStepId,
      toStepId: input.targetStepId,
      data: dataObject(Object.entries(input.data)),
      createdByUserId: principal.userId,
      createdAt: now.toISOString(),
      dealId,
      investorUserId: investor.id,
      seq: journey.eventCount + 1,
    };
    // The audit entry chains to the head read under the journey lock; it, the outbox entry and the
    // move commit together, in one statement.
    const audit = moveEntry(journey.auditHead, event, { principal: principal.userId, tokenId: principal.tokenKey });
    await writeMove(db, event, stepEnteredEntry(tx, { dealId, investorUserId: investor.id, event: publicEvent(event) }), workflow.version, audit, record.reason ?? null);
    await bookOnCompletion(tx, principal, { dealId, investorUserId: investor.id, step: workflow.steps.find((s) => s.id === input.targetStepId), eventId: event.id, at: now });
    return publicEvent(event);
  });
}

/**
 * Endpoint 3: an investor's events in a deal, oldest first (empty before their first move), as the
 * response's JSON text (`{ investor: { id }, journey }`) built by the database (store/events.ts), for
 * the HTTP layer to send unchanged.
 */
export async function getInvestorJourney(deps: Deps, principal: Principal, dealId: string, investorUserId: string): Promise<string> {
  if (!canActFor(principal, investorUserId)) throw forbidden('An investor token may read only its own journey');
  // Events exist only for a known deal and investor (foreign keys through journeys), so the usual
  // case is one simple query; only an empty journey needs to tell a 404 from "no move yet".
  const { events, json } = await findJourneyJson(deps.db, dealId, investorUserId);
  if (events === 0) {
    // An investor with no journey in the deal cannot tell it from an unknown deal.
    if (principal.role !== 'admin' || !(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
    if (!(await findInvestor(deps.db, investorUserId))) throw notFound('investor', investorUserId);
  }
  return json;
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
  const { db } = forReading(deps);
  const { dealExists, total, investorUserIds } = await pageJourneyInvestors(db, dealId, {
    limit: query.limit,
    offset: (query.page - 1) * query.limit,
    ...(search ? { query: search } : {}),
  });
  if (!dealExists) throw notFound('deal', dealId);
  const events = await listJourneysEvents(db, dealId, investorUserIds);
  return {
    output: investorUserIds.map((id) => ({
      investor: { id },
      journey: (events.get(id) ?? []).map(({ id: eventId, toStepId, data, createdAt }) => ({ id: eventId, toStepId, data, createdAt })),
    })),
    page: query.page,
    totalPages: Math.ceil(total / query.limit),
  };
}
