// Investor journeys: the move (jumpToStep), one investor's journey (getInvestorJourney) and the journeys of
// every investor of a deal (listAllInvestorWorkflows).
import { AppError, forbidden, notFound } from '../domain/errors.ts';
import { dataObject, type WorkflowEvent } from '../domain/event.ts';
import { type JumpPlan, planJump } from '../domain/jump.ts';
import { canActFor, type Principal } from '../domain/principal.ts';
import { moveEntry } from '../domain/audit.ts';
import type { ChainHead } from '../store/audit.ts';
import { findDeal } from '../store/deals.ts';
import type { Investor } from '../domain/investor.ts';
import type { Step, Workflow } from '../domain/workflow.ts';
import { findJourneyJson, findJourneyVersion, listJourneysEvents, publicEvent, type StoredEvent } from '../store/events.ts';
import { findInvestor } from '../store/investors.ts';
import { countPendingEditRequests, createJourneys, deleteEmptyJourneys, type LockedJourneyRow, pageJourneyInvestors } from '../store/journeys.ts';
import { loadMoveFacts, type MoveWrite, writeMoves } from '../store/moves.ts';
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
  /** Refuse a move backward or away from a complete or withdrawn step (reconciliation's moves). */
  forwardOnly?: boolean;
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

/** One move of a call to applyMoves: what was asked, and what the caller records or observes. */
export interface MoveRequest {
  input: JumpInput;
  /** Who asked for this move, when moves of several callers commit together (move-groups.ts); default: applyMoves' caller. */
  principal?: Principal;
  record?: JumpRecord;
  hooks?: JumpHooks;
}

/** Per move: the event written (and the plan it followed), or the refusal (nothing written for it). */
export type MoveOutcome = { ok: true; event: WorkflowEvent; plan: JumpPlan } | { ok: false; error: AppError };

/** What the jump rules need of one move, loaded under the moves' locks. */
interface LoadedMove {
  /** The structure of the version the journey moves on (the current one unless not yet migrated). */
  workflow: Workflow;
  investor: Investor;
  journey: { currentStepId: string | null; eventCount: number; created: boolean; auditHead: ChainHead; captured: Record<string, string>; visited: string[] };
  pendingEditRequests: number;
}

/**
 * The load step of moves of distinct investors of one deal: one statement (store/moves.ts) takes
 * the locks and reads the workflow's version, the investors and their journeys, with what their
 * events captured (kept on the row). More only when needed: the structure of a workflow version
 * this instance's cache does not hold, the journey rows of first moves (one insert for all), and a
 * pending count again where a journey lock waited for a change made after the statement's snapshot.
 * Returns, per move in order, its facts or the refusal of what it names (investor, step, deal).
 * `byInvestor`: per move, whether the investor asks for it themselves (no journey of theirs: the
 * deal is unknown to them, and none is created). `times`: per move, when it happens (a first move's
 * journey starts then).
 */
