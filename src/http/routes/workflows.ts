// PUT /deals/deal/{dealId}/workflow (management API, admin) and getWorkflowStatus, workflow-status.
import { Type } from 'typebox';
import type { Requirement } from '../../domain/workflow.ts';
import type { WorkflowDocument } from '../../domain/workflow-graph.ts';
import { getWorkflowStatus } from '../../operations/workflows.ts';
import { setWorkflow, type WorkflowChangeInput } from '../../operations/workflow-changes.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { isStaff } from '../../domain/principal.ts';
import { serialisedBodies } from '../json-text.ts';
import { etagOf, holdsVersion, sendVersioned } from '../etag.ts';
import { ConditionalHeaders, NotModified } from '../schemas/conditional.ts';
import { ExternalId } from '../schemas/common.ts';
import { Workflow, WorkflowBody } from '../schemas/workflow.ts';
import { Approval } from '../schemas/approvals.ts';
import { answer, writeOf } from '../writes.ts';

const Params = Type.Object({ dealId: ExternalId });

/** Only the members of the requirement's kind are kept; a missing one is reported by the domain. */
function toRequirement(r: { kind: string; minimumLevel?: number; classes?: string[]; categories?: string[] }): Requirement {
  if (r.kind === 'kyc-level') return { kind: 'kyc-level', minimumLevel: r.minimumLevel as number };
  if (r.kind === 'classification') return { kind: 'classification', classes: r.classes as string[] };
  if (r.kind === 'investor-category') return { kind: 'investor-category', categories: r.categories as string[] };
  return { kind: r.kind } as Requirement;
}

/** Each step's triggers, which the workflow document does not carry. */
export const triggersOf = (body: WorkflowBody) => body.steps.map((step) => ({ id: step.id, triggers: step.triggers }));

/** Optional members get their defaults; requirement members are checked by the domain. */
export const toDocument = (body: WorkflowBody): WorkflowDocument => ({
  label: body.label,
  description: body.description,
  investorEngagementEnabled: body.investorEngagementEnabled,
  steps: body.steps.map((step) => ({
    id: step.id,
    label: step.label,
    type: step.type as WorkflowDocument['steps'][number]['type'],
    stepFields: step.stepFields.map((f) => ({
      fieldKey: f.fieldKey,
      required: f.required,
      kind: (f.kind ?? 'text') as WorkflowDocument['steps'][number]['stepFields'][number]['kind'],
      label: f.label ?? null,
      options: f.options ?? null,
    })),
    requirements: (step.requirements ?? []).map(toRequirement),
    formId: step.formId ?? null,
  })),
  links: body.links.map((l) => ({ fromStepId: l.fromStepId, toStepId: l.toStepId, investorMay: l.investorMay ?? false })),
});

/** The PUT's body as the operation takes it. */
const changeOf = (body: WorkflowBody): WorkflowChangeInput => ({ workflow: toDocument(body), triggers: triggersOf(body), stepMapping: body.stepMapping });

export function workflowRoutes(app: Api, ctx: AppContext) {
  const workflowBody = serialisedBodies();
  app.put(
    '/deals/deal/:dealId/workflow',
    {
      schema: {
        tags: ['management'],
        summary: "Set a deal's workflow (201 the first time, 200 when re-applied, 202 when held for a second admin)",
        description:
          'Step ids are chosen by the caller and belong to one deal. Every PUT makes a new version; investors already on the workflow stay on theirs until migrated (POST …/workflow/migrate). Removing a step where investors stand is a 409 naming the step and the count, unless `stepMapping` says where a migration puts them; other removed steps are retired. ' +
          "With the deal's four-eyes rule workflowChanges on (PUT /deals/deal/{dealId}/four-eyes), replacing a workflow is held for a second admin: " +
          '202 with the proposal, nothing changed (the first workflow of a deal is set at once).',
        params: Params,
        headers: IdempotencyHeaders,
        body: WorkflowBody,
        response: { 200: Workflow, 201: Workflow, 202: Approval },
      },
    },
    async (request, reply) => answer(reply, await setWorkflow(ctx, writeOf(ctx, request), request.params.dealId, changeOf(request.body))),
  );

  app.get(
    '/deals/deal/:dealId/workflow-status',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['journeys'],
        summary: 'Load Workflow Structure',
        description:
          'Steps in a stable order: entry steps first, then by depth (longest path from an entry step), then by label. `version`: an older version of the workflow, as it was applied (404 when the deal never had it).',
        params: Params,
        querystring: Type.Object({ version: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })) }),
        headers: ConditionalHeaders,
        response: { 200: Workflow, 304: NotModified },
      },
    },
    // The views come from the workflow cache and are never changed: each is serialised once, and the
    // text goes when the cache drops the view (a PUT of the workflow here or in another instance).
    // The ETag is the version shown, and whose view it is (staff see the steps' triggers).
    async (request, reply) => {
      const principal = principalOf(request);
      const view = await getWorkflowStatus(ctx, principal, request.params.dealId, request.query.version);
      const prefix = isStaff(principal) ? 'wa' : 'w';
      const held = holdsVersion(request, prefix, view.version);
      return sendVersioned(reply, etagOf(prefix, view.version), held ? undefined : workflowBody(reply, view), held);
    },
  );
}
