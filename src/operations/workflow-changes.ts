// Four-eyes on workflow changes (docs/reference/approvals.md): with the deal's rule on
// (PUT /deals/deal/{dealId}/four-eyes, workflowChanges), replacing its workflow and migrating its
// journeys are held for a second admin: the write is tried (and undone), so one that would be
// refused now is refused now, then answered 202 with the proposal, nothing changed. The first
// workflow of a deal is set directly (there is nothing to replace yet), and a dry run of a
// migration is never held. The basis is the workflow's current version; approving applies the
// stored input through putWorkflow or migrateWorkflow (approvals.ts).
import type { WorkflowDocument } from '../domain/workflow-graph.ts';
import { lockWorkflowVersion } from '../store/workflows.ts';
import { undoneAfter } from '../store/savepoints.ts';
import { invalidateLocally } from './caches.ts';
import type { Deps } from './deps.ts';
import { fourEyesDeal } from './four-eyes.ts';
import { type Answer, answered, type WriteRequest, writeOutcome } from './pipeline.ts';
import { propose } from './proposals.ts';
import type { WorkflowStepTriggersInput } from './step-triggers.ts';
import { type MigrationInput, migrateWorkflow } from './workflow-migration.ts';
import { putWorkflow } from './workflows.ts';

/** A PUT of the workflow as the operation takes it: the document, each step's triggers, the mapping of removed steps. */
export interface WorkflowChangeInput {
  workflow: WorkflowDocument;
  triggers: WorkflowStepTriggersInput;
  stepMapping?: Record<string, string> | undefined;
}

/** What a held workflow change or migration was checked against: the workflow's current version (null: none). */
export const workflowBasis = async (tx: Deps, dealId: string): Promise<Record<string, unknown>> => ({
  version: (await lockWorkflowVersion(tx.db, dealId)) ?? null,
});

/** The change applied as given (directly, or an approved proposal), in the caller's transaction. */
export const applyWorkflowChange = (tx: Deps, request: Pick<WriteRequest, 'principal'>, dealId: string, input: WorkflowChangeInput) =>
  putWorkflow(tx, dealId, input.workflow, input.triggers, request.principal, input.stepMapping);

/** Whether the deal's rule holds its workflow changes for a second person. */
const held = async (tx: Deps, dealId: string): Promise<boolean> => (await fourEyesDeal(tx, [dealId], 'workflow-change')) !== undefined;

/** This instance's cached workflow dropped once the write committed (other instances: by NOTIFY). */
const droppingCache = (dealId: string) => (answer: Answer) => {
  invalidateLocally({ kind: 'workflow', dealId });
  return answer;
};

/** PUT /deals/deal/{dealId}/workflow: 201 the first, 200 re-applied, or 202 held for a second admin. */
export function setWorkflow(deps: Deps, request: WriteRequest, dealId: string, input: WorkflowChangeInput): Promise<Answer> {
  return writeOutcome(deps, request, async (tx) => {
    const basis = await workflowBasis(tx, dealId);
    if (basis.version !== null && (await held(tx, dealId))) {
      await undoneAfter(tx.db, () => applyWorkflowChange(tx, request, dealId, input));
      return { status: 202, value: await propose(tx, request.principal, { action: 'workflow-change', dealId, input: { ...input }, basis }) };
    }
    const { workflow, created } = await applyWorkflowChange(tx, request, dealId, input);
    return { status: created ? 201 : 200, value: workflow };
  }).then(droppingCache(dealId));
}

/** POST /deals/deal/{dealId}/workflow/migrate: 200 with the result (always for a dry run), or 202 held for a second admin. */
export async function migrateWorkflowHeld(deps: Deps, request: WriteRequest, dealId: string, input: MigrationInput): Promise<Answer> {
  if (request.dryRun) return answered(request, 200, await migrateWorkflow(deps, request.principal, dealId, input, { dryRun: true }));
  return writeOutcome(deps, request, async (tx) => {
    if (await held(tx, dealId)) {
      await undoneAfter(tx.db, () => migrateWorkflow(tx, request.principal, dealId, input, { dryRun: false }));
      const value = await propose(tx, request.principal, { action: 'workflow-migration', dealId, input: { ...input }, basis: await workflowBasis(tx, dealId) });
      return { status: 202, value };
    }
    return { status: 200, value: await migrateWorkflow(tx, request.principal, dealId, input, { dryRun: false }) };
  });
}
