// applyMoves: the one code path of every move (a single jump-to-step, a group of them, a chunk of a bulk request,
// an import's batch, a reconciled payment, an approved withdrawal, an undo, the demo deal's seeded history). It
// and a workflow migration's move of one journey (migrate-journey.ts) go through store/moves.ts moveStatements:
// load the facts under the locks, decide (planMove alone decides a move), write in one statement.
import { AppError, notFound } from '../domain/errors.ts';
import { dataObject, type WorkflowEvent } from '../domain/event.ts';
import { utcDate } from '../domain/investor-category.ts';
import { type MovePlan, planMove } from '../domain/move-rules.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import { moveEntry } from '../domain/audit.ts';
import { agreementStateOf } from '../store/agreements.ts';
import type { ChainHead } from '../store/audit.ts';
import { findDeal } from '../store/deals.ts';
import { type Investor, ruleFactsOf } from '../domain/investor.ts';
import type { AgreementState, RequirementKind, Step, Workflow } from '../domain/workflow.ts';
import { publicEvent, type StoredEvent } from '../store/events.ts';
import { countPendingEditRequests, createJourneys, deleteEmptyJourneys, type LockedJourneyRow } from '../store/journeys.ts';
import { type MoveFacts, moveStatements, type MoveWrite } from '../store/moves.ts';
import { checksOf, type InvestorChecks, moneyStepRefusal } from './money-gate.ts';
import { generatePaymentReference } from '../store/payment-references.ts';
import type { Db } from '../store/schema.ts';
import { afterStepsEntered } from './steps-entered.ts';
import type { Deps } from './deps.ts';
import { stepEnteredEntry } from './outbox-events.ts';
import { type CachedWorkflow, loadWorkflow, loadWorkflowVersion } from './workflows.ts';

export interface MoveInput {
  investorUserId: string;
  targetStepId: string;
  data: Record<string, string>;
  /** Omitted: unconditional. null: only if the investor is not in the workflow yet. */
  expectedCurrentStepId?: string | null;
  /** Refuse a move backward or away from a complete or withdrawn step (reconciliation's moves). */
  forwardOnly?: boolean;
}

async function dealNotFound(db: Db, dealId: string): Promise<AppError> {
  return (await findDeal(db, dealId)) ? notFound('workflow of deal', dealId) : notFound('deal', dealId);
}

/** One move of a call to applyMoves: what was asked, and what the caller records or observes. */
export interface MoveRequest {
  input: MoveInput;
  /** Who asked for this move, when moves of several callers commit together (move-groups.ts); default: applyMoves' caller. */
  principal?: Principal;
  record?: MoveRecord;
  hooks?: MoveHooks;
}

/** Per move: the event written (and the plan it followed), or the refusal (nothing written for it). */
export type MoveOutcome = { ok: true; event: WorkflowEvent; plan: MovePlan } | { ok: false; error: AppError };

/** What the jump rules need of one move, loaded under the moves' locks. */
interface LoadedMove {
  /** The structure of the version the journey moves on (the current one unless not yet migrated). */
  workflow: Workflow;
  investor: Investor;
  journey: { currentStepId: string | null; eventCount: number; created: boolean; auditHead: ChainHead; captured: Record<string, string>; visited: string[] };
  pendingEditRequests: number;
  dealCurrency: string | null;
  checks: InvestorChecks;
  agreement?: AgreementState;
}

/** This instance's cached structure of the deal's workflow, if any. */
const cachedWorkflowOf = (tx: Deps, dealId: string) => tx.caches?.workflows.get(dealId, tx.clock().getTime()) as CachedWorkflow | undefined;

/** Whether the move's target step has a requirement of this kind (unknown without the structure: yes): pending edit requests are counted, the agreement read. */
const requires = (workflow: Workflow | undefined, input: MoveInput, kind: RequirementKind) =>
  workflow?.steps.find((s) => s.id === input.targetStepId)?.requirements.some((r) => r.kind === kind) ?? true;

/**
 * The load step of moves of distinct investors of one deal, from `facts`, the statement
 * (store/moves.ts) that took the locks and read the workflow's version, the investors and their
 * journeys, with what their events captured (kept on the row); `counted`: whether it counted
 * pending edit requests. More only when needed: the structure of a workflow version
 * this instance's cache does not hold, the journey rows of first moves (one insert for all), and a
 * pending count again where a journey lock waited for a change made after the statement's snapshot.
 * Returns, per move in order, its facts or the refusal of what it names (investor, step, deal).
 * `byInvestor`: per move, whether the investor asks for it themselves (no journey of theirs: the deal
 * is unknown to them, and none is created). `times`: per move, when it happens (a first move's starts then).
 */
