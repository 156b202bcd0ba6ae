// The workflow editor's document: the body PUT /deals/deal/{dealId}/workflow takes, made from the
// workflow as it stands, checked by the service, and drawn as a preview graph.
import { ApiError, type RequirementBody, type Workflow, type WorkflowCheck, type WorkflowDocument } from './api.ts';

export type Doc = WorkflowDocument;
/** A link of the document: from a step to a step, and whether investors may take it themselves. */
export type DocLink = Doc['links'][number];
export type DocStep = Doc['steps'][number];
type TriggerEvents = NonNullable<NonNullable<DocStep['triggers']>[number]['events']>;
/**
 * Event names as typed in the editor or read back from the service (where they are strings): the
 * service checks them on save, and a name it does not know comes back as a 400 beside the field.
 */
export const triggerEvents = (events: string[]) => events as TriggerEvents;

/** The body sent to the service: a link's `investorMay` only when it is true (false is its default). */
export const toBody = (doc: Doc): WorkflowDocument => ({
  ...doc,
  links: doc.links.map(({ investorMay, ...link }) => (investorMay ? { ...link, investorMay: true } : link)),
});
export type Problem = WorkflowCheck['problems'][number];

/** What the graph draws of a step: a saved workflow's steps, or the editor's draft. */
export interface GraphStep {
  id: string;
  label: string;
  type: string;
  stepFields: { fieldKey: string; required: boolean; kind?: string | null; label?: string | null }[];
  nextStepLinks: { toStepId: string }[];
  requirements?: RequirementBody[];
  formId?: string | null;
  workflowCustomStepTriggers?: unknown[];
}

export const slug = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40) || 'step';

export const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function toDoc(workflow: Workflow | undefined, dealName: string): Doc {
  if (!workflow || workflow.steps.length === 0) {
    return { label: `${dealName} workflow`, description: '', investorEngagementEnabled: true, steps: [], links: [] };
  }
  return {
    label: workflow.label,
    description: workflow.description,
    investorEngagementEnabled: workflow.investorEngagementEnabled,
    steps: workflow.steps.map((s) => ({
      id: s.id,
      label: s.label,
      type: s.type,
      stepFields: s.stepFields.map((f) => ({
        fieldKey: f.fieldKey,
        required: f.required,
        kind: f.kind ?? 'text',
        label: f.label ?? null,
        options: f.options ?? null,
      })),
      requirements: (s.requirements ?? []).map((r) => ({
        kind: r.kind,
        ...(typeof r.minimumLevel === 'number' ? { minimumLevel: r.minimumLevel } : {}),
        ...(Array.isArray(r.classes) ? { classes: r.classes } : {}),
      })),
      formId: s.formId ?? null,
      triggers: (s.workflowCustomStepTriggers ?? []).map((t) => ({
        kind: 'webhook' as const,
        url: t.url,
        ...(t.events ? { events: triggerEvents(t.events) } : {}),
      })),
    })),
    // investorMay is kept as it is, so that saving the document from the editor does not close links.
    links: workflow.steps.flatMap((s) => s.nextStepLinks.map((l) => ({ fromStepId: l.fromStepId, toStepId: l.toStepId, investorMay: l.investorMay ?? false }))),
  };
}

