// Edit requests: an investor's request to change a captured event, decided by staff. The pure rules:
// what a request may carry, and which `withdrawn` step an approved withdrawal moves the investor to.
import type { FieldError } from './errors.ts';
import { valueProblem } from './field-value.ts';
import { descendants, graphOf } from './workflow-graph.ts';
import type { Step, Workflow } from './workflow.ts';

/** The interface's values (`type`); the set is ours and closed. */
export const editRequestTypes = ['Investment Amount', 'Withdraw Investment'] as const;
export type EditRequestType = (typeof editRequestTypes)[number];

export const editRequestStatuses = ['pending', 'approved', 'rejected'] as const;
export type EditRequestStatus = (typeof editRequestStatuses)[number];

/** An edit request, named as on the wire (`dateRecieved` keeps the interface's spelling). */
export interface EditRequest {
  id: string;
  workflowEventId: string;
  dealId: string;
  investorUserId: string;
  type: EditRequestType;
  reason: string;
  /** New values of the event's amount fields (`Investment Amount`); null for a withdrawal. */
  newData: Record<string, string> | null;
  status: EditRequestStatus;
  createdByUserId: string;
  dateRecieved: string;
  decidedAt: string | null;
  decidedByUserId: string | null;
  decisionReason: string | null;
}

/**
 * The keys of an event's amount fields: the `amount` fields of its target step, and the keys it
 * already holds that are `amount` fields of the step they belong to (data captured for intermediary
 * steps of a jump). A key's kind is its target-step field's kind first, else the first step's that
 * declares it.
 */
export function amountFieldsOfEvent(data: Readonly<Record<string, string>>, toStepId: string, workflow: Pick<Workflow, 'steps'>): Set<string> {
  const kindOf = new Map<string, string>();
  const target = workflow.steps.find((s) => s.id === toStepId);
  for (const field of target?.stepFields ?? []) kindOf.set(field.fieldKey, field.kind);
  const keys = new Set<string>();
  for (const field of target?.stepFields ?? []) if (field.kind === 'amount') keys.add(field.fieldKey);
  for (const key of Object.keys(data)) {
    if (!kindOf.has(key)) {
      for (const step of workflow.steps) {
        const field = step.stepFields.find((f) => f.fieldKey === key);
        if (field) {
          kindOf.set(key, field.kind);
          break;
        }
      }
    }
    if (kindOf.get(key) === 'amount') keys.add(key);
  }
  return keys;
}

/**
 * What a request may carry: `Investment Amount` needs `newData` with new values of amount fields
 * only (at least one); `Withdraw Investment` carries none. Returns every problem found.
 */
export function checkRequestData(
  type: EditRequestType,
  newData: Readonly<Record<string, unknown>> | null | undefined,
  amountFields: ReadonlySet<string>,
): FieldError[] {
  const errors: FieldError[] = [];
  if (type === 'Withdraw Investment') {
    if (newData != null) errors.push({ in: 'body', field: 'newData', detail: 'must not be sent with a Withdraw Investment request' });
    return errors;
  }
  if (newData == null) return [{ in: 'body', field: 'newData', detail: 'is required for an Investment Amount request: the new values of the amount fields' }];
  const keys = Object.keys(newData);
  if (keys.length === 0) errors.push({ in: 'body', field: 'newData', detail: 'must hold at least one amount field' });
  for (const key of keys) {
    if (!amountFields.has(key)) {
      const known = [...amountFields].join(', ') || 'none';
      errors.push({ in: 'body', field: `newData.${key}`, detail: `is not an amount field of the event (amount fields: ${known})` });
    } else {
      // Checked as the edit will check it (the field kind's rule), so approval does not fail on it.
      const value = newData[key];
      const problem = typeof value === 'string' ? valueProblem({ kind: 'amount', options: null }, value) : 'must be a string';
      if (problem) errors.push({ in: 'body', field: `newData.${key}`, detail: problem });
    }
  }
  return errors;
}

export type WithdrawalTarget = { ok: true; step: Step } | { ok: false; detail: string };

/**
 * Where an approved withdrawal moves the investor: the first `withdrawn` step, in workflow document
 * order, that is reachable forward from the investor's current step. A workflow may have several
 * (one per branch, say); the investor can only go to one they can reach, and document order makes
 * the choice stable when more than one is reachable.
 */
export function withdrawalTarget(workflow: Pick<Workflow, 'steps' | 'links'>, currentStepId: string): WithdrawalTarget {
  const withdrawn = workflow.steps.filter((s) => s.type === 'withdrawn');
  if (withdrawn.length === 0) return { ok: false, detail: 'The deal\'s workflow has no step of type "withdrawn"' };
  if (withdrawn.some((s) => s.id === currentStepId)) return { ok: false, detail: 'The investor has already withdrawn from this deal' };
  const reachable = descendants(
    graphOf(
      workflow.steps.map((s) => s.id),
      workflow.links,
    ),
    currentStepId,
  );
  const step = withdrawn.find((s) => reachable.has(s.id));
  if (!step) {
    const ids = withdrawn.map((s) => s.id).join(', ');
    return { ok: false, detail: `No "withdrawn" step (${ids}) is reachable from the investor's current step ${currentStepId}` };
  }
  return { ok: true, step };
}