async function loadMoves(
  tx: Deps,
  dealId: string,
  loaded: { facts: MoveFacts; counted: boolean; cached: CachedWorkflow | undefined },
  inputs: readonly MoveInput[],
  byInvestor: readonly boolean[],
  times: readonly Date[],
): Promise<(LoadedMove | AppError)[]> {
  const { db } = tx;
  const { facts, counted, cached } = loaded;
  // An investor's own move: a deal they have no journey in is answered as an unknown deal, whatever
  // else is wrong with the move, and they never start a journey by themselves (made only when answered).
  const unknownToInvestor = () => notFound('deal', dealId);
  if (facts.workflowVersion === undefined) {
    const missing = await dealNotFound(db, dealId);
    return inputs.map((_, i) => (byInvestor[i] ? unknownToInvestor() : missing));
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
      checked.push(unknownToInvestor());
      continue;
    }
    const workflow = await structureOf(facts.journeys.get(input.investorUserId)?.workflowVersion ?? facts.workflowVersion);
    const investor = facts.investors.get(input.investorUserId);
    if (!workflow) checked.push(await dealNotFound(db, dealId));
    else if (!investor) checked.push(notFound('investor', input.investorUserId));
    else if (!workflow.steps.some((s) => s.id === input.targetStepId)) checked.push(notFound('step', input.targetStepId));
    else checked.push(moneyStepRefusal(facts, input, utcDate(times[i]!)) ?? { workflow, investor });
  }
  // First moves: their journey rows, inserted (and so locked) in one statement, in investor order.
  const firsts = inputs.flatMap((input, i) =>
    checked[i] instanceof AppError || facts.journeys.has(input.investorUserId)
      ? []
      : [{ investorUserId: input.investorUserId, stepId: input.targetStepId, at: times[i]! }],
  );
  const created =
    firsts.length === 0
      ? new Map<string, LockedJourneyRow & { created: boolean }>()
      : await createJourneys(db, dealId, firsts, { now: tx.clock(), newReference: generatePaymentReference });
  const moves = await Promise.all(
    inputs.map(async (input, i): Promise<LoadedMove | AppError> => {
      const found = checked[i]!;
      if (found instanceof AppError) return found;
      const kept = facts.journeys.get(input.investorUserId);
      const made = created.get(input.investorUserId);
      const journey = kept
        ? { ...kept, created: false }
        : {
            currentStepId: made!.currentStepId,
            eventCount: made!.eventCount,
            created: made!.created,
            auditHead: made!.auditHead,
            captured: made!.captured,
            visited: made!.visited,
          };
      // The statement's count is good when it was asked for and its snapshot is current.
      let pendingEditRequests = 0;
      if (requires(found.workflow, input, 'no-pending-edit-requests')) {
        const current = kept ? !facts.stalePending.has(input.investorUserId) : made!.created;
        pendingEditRequests =
          counted && current ? (facts.pendingEditRequests.get(input.investorUserId) ?? 0) : await countPendingEditRequests(db, dealId, input.investorUserId);
      }
      const agreement = requires(found.workflow, input, 'signed-agreement') ? await agreementStateOf(db, dealId, input.investorUserId) : undefined;
      return { ...found, journey, pendingEditRequests, dealCurrency: facts.dealCurrency, checks: checksOf(facts, input.investorUserId), agreement };
    }),
  );
  return moves;
}

/** Observers of a move, for callers that report more than the event (dry runs: the steps passed over). */
export interface MoveHooks {
  /** Called with the plan once the rules have allowed the move, before anything is written. */
  onPlan?(plan: MovePlan): void;
}

