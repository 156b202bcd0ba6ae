// Values of step fields as the console checks them before the service does and shows them once
// captured, and requirements in words.
import type { RequirementBody, StepField } from './api.ts';
import { isDecimalNumber, NUMBER_MAX_DIGITS, valueProblem } from '../../../../src/domain/field-value.ts';
import { formatAmount, minorUnits } from './format.ts';

/**
 * Why a value does not fit its field's kind, or undefined when it does (or is empty). Whether it
 * fits is the service's own rule (src/domain/field-value.ts, pure and bundled here), so the console
 * never sends what the service refuses nor refuses what it takes; only the words are the console's.
 */
export function checkValue(field: StepField, value: string): string | undefined {
  if (value === '') return undefined;
  const kind = field.kind ?? 'text';
  if (valueProblem({ kind, options: field.options ?? null }, value) === undefined) return undefined;
  switch (kind) {
    case 'amount':
      return 'Enter an amount such as 25000.00 (digits, an optional decimal point, no sign, no leading zero).';
    case 'currency':
      return 'Choose a currency.';
    case 'date':
      return 'Pick a date.';
    case 'email':
      return 'Enter an e-mail address.';
    case 'choice':
      return `Choose one of: ${(field.options ?? []).join(', ')}.`;
    case 'number':
      return `Enter a number such as 12, -3.5 or 0.25 (digits, an optional minus sign and decimal point, at most ${NUMBER_MAX_DIGITS} digits).`;
    default:
      return undefined;
  }
}

/**
 * A captured value for reading: an amount grouped and padded to its currency's minor units, a number
 * grouped with exactly the digits it has and no currency (both as strings: never through a float);
 * any other kind, or a value that does not fit its kind, as it is.
 */
export function formatFieldValue(field: Pick<StepField, 'kind'> | undefined, value: string, currency?: string | null): string {
  switch (field?.kind) {
    case 'amount':
      return /^\d+(\.\d+)?$/.test(value) ? formatAmount(value, currency === undefined ? undefined : minorUnits(currency)) : value;
    case 'number':
      return isDecimalNumber(value) ? formatAmount(value) : value;
    default:
      return value;
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
    case 'investor-category': {
      const categories = requirement.categories;
      return `a current category statement: ${Array.isArray(categories) ? categories.join(' or ') : 'listed categories'}`;
    }
    case 'no-pending-edit-requests':
      return 'no pending edit requests';
    case 'previous-fields-complete':
      return 'earlier fields complete';
    case 'signed-agreement':
      return 'subscription agreement signed and countersigned';
    default:
      return requirement.kind;
  }
}
