// The workflow graph: validation of a workflow document (every problem at once), reachability,
// the steps between two steps, and the stable order in which steps are listed. Pure.
import type { FieldError } from './errors.ts';
import { investorCategories, isInvestorCategory } from './investor-category.ts';
import { fieldKinds, requirementKinds, stepTypes, type Link, type Requirement, type Step } from './workflow.ts';

export const STEP_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Adjacency of a set of links, both ways. Maps only: step ids are user input (`__proto__`…). */
export interface Graph {
  next: Map<string, string[]>;
  previous: Map<string, string[]>;
}

export function graphOf(stepIds: Iterable<string>, links: readonly Link[]): Graph {
  const next = new Map<string, string[]>();
  const previous = new Map<string, string[]>();
  for (const id of stepIds) {
    next.set(id, []);
    previous.set(id, []);
  }
  for (const link of links) {
    next.get(link.fromStepId)?.push(link.toStepId);
    previous.get(link.toStepId)?.push(link.fromStepId);
  }
  return { next, previous };
}

export const entryStepIds = (graph: Graph): string[] => [...graph.previous].filter(([, from]) => from.length === 0).map(([id]) => id);

/** Every step reachable from `start` by following links (`start` itself excluded). */
export function descendants(graph: Graph, start: string): Set<string> {
  return walk(graph.next, start);
}

/** Every step from which `start` is reachable (`start` itself excluded). */
export function ancestors(graph: Graph, start: string): Set<string> {
  return walk(graph.previous, start);
}

function walk(edges: Map<string, string[]>, start: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(edges.get(start) ?? [])];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(edges.get(id) ?? []));
  }
  return seen;
}

/** The steps of a cycle, when the links have one (Kahn's algorithm leaves them unsorted). */
export function cycleStepIds(graph: Graph): string[] {
  const indegree = new Map([...graph.previous].map(([id, from]) => [id, from.length]));
  const queue = [...indegree].filter(([, n]) => n === 0).map(([id]) => id);
  while (queue.length > 0) {
    const id = queue.shift()!;
    indegree.delete(id);
    for (const to of graph.next.get(id) ?? []) {
      const n = indegree.get(to);
      if (n === undefined) continue;
      indegree.set(to, n - 1);
      if (n - 1 === 0) queue.push(to);
    }
  }
  return [...indegree.keys()];
}

/**
 * Depth of every step: the length of the longest path from an entry step to it. Longest rather
 * than shortest, so a step is always listed after every step that links to it.
 */
export function depths(graph: Graph): Map<string, number> {
  const depth = new Map<string, number>();
  const visit = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    depth.set(id, 0); // guards against cycles, which a valid workflow does not have
    const from = graph.previous.get(id) ?? [];
    const value = from.length === 0 ? 0 : 1 + Math.max(...from.map(visit));
    depth.set(id, value);
    return value;
  };
  for (const id of graph.previous.keys()) visit(id);
  return depth;
}

/** Entry steps first, then by depth, then by label, then by id (so the order is total). */
export function orderSteps<S extends { id: string; label: string }>(steps: readonly S[], links: readonly Link[]): S[] {
  const depth = depths(
    graphOf(
      steps.map((s) => s.id),
      links,
    ),
  );
  const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...steps].sort((a, b) => depth.get(a.id)! - depth.get(b.id)! || compareText(a.label, b.label) || compareText(a.id, b.id));
}

/** A workflow document as the management API receives it (after schema validation). */
export interface WorkflowDocument {
  label: string;
  description: string;
  investorEngagementEnabled: boolean;
  steps: Step[];
  links: Link[];
}

