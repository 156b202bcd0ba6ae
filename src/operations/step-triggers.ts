// Step triggers in the workflow document. The workflow save (operations/workflows.ts)
// checks each step's `triggers` with checkStepTriggersOfWorkflow beside the other problems of the
// document, then calls saveStepTriggers in its transaction; getWorkflowStatus adds
// `workflowCustomStepTriggers` to each step from listWorkflowStepTriggers. Secrets go in, never out.
import { type FieldError, invalid } from '../domain/errors.ts';
import { checkStepTriggers, type StepTrigger, type StepTriggerInput } from '../domain/step-trigger.ts';
import { listStepTriggers, replaceStepTriggers, type StepTriggerView } from '../store/step-triggers.ts';
import type { Deps } from './deps.ts';

export type { StepTriggerView };

export interface StepWithTriggers {
  stepId: string;
  triggers: readonly StepTrigger[];
}

export type WorkflowStepTriggersInput = readonly { id: string; triggers?: readonly StepTriggerInput[] | undefined }[];

/** Checks the triggers of every step, returning the problems rather than throwing them. */
export function checkStepTriggersOfWorkflow(steps: WorkflowStepTriggersInput, field = 'steps'): { steps: StepWithTriggers[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const out: StepWithTriggers[] = [];
  for (const [i, step] of steps.entries()) {
    const checked = checkStepTriggers(step.triggers ?? [], `${field}.${i}.triggers`);
    errors.push(...checked.errors);
    out.push({ stepId: step.id, triggers: checked.triggers });
  }
  return { steps: out, errors };
}

/**
 * Checks the triggers of every step; throws a 400 naming each bad field
 * (`<field>.<stepIndex>.triggers.<i>.url`, …). Steps without `triggers` have none.
 */
export function checkWorkflowTriggers(steps: WorkflowStepTriggersInput, field = 'steps'): StepWithTriggers[] {
  const { steps: out, errors } = checkStepTriggersOfWorkflow(steps, field);
  if (errors.length > 0) throw invalid(errors, 'The workflow has invalid step triggers');
  return out;
}

/** Replaces the deal's triggers; call it in the workflow save's transaction. */
export async function saveStepTriggers(tx: Deps, dealId: string, steps: readonly StepWithTriggers[]): Promise<void> {
  await replaceStepTriggers(tx.db, dealId, steps, tx.clock(), tx.newId);
}

/** The triggers of each step of the deal (no secrets), by step id. */
export async function listWorkflowStepTriggers(deps: Deps, dealId: string): Promise<Map<string, StepTriggerView[]>> {
  return listStepTriggers(deps.db, dealId);
}
