// Browser-safe: the console and the investor portal import this module (rules in .dependency-cruiser.cjs:
// no Node built-in, and of ours only other browser-safe modules).
// The workflow of a deal: a DAG of steps joined by links. Types and closed vocabularies; the graph
// rules and the jump rules live beside this file.

export const stepTypes = ['default', 'complete', 'withdrawn'] as const;
export type StepType = (typeof stepTypes)[number];

/** Value kinds of step fields (our extension; `text` when absent). Values are strings on the wire. */
export const fieldKinds = ['text', 'amount', 'currency', 'date', 'email', 'choice', 'number'] as const;
export type FieldKind = (typeof fieldKinds)[number];

export const requirementKinds = [
  'kyc-level',
  'classification',
  'investor-category',
  'no-pending-edit-requests',
  'previous-fields-complete',
  'signed-agreement',
] as const;
export type RequirementKind = (typeof requirementKinds)[number];

export type Requirement =
  /** The investor's kycCheckLevel is at least `minimumLevel`. */
  | { kind: 'kyc-level'; minimumLevel: number }
  /** The investor holds one of these investor classes (classification `investorClass`). */
  | { kind: 'classification'; classes: string[] }
  /** The investor's newest category statement is one of these and has not expired (investor-category.ts). */
  | { kind: 'investor-category'; categories: string[] }
  /** No edit request of this investor in this deal is pending. */
  | { kind: 'no-pending-edit-requests' }
  /** Every required field of every step on the investor's path so far is captured. */
  | { kind: 'previous-fields-complete' }
  /** The investor's subscription agreement in the deal is signed by them and countersigned (docs/reference/signature-format.md). */
  | { kind: 'signed-agreement' };

/** Where an investor's subscription agreement stands: to sign, signed by the investor, countersigned. */
export type AgreementState = 'to-sign' | 'signed' | 'countersigned';

/** Whether a move into the step needs the subscription agreement signed and countersigned. */
export const requiresSignedAgreement = (step: Pick<Step, 'requirements'>): boolean => step.requirements.some((r) => r.kind === 'signed-agreement');

export interface StepField {
  fieldKey: string;
  required: boolean;
  kind: FieldKind;
  label: string | null;
  /** Allowed values of a `choice` field. */
  options: string[] | null;
}

export interface Step {
  id: string;
  label: string;
  type: StepType;
  stepFields: StepField[];
  requirements: Requirement[];
  formId: string | null;
}

export interface Link {
  fromStepId: string;
  toStepId: string;
  /** The investor may move themselves along this link (when the workflow has investorEngagementEnabled). */
  investorMay: boolean;
}

export interface Workflow {
  id: string;
  dealId: string;
  label: string;
  description: string;
  investorEngagementEnabled: boolean;
  /** Incremented every time the workflow is set. */
  version: number;
  /** Live steps, in document order. */
  steps: Step[];
  links: Link[];
}
