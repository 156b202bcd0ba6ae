// A deal's workflow: set by the management API (PUT, admin), read as getWorkflowStatus (workflow-status)
// by staff and by investors of the deal.
import { conflict, invalid, notFound } from '../domain/errors.ts';
import { isStaff, type Principal } from '../domain/principal.ts';
import { type StepView, stepViews, type WorkflowDocument, workflowProblems } from '../domain/workflow-graph.ts';
import type { Workflow } from '../domain/workflow.ts';
import { findDeal } from '../store/deals.ts';
import * as workflows from '../store/workflows.ts';
import { invalidateLocally, publishInvalidation } from './caches.ts';
import { recordWorkflowApplied, SYSTEM_PRINCIPAL } from './audit-entries.ts';
import { type Deps, inTransaction } from './deps.ts';
import { dealVisibleTo } from './investor-visibility.ts';
import {
  checkStepTriggersOfWorkflow,
  listWorkflowStepTriggers,
  saveStepTriggers,
  type StepTriggerView,
  type WorkflowStepTriggersInput,
} from './step-triggers.ts';

/** getWorkflowStatus's Workflow: the stored workflow with its steps ordered and linked. */
export interface WorkflowView extends Omit<Workflow, 'steps' | 'links'> {
  steps: (StepView & { workflowCustomStepTriggers?: StepTriggerView[] })[];
}

export const viewOf = ({ links, steps, ...workflow }: Workflow): WorkflowView => ({ ...workflow, steps: stepViews(steps, links) });

/** What the workflow cache holds per deal: the structure, and getWorkflowStatus's view of it. */
export interface CachedWorkflow {
  workflow: Workflow;
  view: WorkflowView;
  /** The view with the steps' webhook triggers, for staff; filled on first use. */
  adminView?: WorkflowView;
}

/**
 * The deal's workflow, from this instance's cache when it has it (caches.ts: dropped on every PUT
 * of the workflow, here and in other instances by NOTIFY). With `lock: 'share'` (moves) it takes
 * the workflow row FOR SHARE and trusts the cache only when its `version` is the row's: a move never
 * plans against a stale structure, whatever a notification's delay.
 */
export async function loadWorkflow(
  deps: Deps,
  dealId: string,
  /** `lockedVersion`: the caller already holds the row FOR SHARE, at this version. */
  options: { lock?: 'share'; lockedVersion?: number } = {},
): Promise<CachedWorkflow | undefined> {
  const cache = deps.caches?.workflows;
  const now = deps.clock().getTime();
  const cached = cache?.get(dealId, now) as CachedWorkflow | undefined;
  if (options.lock === 'share' || options.lockedVersion !== undefined) {
    const version = options.lockedVersion ?? (await workflows.lockWorkflowVersion(deps.db, dealId));
    if (version === undefined) return undefined;
    if (cached && cached.workflow.version === version) return cached;
  } else if (cached) {
    return cached;
  }
  const generation = cache?.generation ?? 0;
  const workflow = await workflows.findWorkflow(deps.db, dealId);
  if (!workflow) return undefined;
  const loaded = { workflow, view: viewOf(workflow) };
  cache?.set(dealId, loaded, now, generation);
  return loaded;
}

/**
 * The webhook triggers of each step that has some, as `workflowCustomStepTriggers`; for
 * staff only (the URLs are the platform's own systems). Steps without triggers stay as they were.
 */
async function withTriggers(deps: Deps, view: WorkflowView): Promise<WorkflowView> {
  const byStep = await listWorkflowStepTriggers(deps, view.dealId);
  if (byStep.size === 0) return view;
  return {
    ...view,
    steps: view.steps.map((step) => {
      const triggers = byStep.get(step.id);
      return triggers ? { ...step, workflowCustomStepTriggers: triggers } : step;
    }),
  };
}

/**
 * Sets the workflow of a deal (201 when it is the first, 200 when re-applied). Re-applying keeps
 * every journey valid: a step where an investor stands cannot be removed (409 naming them); other
 * removed steps are retired, so past events keep naming them.
 */
