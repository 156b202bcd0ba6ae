// What re-applying a deal's workflow changes for the investors already on it: compares the stored
// workflow with a proposed document, step by step and link by link, with the number of investors
// standing on each step. Pure: the console shows it before the workflow is saved.
import type { Link, Step, Workflow } from './workflow.ts';
import type { WorkflowDocument } from './workflow-graph.ts';

export const workflowChangeKinds = [
  'step-added',
  'step-removed',
  'step-renamed',
  'step-type-changed',
  'field-added',
  'field-removed',
  'field-now-required',
  'requirements-changed',
  'link-added',
  'link-removed',
  'link-opened-to-investors',
  'link-closed-to-investors',
] as const;
export type WorkflowChangeKind = (typeof workflowChangeKinds)[number];

export interface WorkflowChange {
  kind: WorkflowChangeKind;
  stepId: string;
  /** Investors standing on the step (for links: on the step the link leaves). */
  investors: number;
  /** True when the save will be refused because of this change (investors on a removed step). */
  blocking: boolean;
  detail: string;
}

const linkKey = (l: Link) => `${l.fromStepId}\u0000${l.toStepId}`;
const people = (n: number) => (n === 1 ? '1 investor' : `${n} investors`);

export function workflowChanges(before: Workflow | undefined, after: WorkflowDocument, investorsAt: ReadonlyMap<string, number>): WorkflowChange[] {
  if (!before) return [];
  const changes: WorkflowChange[] = [];
  const at = (stepId: string) => investorsAt.get(stepId) ?? 0;
  const add = (kind: WorkflowChangeKind, stepId: string, detail: string, blocking = false) =>
    changes.push({ kind, stepId, investors: at(stepId), blocking, detail });
  const old = new Map(before.steps.map((s) => [s.id, s]));
  const next = new Map(after.steps.map((s) => [s.id, s]));
  const labelOf = (id: string) => next.get(id)?.label ?? old.get(id)?.label ?? id;

  for (const step of before.steps) {
    if (next.has(step.id)) continue;
    const n = at(step.id);
    add(
      'step-removed',
      step.id,
      n > 0
        ? `${step.label} is removed but ${people(n)} stand on it: move them first (the save is refused)`
        : `${step.label} is removed; no investor stands on it, and the journeys that passed through it keep their history`,
      n > 0,
    );
  }
  for (const step of after.steps) {
    const was = old.get(step.id);
    if (!was) {
      add('step-added', step.id, `${step.label} is new`);
      continue;
    }
    stepChanges(was, step, at(step.id), (kind, detail) => add(kind, step.id, detail));
  }
  const oldLinks = new Set(before.links.map(linkKey));
  const newLinks = new Set(after.links.map(linkKey));
  for (const link of before.links) {
    if (newLinks.has(linkKey(link)) || !next.has(link.fromStepId) || !next.has(link.toStepId)) continue;
    const n = at(link.fromStepId);
    add(
      'link-removed',
      link.fromStepId,
      `${labelOf(link.fromStepId)} no longer leads to ${labelOf(link.toStepId)}${n > 0 ? `: ${people(n)} there lose that way forward` : ''}`,
    );
  }
  const oldOpen = new Map(before.links.map((l) => [linkKey(l), l.investorMay === true]));
  for (const link of after.links) {
    const wasOpen = oldOpen.get(linkKey(link));
    if (wasOpen !== undefined && wasOpen !== link.investorMay) {
      const n = at(link.fromStepId);
      add(
        link.investorMay ? 'link-opened-to-investors' : 'link-closed-to-investors',
        link.fromStepId,
        link.investorMay
          ? `Investors at ${labelOf(link.fromStepId)} may move themselves on to ${labelOf(link.toStepId)}${before.investorEngagementEnabled || after.investorEngagementEnabled ? '' : ' (once investor engagement is enabled)'}${n > 0 ? `: ${people(n)} stand there` : ''}`
          : `Investors at ${labelOf(link.fromStepId)} no longer move themselves on to ${labelOf(link.toStepId)}; staff still may${n > 0 ? ` (${people(n)} stand there)` : ''}`,
      );
    }
  }
  for (const link of after.links) {
    if (oldLinks.has(linkKey(link)) || !old.has(link.fromStepId) || !old.has(link.toStepId)) continue;
    const n = at(link.fromStepId);
    add(
      'link-added',
      link.fromStepId,
      `${labelOf(link.fromStepId)} now leads to ${labelOf(link.toStepId)}${n > 0 ? `: ${people(n)} there may move on that way` : ''}`,
    );
  }
  return changes;
}

function stepChanges(was: Step, now: WorkflowDocument['steps'][number], n: number, add: (kind: WorkflowChangeKind, detail: string) => void) {
  const here = n > 0 ? ` (${people(n)} stand on it)` : '';
  if (was.label !== now.label) add('step-renamed', `${was.label} is renamed ${now.label}${here}`);
  if (was.type !== now.type) {
    add(
      'step-type-changed',
      `${now.label} changes from ${was.type} to ${now.type}${n > 0 ? `: ${people(n)} there now count as ${now.type === 'default' ? 'in progress' : now.type}` : ''}`,
    );
  }
  const oldFields = new Map(was.stepFields.map((f) => [f.fieldKey, f]));
  const newKeys = new Set(now.stepFields.map((f) => f.fieldKey));
  for (const field of now.stepFields) {
    const before = oldFields.get(field.fieldKey);
    if (!before) {
      add(
        'field-added',
        `${now.label} asks for ${field.label || field.fieldKey}${field.required ? ' (required)' : ''} from now on; investors already past it are not asked again`,
      );
    } else if (field.required && !before.required) {
      add(
        'field-now-required',
        `${field.label || field.fieldKey} becomes required on ${now.label}: moves into it from now on need it; investors already there keep their data`,
      );
    }
  }
  for (const field of was.stepFields) {
    if (!newKeys.has(field.fieldKey))
      add('field-removed', `${now.label} no longer asks for ${field.label || field.fieldKey}; values already captured are kept in the events`);
  }
  if (JSON.stringify(was.requirements) !== JSON.stringify(now.requirements)) {
    add(
      'requirements-changed',
      `The requirements to enter ${now.label} change: they apply to moves from now on${n > 0 ? `; the ${people(n)} already there stay` : ''}`,
    );
  }
}