async function loadMoves(tx: Deps, dealId: string, inputs: readonly JumpInput[], byInvestor: readonly boolean[], times: readonly Date[]): Promise<(LoadedMove | AppError)[]> {
  const { db } = tx;
  // An investor's own move: a deal they have no journey in is answered as an unknown deal, whatever
  // else is wrong with the move, and they never start a journey by themselves.
  const unknownToInvestor = notFound('deal', dealId);
  const cached = tx.caches?.workflows.get(dealId, tx.clock().getTime()) as CachedWorkflow | undefined;
  // Counted only when a target step asks (or the structure is not at hand to tell).
  const needsCount = (workflow: Workflow | undefined, input: JumpInput) =>
    workflow?.steps.find((s) => s.id === input.targetStepId)?.requirements.some((r) => r.kind === 'no-pending-edit-requests') ?? true;
  const counted = inputs.some((input) => needsCount(cached?.workflow, input));
  const facts = await loadMoveFacts(db, dealId, inputs.map((i) => i.investorUserId), { countPendingEditRequests: counted });
  if (facts.workflowVersion === undefined) {
    const missing = await dealNotFound(db, dealId);
    return inputs.map((_, i) => (byInvestor[i] ? unknownToInvestor : missing));
  }
  // A journey moves on its own version until migrated (docs/guides/change-a-workflow.md).
  // The row is held FOR SHARE: a cached structure of its version is the one in force until we commit.
  const versions = new Map<number, Workflow | undefined>();
  const structureOf = async (version: number) => {
    if (!versions.has(version)) {
      versions.set(
        version,
        version !== facts.workflowVersion
          ? (await loadWorkflowVersion(tx, dealId, version))?.workflow
          : cached?.workflow.version === facts.workflowVersion
            ? cached.workflow
            : (await loadWorkflow(tx, dealId, { lockedVersion: facts.workflowVersion }))?.workflow,
      );
    }
    return versions.get(version);
  };
  const checked: ({ workflow: Workflow; investor: Investor } | AppError)[] = [];
  for (const [i, input] of inputs.entries()) {
    if (byInvestor[i] && !facts.journeys.has(input.investorUserId)) {
      checked.push(unknownToInvestor);
      continue;
    }
    const workflow = await structureOf(facts.journeys.get(input.investorUserId)?.workflowVersion ?? facts.workflowVersion);
    const investor = facts.investors.get(input.investorUserId);
    if (!workflow) checked.push(await dealNotFound(db, dealId));
    else if (!investor) checked.push(notFound('investor', input.investorUserId));
    else if (!workflow.steps.some((s) => s.id === input.targetStepId)) checked.push(notFound('step', input.targetStepId));
    else checked.push({ workflow, investor });
  }
  // First moves: their journey rows, inserted (and so locked) in one statement, in investor order.
  const firsts = inputs.flatMap((input, i) =>
    checked[i] instanceof AppError || facts.journeys.has(input.investorUserId) ? [] : [{ investorUserId: input.investorUserId, stepId: input.targetStepId, at: times[i]! }]);
  const created = firsts.length === 0
    ? new Map<string, LockedJourneyRow & { created: boolean }>()
    : await createJourneys(db, dealId, firsts, { now: tx.clock(), newReference: generatePaymentReference });
  const moves = await Promise.all(inputs.map(async (input, i): Promise<LoadedMove | AppError> => {
    const found = checked[i]!;
    if (found instanceof AppError) return found;
    const kept = facts.journeys.get(input.investorUserId);
    const made = created.get(input.investorUserId);
    const journey = kept
      ? { ...kept, created: false }
      : { currentStepId: made!.currentStepId, eventCount: made!.eventCount, created: made!.created, auditHead: made!.auditHead, captured: made!.captured, visited: made!.visited };
    // The statement's count is good when it was asked for and its snapshot is current.
    let pendingEditRequests = 0;
    if (needsCount(found.workflow, input)) {
      const current = kept ? !facts.stalePending.has(input.investorUserId) : made!.created;
      pendingEditRequests = counted && current
        ? (facts.pendingEditRequests.get(input.investorUserId) ?? 0)
        : await countPendingEditRequests(db, dealId, input.investorUserId);
    }
    return { ...found, journey, pendingEditRequests };
  }));
  return moves;
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
  const facts = await loadMoveFacts(tx.db, key.dealId, [key.investorUserId], { countPendingEditRequests: false });
  const journey = facts.journeys.get(key.investorUserId);
  const toStepId = journey && journey.currentStepId !== null
    ? target.decide({ currentStepId: journey.currentStepId, workflowVersion: journey.workflowVersion, captured: new Map(Object.entries(journey.captured)) })
    : undefined;
  if (!journey || toStepId === undefined) {
    await writeMoves(tx.db, key.dealId, []); // puts the plan setting back
    return undefined;
  }
  const currentStepId = journey.currentStepId!;
  const now = tx.clock();
  const event: StoredEvent = {
    id: tx.newId(),
    fromStepId: currentStepId,
    toStepId,
    data: {},
    createdByUserId: principal.userId,
    createdAt: now.toISOString(),
    ...key,
    seq: journey.eventCount + 1,
  };
  // Recorded in the journey's audit chain as any move is, saying it was the migration to this version.
  const audit = moveEntry(journey.auditHead, event, { principal: principal.userId, tokenId: principal.tokenKey }, { migratedToVersion: target.workflow.version });
  const entry = stepEnteredEntry(tx, { ...key, event: publicEvent(event) });
  await writeMoves(tx.db, key.dealId, [{ event, entry, workflowVersion: target.workflow.version, audit, reason: null, batch: null }]);
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
  /**
   * When the move happened, for a history recorded after the fact (the demo deal's seeded
   * journeys, whose moves are spread over past weeks); absent: now (the transaction's clock). The
   * event, its audit entry, its feed entry and a first move's journey carry it; the feed's order is
   * still the order of the writes.
   */
  at?: Date;
  /**
   * The batch the move's event belongs to (migration 0025), so that it can be undone with the
   * other moves of the same write (operations/undo.ts). Absent: the move is a batch of its own,
   * whose id is its event's id.
   */
  batch?: BatchTag;
}

