// POST /deals/deal/{dealId}/workflow/migrate (admin): journeys of older workflow versions onto the
// current one (operations/workflow-migration.ts).
import { Type } from 'typebox';
import { misfitReasons } from '../../domain/workflow-migration.ts';
import { migrateWorkflowHeld } from '../../operations/workflow-changes.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { Approval } from '../schemas/approvals.ts';
import { answer, writeOf } from '../writes.ts';
import { ExternalId, StrictObject } from '../schemas/common.ts';
import { StepMapping } from '../schemas/workflow.ts';

const MigrationResult = Type.Object(
  {
    dryRun: Type.Boolean(),
    toVersion: Type.Integer({ description: 'the current version, which the journeys move onto' }),
    stepMapping: Type.Record(Type.String(), Type.String(), { description: "the mapping applied: the version's own (named by its PUT), the request's on top" }),
    journeys: Type.Integer({ description: 'journeys on older versions when the run started' }),
    migrated: Type.Integer({ description: 'journeys moved onto the current version, one event each (dryRun: that would be)' }),
    notFitting: Type.Array(
      Type.Object({
        investorUserId: Type.String(),
        workflowVersion: Type.Integer({ description: 'the version the journey stays on' }),
        fromStepId: Type.String(),
        toStepId: Type.Union([Type.String(), Type.Null()], { description: 'where the mapping would put it; null: nowhere' }),
        reason: Type.Union([Type.Literal(misfitReasons[0]), Type.Literal(misfitReasons[1]), Type.Literal(misfitReasons[2])], {
          description: misfitReasons.join(', '),
        }),
        fields: Type.Array(Type.String(), { description: 'missing-fields / invalid-data: the field keys' }),
        detail: Type.String(),
      }),
      { description: 'every journey whose position or captured data does not fit the current version; they stay on theirs' },
    ),
  },
  { title: 'WorkflowMigrationResult' },
);

export function workflowMigrationRoutes(app: Api, ctx: AppContext) {
  app.post(
    '/deals/deal/:dealId/workflow/migrate',
    {
      schema: {
        tags: ['management'],
        summary: 'Move the journeys of older workflow versions onto the current one',
        description:
          'Each journey on an older version goes to `stepMapping[its step]`, or stays on its step when the current version has it, as one ' +
          'Workflow Event (data empty, from its step to the new one). A journey whose new step requires fields it never captured, or ' +
          'whose captured values no longer fit the fields, stays on its version and is listed in `notFitting`. A step of an older version ' +
          'that the current one lacks, with investors on it and no mapping: 409 naming each step and the count (the dry run lists them). ' +
          "?dryRun=true: the same answer, nothing written. With the deal's four-eyes rule workflowChanges on (PUT /deals/deal/{dealId}/four-eyes), " +
          'a migration (not a dry run) is held for a second admin: 202 with the proposal, no journey moved.',
        params: Type.Object({ dealId: ExternalId }),
        querystring: Type.Object({ dryRun: Type.Optional(Type.Boolean({ description: 'true: decide every journey and write nothing' })) }),
        headers: IdempotencyHeaders,
        body: StrictObject({ stepMapping: Type.Optional(StepMapping) }),
        response: { 200: MigrationResult, 202: Approval },
      },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) =>
      answer(
        reply,
        await migrateWorkflowHeld(ctx, writeOf(ctx, request, undefined, { dryRun: request.query.dryRun === true }), request.params.dealId, request.body),
      ),
  );
}
