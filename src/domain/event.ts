// Workflow events (one move of one investor) and the rules for editing one.
import { isCurrencyCode, minorUnitsProblem } from './currency.ts';
import { invalid, unprocessable, type FieldError } from './errors.ts';
import { isPopulated, valueProblem } from './field-value.ts';
import type { Step } from './workflow.ts';

export interface WorkflowEvent {
  id: string;
  fromStepId: string | null;
  toStepId: string;
  data: Record<string, string>;
  createdByUserId: string;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
}

/** One version of an event's data; revision 1 is what the move captured. */
export interface EventRevision {
  revision: number;
  data: Record<string, string>;
  setByUserId: string;
  setAt: string;
  reason: string | null;
}

/** Data objects are built from entries, never by `obj[key] =`: keys are user input (`__proto__`). */
export const dataObject = (entries: Iterable<readonly [string, string]>): Record<string, string> => Object.fromEntries(entries);

/**
 * Checks new data for an event: allowed keys are the fields of the event's target step and the keys
 * the event already holds; values of step fields must fit their kind; the step's required fields
 * must stay populated (here, or captured by an earlier event of the journey, as for the move).
 */
export function checkEventEdit(
  step: Step,
  held: ReadonlyMap<string, string>,
  earlier: ReadonlyMap<string, string>,
  data: ReadonlyMap<string, string>,
  dealCurrency: string | null = null,
) {
  const fields = new Map(step.stepFields.map((f) => [f.fieldKey, f]));
  const errors: FieldError[] = [];
  for (const [key, value] of data) {
    const field = fields.get(key);
    if (!field) {
      if (!held.has(key)) errors.push({ in: 'body', field: key, detail: `is not a field of step "${step.id}" and the event does not hold it` });
      continue;
    }
    const problem = valueProblem(field, value);
    if (problem) errors.push({ in: 'body', field: key, detail: problem });
  }
  // Amounts carry at most the minor units of the step's currency (the new one, else the one held or
  // captured, else the deal's).
  const currencyKeys = step.stepFields.filter((f) => f.kind === 'currency').map((f) => f.fieldKey);
  const currency = [...[data, held, earlier].flatMap((source) => currencyKeys.map((k) => source.get(k))), dealCurrency ?? undefined].find(
    (v) => v !== undefined && isCurrencyCode(v),
  );
  if (currency !== undefined) {
    for (const [key, value] of data) {
      if (fields.get(key)?.kind !== 'amount' || errors.some((e) => e.field === key)) continue;
      const problem = minorUnitsProblem(value, currency);
      if (problem) errors.push({ in: 'body', field: key, detail: problem });
    }
  }
  if (errors.length > 0) throw invalid(errors, `The data does not fit the event's step: ${errors.map((e) => e.field).join(', ')}`);
  const missing = step.stepFields
    .filter((f) => f.required && !isPopulated(data.get(f.fieldKey)) && !isPopulated(earlier.get(f.fieldKey)))
    .map((f) => f.fieldKey);
  if (missing.length > 0) {
    throw unprocessable(`Required fields of step "${step.id}" must stay populated: ${missing.join(', ')}`, { missingFields: missing });
  }
}