/** A 400 from the body schema, in the check's shape (`/steps/0/label` → `steps.0.label`). */
export function schemaProblems(error: unknown): WorkflowCheck | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const errors = Array.isArray(error.problem.errors) ? (error.problem.errors as { field?: string; detail?: string }[]) : [];
  return {
    valid: false,
    investors: 0,
    problems: (errors.length ? errors : [{ field: '', detail: error.message }]).map((e) => ({
      in: 'body',
      field: String(e.field ?? '')
        .replace(/^\//, '')
        .replace(/\//g, '.'),
      detail: String(e.detail ?? error.message),
    })),
    changes: [],
  };
}

/** The check's problems about one step: its own fields, and the links that leave it. */
export function problemsOf(doc: Doc, check: WorkflowCheck | undefined, index: number): Problem[] {
  const id = doc.steps[index]?.id;
  return (check?.problems ?? []).filter((p) => {
    if (p.field === `steps.${index}` || p.field.startsWith(`steps.${index}.`)) return true;
    const link = /^links\.(\d+)/.exec(p.field);
    return link ? doc.links[Number(link[1])]?.fromStepId === id : false;
  });
}

/** The document as the graph draws it: each step with the links that leave it. */
export const previewSteps = (doc: Doc): GraphStep[] =>
  doc.steps.map((s) => ({
    id: s.id,
    label: s.label || '(no name)',
    type: s.type,
    stepFields: s.stepFields.map((f) => ({ fieldKey: f.fieldKey || '?', required: f.required, kind: f.kind ?? 'text', label: f.label ?? null })),
    requirements: s.requirements ?? [],
    formId: s.formId ?? null,
    workflowCustomStepTriggers: s.triggers ?? [],
    nextStepLinks: doc.links.filter((l) => l.fromStepId === s.id),
  }));

/** A check problem in the editor's words (links named by their steps rather than their index). */
export function describeProblem(problem: { field: string; detail: string }, doc: Doc) {
  const link = /^links\.(\d+)/.exec(problem.field);
  if (link) {
    const l = doc.links[Number(link[1])];
    const name = (id: string | undefined) => doc.steps.find((s) => s.id === id)?.label ?? id;
    if (l) return `Link to ${name(l.toStepId)}: ${problem.detail}`;
  }
  const field = /^steps\.\d+\.stepFields\.(\d+)/.exec(problem.field);
  if (field) return `Field ${Number(field[1]) + 1}: ${problem.detail}`;
  const requirement = /^steps\.\d+\.requirements\.(\d+)/.exec(problem.field);
  if (requirement) return `Requirement ${Number(requirement[1]) + 1}: ${problem.detail}`;
  const trigger = /^steps\.\d+\.triggers\.(\d+)/.exec(problem.field);
  if (trigger) return `Trigger ${Number(trigger[1]) + 1}: ${problem.detail}`;
  return problem.detail;
}

/** The type a new step's name suggests: "Complete", "Closed", "Funded" end well; "Withdrawn", "Declined" end otherwise. */
export function inferStepType(label: string): DocStep['type'] {
  const name = label.toLowerCase();
  if (/\b(withdrawn?|withdrew|declined?|rejected|cancell?ed|dropped|lost|abandoned)\b/.test(name)) return 'withdrawn';
  if (/\b(complete[d]?|closed?|done|finished|settled)\b/.test(name)) return 'complete';
  return 'default';
}

/** A typical subscription: invited, KYC, commitment with its amount and currency, signature, funds received, then complete; withdrawal from any step before completion. */
export function subscriptionTemplate(dealId: string, dealName: string): Doc {
  const id = (name: string) => `${dealId}:${name}`.slice(0, 64);
  const step = (
    name: string,
    label: string,
    type: DocStep['type'],
    stepFields: DocStep['stepFields'] = [],
    requirements: DocStep['requirements'] = [],
  ): DocStep => ({
    id: id(name),
    label,
    type,
    stepFields,
    requirements,
    formId: null,
    triggers: [],
  });
  const field = (fieldKey: string, label: string, kind: DocStep['stepFields'][number]['kind'], required = true) => ({
    fieldKey,
    label,
    kind,
    required,
    options: null,
  });
  const steps = [
    step('invited', 'Invited', 'default'),
    step('kyc', 'KYC', 'default', [], [{ kind: 'kyc-level', minimumLevel: 1 }]),
    step(
      'commitment',
      'Commitment',
      'default',
      [field('committed_amount', 'Committed amount', 'amount'), field('currency', 'Currency', 'currency')],
      [{ kind: 'no-pending-edit-requests' }],
    ),
    step('signed', 'Signed', 'default', [field('signed_on', 'Signed on', 'date')], [{ kind: 'previous-fields-complete' }]),
    step('funded', 'Funded', 'default', [field('funds_received_on', 'Funds received on', 'date')]),
    step('complete', 'Complete', 'complete'),
    step('withdrawn', 'Withdrawn', 'withdrawn', [field('reason', 'Reason', 'text', false)]),
  ];
  const line = ['invited', 'kyc', 'commitment', 'signed', 'funded', 'complete'];
  const links = [
    ...line.slice(1).map((to, i) => ({ fromStepId: id(line[i]!), toStepId: id(to) })),
    ...line.slice(0, -1).map((from) => ({ fromStepId: id(from), toStepId: id('withdrawn') })),
  ];
  return {
    label: `${dealName} subscription`,
    description: 'Invited, KYC, commitment, signature, funds received, complete; withdrawal possible before completion.',
    investorEngagementEnabled: true,
    steps,
    links,
  };
}
