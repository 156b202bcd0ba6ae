// A deal's workflow: set by the management API (PUT, admin), read as endpoint 1 (workflow-status)
// by staff and by investors of the deal.
import { conflict, forbidden, invalid, notFound } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import { type StepView, stepViews, type WorkflowDocument, workflowProblems } from '../domain/workflow-graph.ts';
import type { Workflow } from '../domain/workflow.ts';
import { findDeal } from '../store/deals.ts';
import { findJourney } from '../store/journeys.ts';
import * as workflows from '../store/workflows.ts';
import { type Deps, inTransaction } from './deps.ts';

/** Endpoint 1's Workflow: the stored workflow with its steps ordered and linked. */
export interface WorkflowView extends Omit<Workflow, 'steps' | 'links'> {
  steps: StepView[];
}

export const viewOf = ({ links, steps, ...workflow }: Workflow): WorkflowView => ({ ...workflow, steps: stepViews(steps, links) });

/**
 * Sets the workflow of a deal (201 when it is the first, 200 when re-applied). Re-applying keeps
 * every journey valid: a step where an investor stands cannot be removed (409 naming them); other
 * removed steps are retired, so past events keep naming them.
 */
export async function putWorkflow(deps: Deps, dealId: string, doc: WorkflowDocument): Promise<{ workflow: WorkflowView; created: boolean }> {
  const problems = workflowProblems(doc);
  if (problems.length > 0) throw invalid(problems, `The workflow is not valid: ${problems.map((p) => `${p.field} ${p.detail}`).join('; ')}`);
  return inTransaction(deps, async ({ db, clock, newId }) => {
    if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
    // The row lock orders this against moves of the deal's investors (they hold it FOR SHARE), so a
    // step cannot be retired under an investor who is moving onto it.
    const existing = await workflows.findWorkflow(db, dealId, { lock: 'update' });
    const ids = doc.steps.map((s) => s.id);
    const taken = await workflows.stepIdsOfOtherDeals(db, dealId, ids);
    if (taken.length > 0) throw conflict(`Step ids belong to another deal: ${taken.join(', ')}`, { stepIds: taken });
    const kept = new Set(ids);
    const removed = (existing?.steps ?? []).map((s) => s.id).filter((id) => !kept.has(id));
    const standing = await workflows.investorsAtSteps(db, dealId, removed);
    if (standing.length > 0) {
      throw conflict(
        `Investors stand on steps this workflow removes: ${standing.map((s) => `${s.investorUserId} (at ${s.stepId})`).join(', ')}`,
        { investors: standing },
      );
    }
    const { notWritten } = await workflows.saveWorkflow(db, { id: existing?.id ?? newId(), dealId, ...doc }, clock());
    if (notWritten.length > 0) throw conflict(`Step ids belong to another deal: ${notWritten.join(', ')}`, { stepIds: notWritten });
    const saved = await workflows.findWorkflow(db, dealId);
    return { workflow: viewOf(saved!), created: existing === undefined };
  });
}

/** Endpoint 1. Investors may read the workflow of a deal they are in. */
export async function getWorkflowStatus(deps: Deps, principal: Principal, dealId: string): Promise<WorkflowView> {
  if (principal.role !== 'admin') {
    const journey = principal.investorUserId ? await findJourney(deps.db, dealId, principal.investorUserId) : undefined;
    if (!journey) throw forbidden('An investor may read the workflow of a deal they are in only');
  }
  const workflow = await workflows.findWorkflow(deps.db, dealId);
  if (workflow) return viewOf(workflow);
  throw (await findDeal(deps.db, dealId)) ? notFound('workflow of deal', dealId) : notFound('deal', dealId);
}