const FIELD_KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** Every problem of a workflow document, each naming the field it is about; empty when valid. */
export function workflowProblems(doc: WorkflowDocument): FieldError[] {
  const problems: FieldError[] = [];
  const add = (field: string, detail: string) => problems.push({ in: 'body', field, detail });
  const ids = new Set<string>();
  doc.steps.forEach((step, i) => {
    if (!STEP_ID.test(step.id)) add(`steps.${i}.id`, 'must be 1 to 64 letters, digits, "-", "_", "." or ":"');
    if (ids.has(step.id)) add(`steps.${i}.id`, `step id "${step.id}" is used twice`);
    ids.add(step.id);
    if (!(stepTypes as readonly string[]).includes(step.type)) add(`steps.${i}.type`, `must be one of ${stepTypes.join(', ')}`);
    const keys = new Set<string>();
    step.stepFields.forEach((field, j) => {
      const at = `steps.${i}.stepFields.${j}`;
      if (!FIELD_KEY.test(field.fieldKey)) add(`${at}.fieldKey`, 'must start with a letter and hold up to 64 letters, digits, "_", "." or "-"');
      if (keys.has(field.fieldKey)) add(`${at}.fieldKey`, `field key "${field.fieldKey}" is used twice in this step`);
      keys.add(field.fieldKey);
      if (!(fieldKinds as readonly string[]).includes(field.kind)) add(`${at}.kind`, `must be one of ${fieldKinds.join(', ')}`);
      if (field.kind === 'choice' && (field.options === null || field.options.length === 0)) add(`${at}.options`, 'a choice field needs its options');
      if (field.kind !== 'choice' && field.options !== null) add(`${at}.options`, 'only choice fields have options');
    });
    step.requirements.forEach((requirement, j) => void requirementProblems(requirement, `steps.${i}.requirements.${j}`, add));
  });
  if (doc.steps.length === 0) add('steps', 'a workflow needs at least one step');

  const seenLinks = new Set<string>();
  doc.links.forEach((link, i) => {
    if (!ids.has(link.fromStepId)) add(`links.${i}.fromStepId`, `"${link.fromStepId}" is not a step of this workflow`);
    if (!ids.has(link.toStepId)) add(`links.${i}.toStepId`, `"${link.toStepId}" is not a step of this workflow`);
    if (link.fromStepId === link.toStepId) add(`links.${i}`, 'a step cannot link to itself');
    const key = JSON.stringify([link.fromStepId, link.toStepId]);
    if (seenLinks.has(key)) add(`links.${i}`, 'this link is listed twice');
    seenLinks.add(key);
  });

  const graph = graphOf(
    ids,
    doc.links.filter((l) => ids.has(l.fromStepId) && ids.has(l.toStepId) && l.fromStepId !== l.toStepId),
  );
  if (doc.steps.length > 0 && entryStepIds(graph).length === 0) add('links', 'no entry step: every step has an incoming link');
  const cycle = cycleStepIds(graph);
  if (cycle.length > 0) add('links', `the links form a cycle through ${cycle.map((id) => `"${id}"`).join(', ')}`);
  return problems;
}

function requirementProblems(requirement: Requirement, at: string, add: (field: string, detail: string) => void) {
  const kind = (requirement as { kind: string }).kind;
  if (!(requirementKinds as readonly string[]).includes(kind)) {
    add(`${at}.kind`, `must be one of ${requirementKinds.join(', ')}`);
    return;
  }
  if (requirement.kind === 'kyc-level' && !(Number.isInteger(requirement.minimumLevel) && requirement.minimumLevel >= 0)) {
    add(`${at}.minimumLevel`, 'a kyc-level requirement needs a whole minimumLevel of 0 or more');
  }
  if (requirement.kind === 'classification' && !(Array.isArray(requirement.classes) && requirement.classes.length > 0)) {
    add(`${at}.classes`, 'a classification requirement needs at least one class');
  }
  if (requirement.kind === 'investor-category') {
    const categories = requirement.categories;
    if (!(Array.isArray(categories) && categories.length > 0 && categories.every(isInvestorCategory))) {
      add(`${at}.categories`, `an investor-category requirement needs at least one of ${investorCategories.join(', ')}`);
    }
  }
}

export interface StepView extends Step {
  previousStepLinks: Link[];
  nextStepLinks: Link[];
}

/** The steps as getWorkflowStatus lists them: in the stable order, each with the links that touch it. */
export function stepViews(steps: readonly Step[], links: readonly Link[]): StepView[] {
  return orderSteps(steps, links).map((step) => ({
    ...step,
    previousStepLinks: links.filter((l) => l.toStepId === step.id),
    nextStepLinks: links.filter((l) => l.fromStepId === step.id),
  }));
}