/** Which write a move was part of: its id, what kind of write, and (for an undo) the batch it undoes. */
export interface BatchTag {
  /** Absent: the event's own id (a write of one investor: a move, a payment decision). */
  id?: string;
  kind: 'move' | 'bulk-move' | 'import' | 'payment-decision' | 'reconciliation' | 'undo';
  undoes?: string;
}

/**
 * jumpToStep: moves an investor to a step under the jump rules (domain/jump.ts) and records the
 * Workflow Event: applyMoves with one move, its refusal thrown. Joins the caller's transaction when
 * there is one (edit-request approvals, idempotent requests).
 */
export async function jumpToStep(
  deps: Deps,
  principal: Principal,
  dealId: string,
  input: JumpInput,
  hooks: JumpHooks = {},
  record: JumpRecord = {},
): Promise<WorkflowEvent> {
  return inTransaction(deps, async (tx) => {
    const [outcome] = await applyMoves(tx, principal, dealId, [{ input, hooks, record }]);
    if (!outcome!.ok) throw outcome!.error;
    return outcome!.event;
  });
}

/**
 * Moves of distinct investors of one deal, in the caller's transaction: the one code path of every
 * move (a single jump-to-step, a chunk of a bulk request, an import's batch, a reconciled payment,
 * an approved withdrawal). Three parts: load the facts of all (locks taken, one statement),
 * planJump decides each, and every allowed move is written in one statement. A refused move writes
 * nothing (a first move's new journey row is removed again) and does not stop the others: the
 * caller decides whether a refusal undoes the rest (an atomic batch) or not.
 *
 * Staff move anyone. An investor (a move's principal with the `investor` role) moves only
 * themselves, only from where they stand and along a link open to investors (planJump's rule 9):
 * another investor's id is answered as an unknown investor before anything is read, and a deal they
 * have no journey in as an unknown deal.
 */
