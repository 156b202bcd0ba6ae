// The jump rules (docs/reference/errors.md, "Moves"), as one pure function: given the workflow,
// where the investor stands and what they captured so far, decide whether a move is allowed. The
// operation (operations/apply-moves.ts) loads the facts under a lock and writes the event.
import { isCurrencyCode, minorUnitsProblem, withdrawnCurrencyProblem } from './currency.ts';
import { AppError, conflict, forbidden, invalid, notFound, unprocessable, type FieldError } from './errors.ts';
import { isPopulated, valueProblem } from './field-value.ts';
import { type CategoryStatement, holdsCategory } from './investor-category.ts';
import { type KycLevelFact, kycExpired } from './kyc.ts';
import { ancestors, descendants, type Graph, graphOf } from './workflow-graph.ts';
import type { AgreementState, Link, Requirement, Step, StepField } from './workflow.ts';

export interface MoveRuleFacts {
  /** The deal's live steps and links. */
  steps: readonly Step[];
  links: readonly Link[];
  /** Where the investor stands: the `toStepId` of their latest event, null before the first. */
  currentStepId: string | null;
  /** The `toStepId` of every earlier event, oldest first. */
  visitedStepIds: readonly string[];
  /** Data captured by the investor's earlier events in this deal, later events winning. */
  captured: ReadonlyMap<string, string>;
  /**
   * `category`: the investor's newest category statement (absent or null: none); `kyc`: their newest
   * accepted KYC level (absent or null: none, the level set by hand counts); `today`: the UTC date both are judged on.
   */
  investor: {
    kycCheckLevel: number | null;
    classes: readonly string[];
    category?: CategoryStatement | null;
    kyc?: KycLevelFact | null;
    today?: string;
    agreement?: AgreementState;
  };
  /** Pending edit requests of this investor in this deal. */
  pendingEditRequests: number;
  /** The workflow lets investors move themselves along the links open to them (absent: it does not). */
  investorEngagementEnabled?: boolean;
  /** The deal's currency: what the move's amounts are in when neither the move nor captured data names one. */
  dealCurrency?: string | null;
}

export interface MoveRuleRequest {
  targetStepId: string;
  data: ReadonlyMap<string, string>;
  /** undefined: unconditional; null: only if the investor is not yet in the workflow. */
  expectedCurrentStepId?: string | null;
  /**
   * Only forward (or a first move): a move backward, or away from a complete or withdrawn step, is
   * refused with a conflict whose extensions say `movesBackward` (reconciliation's moves).
   */
  forwardOnly?: boolean;
  /**
   * The investor asks for this move themselves (an investor token): only along a link open to
   * investors from where they stand, when the workflow allows it at all (investorMoveRefusal).
   */
  byInvestor?: boolean;
}

export type Direction = 'first' | 'forward' | 'backward';

export interface MovePlan {
  direction: Direction;
  /** Steps the move passes over (rule 2 and 3), in the workflow's document order. */
  intermediaryStepIds: string[];
}

export interface FailedRequirement {
  kind: Requirement['kind'];
  detail: string;
}

/**
 * What the rules derive from a workflow's steps and links alone: the steps by id, their document
 * order, the currency fields' keys, the graph, and each (from, to) pair's direction and the steps
 * passed over. Kept per pair of arrays (a cached workflow's, shared by every move on it), so a move
 * does not rebuild them; a workflow's arrays are values, never changed once made, so what is kept
 * is what would be derived again.
 */
interface Shape {
  steps: ReadonlyMap<string, Step>;
  order: ReadonlyMap<string, number>;
  currencyKeys: ReadonlySet<string>;
  graph: Graph;
  plans: Map<string, MovePlan>;
}

const shapes = new WeakMap<readonly Step[], WeakMap<readonly Link[], Shape>>();

function shapeOf(steps: readonly Step[], links: readonly Link[]): Shape {
  let byLinks = shapes.get(steps);
  if (!byLinks) {
    byLinks = new WeakMap();
    shapes.set(steps, byLinks);
  }
  let shape = byLinks.get(links);
  if (!shape) {
    const byId = new Map(steps.map((s) => [s.id, s]));
    shape = {
      steps: byId,
      order: new Map(steps.map((s, i) => [s.id, i])),
      currencyKeys: new Set(steps.flatMap((s) => s.stepFields.filter((f) => f.kind === 'currency').map((f) => f.fieldKey))),
      graph: graphOf(byId.keys(), links),
      plans: new Map(),
    };
    byLinks.set(links, shape);
  }
  return shape;
}

/** Rules 2 and 3 for a pair of steps: the direction and the steps passed over, in document order (a copy the caller may keep). */
function planned(shape: Shape, currentStepId: string | null, targetId: string): MovePlan {
  const key = `${currentStepId ?? ''}\u0000${targetId}`;
  let plan = shape.plans.get(key);
  if (!plan) {
    plan = direction(shape.graph, currentStepId, targetId);
    plan.intermediaryStepIds.sort((a, b) => shape.order.get(a)! - shape.order.get(b)!);
    shape.plans.set(key, plan);
  }
  return { direction: plan.direction, intermediaryStepIds: [...plan.intermediaryStepIds] };
}