/** What a caller inside the service records with the move (never taken from a request body). */
export interface MoveRecord {
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
 * Moves of distinct investors of one deal, in the caller's transaction: the one code path of every
 * move (a single jump-to-step, a chunk of a bulk request, an import's batch, a reconciled payment,
 * an approved withdrawal). Three parts: load the facts of all (locks taken, one statement),
 * planMove decides each, and every allowed move is written in one statement. A refused move writes
 * nothing (a first move's new journey row is removed again) and does not stop the others: the
 * caller decides whether a refusal undoes the rest (an atomic batch) or not.
 *
 * Staff move anyone. An investor (a move's principal with the `investor` role) moves only
 * themselves, only from where they stand and along a link open to investors (planMove's rule 9):
 * another investor's id is answered as an unknown investor before anything is read, and a deal they
 * have no journey in as an unknown deal.
 */
export async function applyMoves(tx: Deps, principal: Principal, dealId: string, requests: readonly MoveRequest[]): Promise<MoveOutcome[]> {
  if (!tx.db.isTransaction) throw new Error("applyMoves runs in the caller's transaction");
  const byInvestor = requests.map((r) => (r.principal ?? principal).role === 'investor');
  const upfront = requests.map((r, i) =>
    byInvestor[i] && (r.principal ?? principal).investorUserId !== r.input.investorUserId ? notFound('investor', r.input.investorUserId) : undefined,
  );
  const now = tx.clock();
  const loadable = requests.flatMap((r, i) => (upfront[i] ? [] : [{ input: r.input, byInvestor: byInvestor[i]!, at: r.record?.at ?? now }]));
  // Nothing to load is nothing to write either.
  if (loadable.length === 0) return upfront.map((error) => ({ ok: false as const, error: error! }));
  const inputs = loadable.map((l) => l.input);
  const cached = cachedWorkflowOf(tx, dealId);
  // Counted only when a target step asks (or the structure is not at hand to tell).
  const counted = inputs.some((input) => requires(cached?.workflow, input, 'no-pending-edit-requests'));
  const { outcomes, entered, payable } = await moveStatements(
    tx.db,
    dealId,
    inputs.map((i) => i.investorUserId),
    { countPendingEditRequests: counted },
    async (facts) => {
      const loadedSome = await loadMoves(
        tx,
        dealId,
        { facts, counted, cached },
        inputs,
        loadable.map((l) => l.byInvestor),
        loadable.map((l) => l.at),
      );
      let next = 0;
      const decided = decideMoves(
        tx,
        principal,
        dealId,
        requests,
        requests.map((_, i) => upfront[i] ?? loadedSome[next++]!),
        now,
      );
      // A refused first move leaves no journey behind, even when the caller's transaction commits.
      if (decided.refusedFirsts.length > 0) await deleteEmptyJourneys(tx.db, dealId, decided.refusedFirsts);
      return { writes: decided.writes, result: { ...decided, payable: facts.payable } };
    },
  );
  // What entering a step sets off, in the same transaction: a subscription booked, how to pay mailed.
  await afterStepsEntered(tx, dealId, entered, payable);
  return outcomes;
}

interface Entered {
  investorUserId: string;
  step: Step | undefined;
  eventId: string;
  by: Principal;
  at: Date;
}

/** planMove per move, from what was loaded for it: its outcome, and for an allowed move what to write. */
function decideMoves(
  tx: Deps,
  principal: Principal,
  dealId: string,
  requests: readonly MoveRequest[],
  loaded: readonly (LoadedMove | AppError)[],
  now: Date,
): { outcomes: MoveOutcome[]; writes: MoveWrite[]; entered: Entered[]; refusedFirsts: string[] } {
  const byInvestor = requests.map((r) => (r.principal ?? principal).role === 'investor');
  const outcomes: MoveOutcome[] = [];
  const writes: MoveWrite[] = [];
  const entered: Entered[] = [];
  const refusedFirsts: string[] = [];
  for (const [i, { input, hooks = {}, record = {}, principal: asker }] of requests.entries()) {
    const by = asker ?? principal;
    const move = loaded[i]!;
    if (move instanceof AppError) {
      outcomes.push({ ok: false, error: move });
      continue;
    }
    const { workflow, investor, journey, pendingEditRequests, dealCurrency } = move;
    let plan: MovePlan;
    try {
      plan = planMove(
        {
          steps: workflow.steps,
          links: workflow.links,
          currentStepId: journey.currentStepId,
          visitedStepIds: journey.visited,
          captured: new Map(Object.entries(journey.captured)),
          investor: { ...ruleFactsOf(investor), ...move.checks, today: utcDate(now), agreement: move.agreement },
          pendingEditRequests,
          investorEngagementEnabled: workflow.investorEngagementEnabled,
          dealCurrency,
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
      createdByUserId: actorOf(by),
      createdAt: at.toISOString(),
      dealId,
      investorUserId: investor.id,
      seq: journey.eventCount + 1,
    };
    // The audit entry chains to the head read under the journey lock; it, the outbox entry and the
    // move commit together, in one statement.
    const audit = moveEntry(journey.auditHead, event, { principal: actorOf(by), tokenId: by.tokenKey });
    const entry = stepEnteredEntry(tx, { dealId, investorUserId: investor.id, event: publicEvent(event) });
    const batch = record.batch ?? { kind: 'move' as const };
    writes.push({
      event,
      entry,
      workflowVersion: workflow.version,
      audit,
      reason: record.reason ?? null,
      batch: { id: batch.id ?? event.id, kind: batch.kind, undoes: batch.undoes ?? null },
    });
    entered.push({ investorUserId: investor.id, step: workflow.steps.find((s) => s.id === input.targetStepId), eventId: event.id, by, at });
    outcomes.push({ ok: true, event: publicEvent(event), plan });
  }
  return { outcomes, writes, entered, refusedFirsts };
}