export async function applyMoves(tx: Deps, principal: Principal, dealId: string, requests: readonly MoveRequest[]): Promise<MoveOutcome[]> {
  if (!tx.db.isTransaction) throw new Error('applyMoves runs in the caller\'s transaction');
  const byInvestor = requests.map((r) => (r.principal ?? principal).role !== 'admin');
  const upfront = requests.map((r, i) =>
    byInvestor[i] && (r.principal ?? principal).investorUserId !== r.input.investorUserId ? notFound('investor', r.input.investorUserId) : undefined);
  const now = tx.clock();
  const loadable = requests.flatMap((r, i) => (upfront[i] ? [] : [{ input: r.input, byInvestor: byInvestor[i]!, at: r.record?.at ?? now }]));
  // Nothing to load is nothing to write either (writeMoves puts back what loadMoveFacts set).
  if (loadable.length === 0) return upfront.map((error) => ({ ok: false as const, error: error! }));
  const loadedSome = await loadMoves(tx, dealId, loadable.map((l) => l.input), loadable.map((l) => l.byInvestor), loadable.map((l) => l.at));
  let next = 0;
  const loaded = requests.map((_, i) => upfront[i] ?? loadedSome[next++]!);
  const outcomes: MoveOutcome[] = [];
  const writes: MoveWrite[] = [];
  const entered: { investorUserId: string; step: Step | undefined; eventId: string; by: Principal; at: Date }[] = [];
  const refusedFirsts: string[] = [];
  for (const [i, { input, hooks = {}, record = {}, principal: asker }] of requests.entries()) {
    const by = asker ?? principal;
    const move = loaded[i]!;
    if (move instanceof AppError) {
      outcomes.push({ ok: false, error: move });
      continue;
    }
    const { workflow, investor, journey, pendingEditRequests } = move;
    let plan: JumpPlan;
    try {
      plan = planJump(
        {
          steps: workflow.steps,
          links: workflow.links,
          currentStepId: journey.currentStepId,
          visitedStepIds: journey.visited,
          captured: new Map(Object.entries(journey.captured)),
          investor: { kycCheckLevel: investor.kycCheckLevel, classes: investor.contact.classifications.map((c) => c.investorClass) },
          pendingEditRequests,
          investorEngagementEnabled: workflow.investorEngagementEnabled,
        },
        {
          ...(byInvestor[i] ? { byInvestor: true } : {}),
          targetStepId: input.targetStepId,
          data: new Map(Object.entries(input.data)),
          ...(input.expectedCurrentStepId !== undefined ? { expectedCurrentStepId: input.expectedCurrentStepId } : {}),
          ...(input.forwardOnly ? { forwardOnly: true } : {}),
        },
      );
      hooks.onPlan?.(plan);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // A refused first move leaves no journey behind, even when the caller's transaction commits.
      if (journey.created) refusedFirsts.push(investor.id);
      outcomes.push({ ok: false, error: err });
      continue;
    }
    const at = record.at ?? now;
    const event: StoredEvent = {
      id: tx.newId(),
      fromStepId: journey.currentStepId,
      toStepId: input.targetStepId,
      data: dataObject(Object.entries(input.data)),
      createdByUserId: by.userId,
      createdAt: at.toISOString(),
      dealId,
      investorUserId: investor.id,
      seq: journey.eventCount + 1,
    };
    // The audit entry chains to the head read under the journey lock; it, the outbox entry and the
    // move commit together, in one statement.
    const audit = moveEntry(journey.auditHead, event, { principal: by.userId, tokenId: by.tokenKey });
    const entry = stepEnteredEntry(tx, { dealId, investorUserId: investor.id, event: publicEvent(event) });
    const batch = record.batch ?? { kind: 'move' as const };
    writes.push({
      event, entry, workflowVersion: workflow.version, audit, reason: record.reason ?? null,
      batch: { id: batch.id ?? event.id, kind: batch.kind, undoes: batch.undoes ?? null },
    });
    entered.push({ investorUserId: investor.id, step: workflow.steps.find((s) => s.id === input.targetStepId), eventId: event.id, by, at });
    outcomes.push({ ok: true, event: publicEvent(event), plan });
  }
  if (refusedFirsts.length > 0) await deleteEmptyJourneys(tx.db, dealId, refusedFirsts);
  await writeMoves(tx.db, dealId, writes);
  // A complete step books the subscription (when the deal names an asset), in the same transaction.
  for (const e of entered) await bookOnCompletion(tx, e.by, { dealId, investorUserId: e.investorUserId, step: e.step, eventId: e.eventId, at: e.at });
  return outcomes;
}

/** A read's answer as JSON text with the version it is of; no text when the caller already holds that version. */
export interface VersionedText {
  version: string;
  json?: string;
}

/**
 * getInvestorJourney: an investor's events in a deal, oldest first (empty before their first move), as the
 * response's JSON text (`{ investor: { id }, journey }`) built by the database (store/events.ts), for
 * the HTTP layer to send unchanged, with the journey's version (its audit chain's length: every move
 * and edit lengthens it). After the access check, one primary-key read gives the version: when the
 * caller holds it (`known`) nothing else is read, and the text of a version this instance has built
 * before comes from its kept bodies (a version's text never changes).
 */
export async function getInvestorJourney(deps: Deps, principal: Principal, dealId: string, investorUserId: string, known?: readonly string[]): Promise<VersionedText> {
  if (!canActFor(principal, investorUserId)) throw forbidden('An investor token may read only its own journey');
  const key = (version: string) => `journey ${dealId} ${investorUserId} ${version}`;
  const current = await findJourneyVersion(deps.db, dealId, investorUserId);
  // Version 0 is a journey without events: the full read below tells who may know of it.
  if (current !== undefined && current !== '0') {
    if (known?.includes(current)) return { version: current };
    const kept = deps.caches?.bodies.get(key(current));
    if (kept !== undefined) return { version: current, json: kept };
  }
  // Events exist only for a known deal and investor (foreign keys through journeys), so the usual
  // case is one simple query; only an empty journey needs to tell a 404 from "no move yet".
  const { events, json, version } = await findJourneyJson(deps.db, dealId, investorUserId);
  if (events === 0) {
    // An investor with no journey in the deal cannot tell it from an unknown deal.
    if (principal.role !== 'admin' || !(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
    if (!(await findInvestor(deps.db, investorUserId))) throw notFound('investor', investorUserId);
  } else {
    deps.caches?.bodies.set(key(version), json);
  }
  return known?.includes(version) ? { version } : { version, json };
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
 * listAllInvestorWorkflows: the investors with a journey in the deal, by full name then id, filtered on name or
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
