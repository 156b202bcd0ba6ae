// Values of step fields as the console checks them before the service does, and requirements in words.
import type { RequirementBody, StepField } from './api.ts';

const AMOUNT = /^\d+(\.\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Why a value does not fit its field's kind, or undefined when it does (or is empty). */
export function checkValue(field: StepField, value: string): string | undefined {
  if (value === '') return undefined;
  switch (field.kind ?? 'text') {
    case 'amount':
      return AMOUNT.test(value) ? undefined : 'Enter an amount such as 25000.00 (digits, an optional decimal point, no sign).';
    case 'currency':
      return /^[A-Z]{3}$/.test(value) ? undefined : 'Choose a currency.';
    case 'date':
      return DATE.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : 'Pick a date.';
    case 'email':
      return /^[^@\s]+@[^@\s]+$/.test(value) ? undefined : 'Enter an e-mail address.';
    case 'choice':
      return field.options?.includes(value) ? undefined : `Choose one of: ${(field.options ?? []).join(', ')}.`;
    default:
      return undefined;
  }
}

/** A step's requirement in words, for the graph and the move dialog. */
export function describeRequirement(requirement: RequirementBody): string {
  switch (requirement.kind) {
    case 'kyc-level': {
      const level = requirement.minimumLevel;
      return `KYC level ≥ ${String(level ?? '?')}`;
    }
    case 'classification': {
      const classes = requirement.classes;
      return `classification: ${Array.isArray(classes) ? classes.join(' or ') : 'listed classes'}`;
    }
    case 'no-pending-edit-requests':
      return 'no pending edit requests';
    case 'previous-fields-complete':
      return 'earlier fields complete';
    default:
      return requirement.kind;
  }
}