/** Decides a move; throws the AppError of the first rule it breaks (404, 409, 403 for an investor's own move, 400, then 422). */
export function planMove(facts: MoveRuleFacts, request: MoveRuleRequest): MovePlan {
  const shape = shapeOf(facts.steps, facts.links);
  const steps = shape.steps;
  const target = steps.get(request.targetStepId);
  // Rule 1.
  if (!target) throw notFound('step', request.targetStepId);

  // Rule 8: a conditional move.
  if (request.expectedCurrentStepId !== undefined && request.expectedCurrentStepId !== facts.currentStepId) {
    throw conflict(
      facts.currentStepId === null
        ? 'The investor is not in the workflow yet; the move expected them elsewhere'
        : `The investor stands at "${facts.currentStepId}", not at the expected step`,
      { currentStepId: facts.currentStepId },
    );
  }

  // Rule 9: an investor moves themselves only along a link open to investors.
  if (request.byInvestor) {
    const refusal = investorMoveRefusal(facts, target.id);
    if (refusal !== undefined) throw forbidden(refusal);
  }

  const current = facts.currentStepId === null ? undefined : steps.get(facts.currentStepId);
  if (request.forwardOnly && (current?.type === 'complete' || current?.type === 'withdrawn')) {
    throw conflict(`The investor stands at "${current.id}", a ${current.type} step: not moved`, { currentStepId: facts.currentStepId, movesBackward: true });
  }

  // Rules 2 and 3.
  const plan = planned(shape, facts.currentStepId, target.id);
  if (request.forwardOnly && plan.direction === 'backward') {
    throw conflict(`"${target.id}" is before "${facts.currentStepId}", where the investor stands: not moved backward`, {
      currentStepId: facts.currentStepId,
      movesBackward: true,
    });
  }
  const intermediaries = plan.intermediaryStepIds.map((id) => steps.get(id)!);

  // Rule 4: keys of the target or of intermediary steps, values of the field's kind.
  const fieldsByKey = new Map<string, StepField[]>();
  for (const step of [target, ...intermediaries]) {
    for (const field of step.stepFields) fieldsByKey.set(field.fieldKey, [...(fieldsByKey.get(field.fieldKey) ?? []), field]);
  }
  const errors: FieldError[] = [];
  for (const [key, value] of request.data) {
    const fields = fieldsByKey.get(key);
    if (!fields) {
      errors.push({ in: 'body', field: `data.${key}`, detail: 'is not a field of the target step or of a step the move passes over' });
      continue;
    }
    // A currency captured now must be a current code; one captured before stays readable (valueProblem alone).
    const problem = fields
      .map((f) => valueProblem(f, value) ?? (f.kind === 'currency' ? withdrawnCurrencyProblem(value) : undefined))
      .find((p) => p !== undefined);
    if (problem) errors.push({ in: 'body', field: `data.${key}`, detail: problem });
  }
  // Amounts carry at most the minor units of the currency they are in (the move's, else the one captured, else the deal's).
  const currency = moveCurrency(shape.currencyKeys, facts, request);
  if (currency !== undefined) {
    for (const [key, value] of request.data) {
      if (!fieldsByKey.get(key)?.some((f) => f.kind === 'amount') || errors.some((e) => e.field === `data.${key}`)) continue;
      const problem = minorUnitsProblem(value, currency);
      if (problem) errors.push({ in: 'body', field: `data.${key}`, detail: problem });
    }
  }
  if (errors.length > 0) throw invalid(errors, `The data does not fit the steps of this move: ${errors.map((e) => e.field).join(', ')}`);

  // Rule 5: required fields, from this move's data or captured earlier.
  const populated = (key: string) => isPopulated(request.data.get(key)) || isPopulated(facts.captured.get(key));
  const missing = new Set<string>();
  const supplied = (step: Step) => step.stepFields.some((f) => request.data.has(f.fieldKey));
  for (const step of [target, ...intermediaries.filter(supplied)]) {
    for (const field of step.stepFields) if (field.required && !populated(field.fieldKey)) missing.add(field.fieldKey);
  }

  // Rule 6: requirements of the target step.
  const failed: FailedRequirement[] = [];
  for (const requirement of target.requirements) {
    const detail = requirementFailure(requirement, facts, [...facts.visitedStepIds, ...plan.intermediaryStepIds], steps, populated);
    if (detail) failed.push({ kind: requirement.kind, detail });
  }
  if (missing.size > 0 || failed.length > 0) {
    const parts = [
      ...(missing.size > 0 ? [`required fields missing: ${[...missing].join(', ')}`] : []),
      ...(failed.length > 0 ? [`requirements not met: ${failed.map((f) => f.kind).join(', ')}`] : []),
    ];
    throw unprocessable(`The move to "${target.id}" is not allowed: ${parts.join('; ')}`, {
      ...(missing.size > 0 ? { missingFields: [...missing] } : {}),
      ...(failed.length > 0 ? { failedRequirements: failed } : {}),
    });
  }
  return plan;
}