export async function putWorkflow(
  deps: Deps,
  dealId: string,
  doc: WorkflowDocument,
  triggers: WorkflowStepTriggersInput = [],
  principal: Principal = SYSTEM_PRINCIPAL,
  /** Old step id → step of this document, for removed steps investors stand on (kept with the version). */
  stepMapping: Record<string, string> = {},
): Promise<{ workflow: WorkflowView; created: boolean }> {
  const checkedTriggers = checkStepTriggersOfWorkflow(triggers);
  const newIds = new Set(doc.steps.map((s) => s.id));
  const mappingProblems = Object.entries(stepMapping)
    .filter(([, to]) => !newIds.has(to))
    .map(([from, to]) => ({ in: 'body' as const, field: `stepMapping.${from}`, detail: `"${to}" is not a step of this workflow` }));
  const problems = [...workflowProblems(doc), ...checkedTriggers.errors, ...mappingProblems];
  if (problems.length > 0) throw invalid(problems, `The workflow is not valid: ${problems.map((p) => `${p.field} ${p.detail}`).join('; ')}`);
  const result = await inTransaction(deps, async ({ db, clock, newId }) => {
    if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
    // The row lock orders this against moves of the deal's investors (they hold it FOR SHARE), so a
    // step cannot be retired under an investor who is moving onto it.
    const existing = await workflows.findWorkflow(db, dealId, { lock: 'update' });
    const ids = doc.steps.map((s) => s.id);
    const taken = await workflows.stepIdsOfOtherDeals(db, dealId, ids);
    if (taken.length > 0) throw conflict(`Step ids belong to another deal: ${taken.join(', ')}`, { stepIds: taken });
    const kept = new Set(ids);
    const removed = (existing?.steps ?? []).map((s) => s.id).filter((id) => !kept.has(id));
    // Investors on a removed step stay on their version; the step needs a mapping to migrate them.
    const unmapped = (await workflows.countInvestorsAtSteps(db, dealId, removed)).filter((s) => stepMapping[s.stepId] === undefined);
    if (unmapped.length > 0) {
      const standing = await workflows.investorsAtSteps(
        db,
        dealId,
        unmapped.map((s) => s.stepId),
      );
      throw conflict(
        `Investors stand on steps this workflow removes without a stepMapping: ${unmapped.map((s) => `${s.stepId} (${people(s.investors)})`).join(', ')}`,
        { steps: unmapped, investors: standing },
      );
    }
    const { notWritten } = await workflows.saveWorkflow(db, { id: existing?.id ?? newId(), dealId, ...doc }, clock());
    if (notWritten.length > 0) throw conflict(`Step ids belong to another deal: ${notWritten.join(', ')}`, { stepIds: notWritten });
    await saveStepTriggers({ db, clock, newId }, dealId, checkedTriggers.steps);
    const saved = await workflows.findWorkflow(db, dealId);
    await recordWorkflowApplied(db, principal, saved!, checkedTriggers.steps, clock());
    await workflows.saveWorkflowVersion(db, saved!, stepMapping, clock());
    await publishInvalidation(db, { kind: 'workflow', dealId });
    return { workflow: await withTriggers({ db, clock, newId }, viewOf(saved!)), created: existing === undefined };
  });
  invalidateLocally({ kind: 'workflow', dealId });
  return result;
}

const people = (n: number) => (n === 1 ? '1 investor' : `${n} investors`);

/**
 * A version of the deal's workflow as it was applied (versions never change, so this instance keeps
 * them as long as the cache's TTL allows, under their own key); undefined when there is no such version.
 */
export async function loadWorkflowVersion(deps: Deps, dealId: string, version: number): Promise<CachedWorkflow | undefined> {
  const cache = deps.caches?.workflows;
  const key = `${dealId}\u0000v${version}`;
  const now = deps.clock().getTime();
  const cached = cache?.get(key, now) as CachedWorkflow | undefined;
  if (cached) return cached;
  const generation = cache?.generation ?? 0;
  const found = await workflows.findWorkflowVersion(deps.db, dealId, version);
  if (!found) return undefined;
  const loaded = { workflow: found.workflow, view: viewOf(found.workflow) };
  cache?.set(key, loaded, now, generation);
  return loaded;
}

/** getWorkflowStatus (`version`: an older version, as it was applied). Investors may read the workflow of a deal they are in. */
export async function getWorkflowStatus(deps: Deps, principal: Principal, dealId: string, version?: number): Promise<WorkflowView> {
  // An investor may read the workflow of a deal they are in; any other deal is unknown to them.
  if (!(await dealVisibleTo(deps.db, principal, dealId))) throw notFound('deal', dealId);
  const workflow = await loadWorkflow(deps, dealId);
  if (!workflow) throw (await findDeal(deps.db, dealId)) ? notFound('workflow of deal', dealId) : notFound('deal', dealId);
  if (version !== undefined && version !== workflow.workflow.version) {
    const older = await loadWorkflowVersion(deps, dealId, version);
    if (!older) throw notFound('workflow version', String(version));
    return older.view;
  }
  if (!isStaff(principal)) return workflow.view;
  // Triggers are written only by putWorkflow, which drops the cached entry: safe to keep with it.
  workflow.adminView ??= await withTriggers(deps, workflow.view);
  return workflow.adminView;
}
