// Where a workflow migration puts a journey of an older version, and whether it fits there: pure,
// so the dry run and the real run (which asks again under each journey's lock) decide alike.
import { isPopulated, valueProblem } from './field-value.ts';
import type { Workflow } from './workflow.ts';

export const misfitReasons = ['step-removed', 'missing-fields', 'invalid-data'] as const;
export type MisfitReason = (typeof misfitReasons)[number];

export interface MigratingJourney {
  investorUserId: string;
  currentStepId: string;
  /** What the journey's events captured, later events winning. */
  captured: ReadonlyMap<string, string>;
}

export type MigrationDecision =
  | { fits: true; investorUserId: string; fromStepId: string; toStepId: string }
  | { fits: false; investorUserId: string; fromStepId: string; toStepId: string | null; reason: MisfitReason; fields: string[]; detail: string };

/**
 * A journey goes to `mapping[step]`, or stays on its step when the new version still has it. It
 * fits when the new step's required fields are populated by what it captured and every captured
 * value of a field of that step is of the field's kind. Requirements (KYC level, classes) are not
 * asked again: they guard moves, and a migration moves nobody forward.
 */
export function decideMigration(journey: MigratingJourney, workflow: Pick<Workflow, 'steps'>, mapping: Readonly<Record<string, string>>): MigrationDecision {
  const { investorUserId, currentStepId: fromStepId, captured } = journey;
  const toStepId = mapping[fromStepId] ?? fromStepId;
  const step = workflow.steps.find((s) => s.id === toStepId);
  if (!step) {
    return {
      fits: false,
      investorUserId,
      fromStepId,
      toStepId: null,
      reason: 'step-removed',
      fields: [],
      detail: `${fromStepId} is not in the new version and the mapping does not name it`,
    };
  }
  const missing = step.stepFields.filter((f) => f.required && !isPopulated(captured.get(f.fieldKey))).map((f) => f.fieldKey);
  if (missing.length > 0) {
    return {
      fits: false,
      investorUserId,
      fromStepId,
      toStepId,
      reason: 'missing-fields',
      fields: missing,
      detail: `${toStepId} requires ${missing.join(', ')}, not captured`,
    };
  }
  const bad = step.stepFields.filter(
    (f) => captured.has(f.fieldKey) && isPopulated(captured.get(f.fieldKey)) && valueProblem(f, captured.get(f.fieldKey)!) !== undefined,
  );
  if (bad.length > 0) {
    const detail = bad.map((f) => `${f.fieldKey} ${valueProblem(f, captured.get(f.fieldKey)!)}`).join('; ');
    return { fits: false, investorUserId, fromStepId, toStepId, reason: 'invalid-data', fields: bad.map((f) => f.fieldKey), detail };
  }
  return { fits: true, investorUserId, fromStepId, toStepId };
}