/**
 * Why an investor may not make this move themselves, or undefined when they may: the workflow has
 * investorEngagementEnabled, they stand somewhere (nobody enters a workflow by themselves), and the
 * link from their current step straight to the target is open to investors (`investorMay`). The
 * other jump rules apply on top, as for any move.
 */
export function investorMoveRefusal(
  facts: Pick<MoveRuleFacts, 'steps' | 'links' | 'currentStepId' | 'investorEngagementEnabled'>,
  targetStepId: string,
): string | undefined {
  if (facts.investorEngagementEnabled !== true) return 'This deal does not let investors move themselves';
  const from = facts.currentStepId;
  if (from === null) return "You cannot enter this deal's workflow yourself: staff add you to it";
  if (facts.links.some((l) => l.fromStepId === from && l.toStepId === targetStepId && l.investorMay === true)) return undefined;
  const label = (id: string) => facts.steps.find((s) => s.id === id)?.label ?? id;
  return `You cannot move from ${label(from)} to ${label(targetStepId)} yourself`;
}

/** The currency of a move's amounts: a currency field in its data, else one captured earlier, else the deal's; undefined when none. */
function moveCurrency(keys: ReadonlySet<string>, facts: MoveRuleFacts, request: MoveRuleRequest): string | undefined {
  for (const source of [request.data, facts.captured]) {
    for (const key of keys) {
      const value = source.get(key);
      if (value !== undefined && isCurrencyCode(value)) return value;
    }
  }
  return facts.dealCurrency != null && isCurrencyCode(facts.dealCurrency) ? facts.dealCurrency : undefined;
}

function direction(graph: Graph, currentStepId: string | null, targetId: string): MovePlan {
  if (currentStepId === null) {
    // In a DAG every step is reachable from some entry step, and every ancestor of the target lies
    // on a path from an entry step to it.
    return { direction: 'first', intermediaryStepIds: [...ancestors(graph, targetId)] };
  }
  if (currentStepId === targetId) throw conflict(`The investor already stands at "${targetId}"`, { currentStepId });
  const after = descendants(graph, currentStepId);
  if (after.has(targetId)) {
    const before = ancestors(graph, targetId);
    return { direction: 'forward', intermediaryStepIds: [...after].filter((id) => before.has(id)) };
  }
  // Backward: the investor returns to an earlier step, whose own fields may be captured again; the
  // steps in between are not passed over, so they contribute no fields.
  if (descendants(graph, targetId).has(currentStepId)) return { direction: 'backward', intermediaryStepIds: [] };
  throw conflict(`"${targetId}" is on another branch: it is neither reachable from "${currentStepId}" nor before it`, { currentStepId });
}

function requirementFailure(
  requirement: Requirement,
  facts: MoveRuleFacts,
  pathStepIds: readonly string[],
  steps: ReadonlyMap<string, Step>,
  populated: (key: string) => boolean,
): string | undefined {
  switch (requirement.kind) {
    case 'kyc-level': {
      const { kycCheckLevel: level, kyc, today } = facts.investor;
      if (today !== undefined && kycExpired(kyc, today)) {
        return `the investor's KYC (level ${kyc!.level}) expired on ${kyc!.expiresOn}; at least ${requirement.minimumLevel} is required: the documents are asked for again`;
      }
      return level !== null && level >= requirement.minimumLevel
        ? undefined
        : `the investor's KYC check level is ${level ?? 'not set'}; at least ${requirement.minimumLevel} is required`;
    }
    case 'classification':
      return facts.investor.classes.some((c) => requirement.classes.includes(c))
        ? undefined
        : `the investor holds none of the classes ${requirement.classes.join(', ')}`;
    case 'investor-category': {
      const { category = null, today } = facts.investor;
      if (today !== undefined && holdsCategory(category, requirement.categories, today)) return undefined;
      const wanted = `a current category statement (${requirement.categories.join(', ')})`;
      if (category === null) return `the investor has no category statement; ${wanted} is required`;
      return requirement.categories.includes(category.category)
        ? `the investor's category statement (${category.category}) expired on ${category.expiresOn}; ${wanted} is required`
        : `the investor's category is ${category.category}; ${wanted} is required`;
    }
    case 'no-pending-edit-requests':
      return facts.pendingEditRequests === 0 ? undefined : `the investor has ${facts.pendingEditRequests} pending edit request(s) in this deal`;
    case 'signed-agreement': {
      const state = facts.investor.agreement ?? 'to-sign';
      if (state === 'countersigned') return undefined;
      return state === 'signed'
        ? 'the subscription agreement is signed by the investor but not countersigned yet'
        : 'the subscription agreement is not signed yet: the investor signs it, then an approver countersigns it';
    }
    case 'previous-fields-complete': {
      const missing = new Set<string>();
      for (const id of pathStepIds) {
        for (const field of steps.get(id)?.stepFields ?? []) if (field.required && !populated(field.fieldKey)) missing.add(field.fieldKey);
      }
      return missing.size === 0 ? undefined : `required fields of earlier steps are not captured: ${[...missing].join(', ')}`;
    }
    default: {
      const exhaustive: never = requirement;
      throw new AppError('internal', `unknown requirement ${JSON.stringify(exhaustive)}`);
    }
  }
}
