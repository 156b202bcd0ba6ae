// Workflows, their steps and links. Steps keep their caller-supplied ids; a step dropped from a
// re-applied workflow is retired (retired_at), never deleted, because past events name it.
import type { Kysely, Selectable } from 'kysely';
import type { Link, Requirement, Step, StepField, StepType, Workflow } from '../domain/workflow.ts';
import type { DB, WorkflowStepsTable } from './schema.ts';

export interface StoredStep extends Step {
  dealId: string;
  retired: boolean;
}

const toStep = (row: Selectable<WorkflowStepsTable>): StoredStep => ({
  id: row.id,
  dealId: row.deal_id,
  label: row.label,
  type: row.type as StepType,
  stepFields: row.fields as StepField[],
  requirements: row.requirements as Requirement[],
  formId: row.form_id,
  retired: row.retired_at !== null,
});

/** The deal's workflow with its live steps (document order) and links, or undefined. */
export async function findWorkflow(db: Kysely<DB>, dealId: string, options: { lock?: 'share' | 'update' } = {}): Promise<Workflow | undefined> {
  let query = db.selectFrom('workflows').selectAll().where('deal_id', '=', dealId);
  if (options.lock === 'share') query = query.forShare();
  if (options.lock === 'update') query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const [steps, links] = await Promise.all([
    db.selectFrom('workflow_steps').selectAll().where('deal_id', '=', dealId).where('retired_at', 'is', null).orderBy('position').execute(),
    db
      .selectFrom('workflow_links')
      .select(['from_step_id', 'to_step_id', 'investor_may'])
      .where('deal_id', '=', dealId)
      .orderBy('from_step_id')
      .orderBy('to_step_id')
      .execute(),
  ]);
  return {
    id: row.id,
    dealId: row.deal_id,
    label: row.label,
    description: row.description,
    investorEngagementEnabled: row.investor_engagement_enabled,
    version: row.version,
    steps: steps.map(({ ...r }) => {
      const { dealId: _d, retired: _r, ...step } = toStep(r);
      return step;
    }),
    links: links.map((l) => ({ fromStepId: l.from_step_id, toStepId: l.to_step_id, investorMay: l.investor_may })),
  };
}

/** Takes the workflow row FOR SHARE and returns its version; undefined when the deal has none. */
export async function lockWorkflowVersion(db: Kysely<DB>, dealId: string): Promise<number | undefined> {
  const row = await db.selectFrom('workflows').select('version').where('deal_id', '=', dealId).forShare().executeTakeFirst();
  return row?.version;
}

/** One step by id, retired or not, with the deal it belongs to. */
export async function findStep(db: Kysely<DB>, stepId: string): Promise<StoredStep | undefined> {
  const row = await db.selectFrom('workflow_steps').selectAll().where('id', '=', stepId).executeTakeFirst();
  return row ? toStep(row) : undefined;
}

/** Steps of these ids that belong to another deal. */
export async function stepIdsOfOtherDeals(db: Kysely<DB>, dealId: string, stepIds: string[]): Promise<string[]> {
  if (stepIds.length === 0) return [];
  const rows = await db.selectFrom('workflow_steps').select('id').where('id', 'in', stepIds).where('deal_id', '<>', dealId).execute();
  return rows.map((r) => r.id);
}

/** Investors of the deal who currently stand at one of these steps. */
export async function investorsAtSteps(db: Kysely<DB>, dealId: string, stepIds: string[]): Promise<{ investorUserId: string; stepId: string }[]> {
  if (stepIds.length === 0) return [];
  const rows = await db
    .selectFrom('journeys')
    .select(['investor_user_id', 'current_step_id'])
    .where('deal_id', '=', dealId)
    .where('current_step_id', 'in', stepIds)
    .orderBy('investor_user_id')
    .limit(1000)
    .execute();
  return rows.map((r) => ({ investorUserId: r.investor_user_id, stepId: r.current_step_id }));
}

export interface WorkflowRecord {
  id: string;
  dealId: string;
  label: string;
  description: string;
  investorEngagementEnabled: boolean;
  steps: Step[];
  links: Link[];
}

/**
 * Writes the workflow (insert or update, version + 1), upserts its steps (reviving a retired one
 * that comes back), retires live steps it no longer has, and replaces its links. The caller holds
 * the workflow row lock and has checked that no investor stands on a step being retired.
 */
export async function saveWorkflow(db: Kysely<DB>, workflow: WorkflowRecord, now: Date): Promise<{ notWritten: string[] }> {
  await db
    .insertInto('workflows')
    .values({
      deal_id: workflow.dealId,
      id: workflow.id,
      label: workflow.label,
      description: workflow.description,
      investor_engagement_enabled: workflow.investorEngagementEnabled,
      version: 1,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.column('deal_id').doUpdateSet((eb) => ({
        label: workflow.label,
        description: workflow.description,
        investor_engagement_enabled: workflow.investorEngagementEnabled,
        version: eb('workflows.version', '+', 1),
        updated_at: now,
      })),
    )
    .execute();

  const ids = workflow.steps.map((s) => s.id);
  await db.deleteFrom('workflow_links').where('deal_id', '=', workflow.dealId).execute();
  await db
    .updateTable('workflow_steps')
    .set({ retired_at: now })
    .where('deal_id', '=', workflow.dealId)
    .where('retired_at', 'is', null)
    .where('id', 'not in', ids)
    .execute();
  const written = await db
    .insertInto('workflow_steps')
    .values(
      workflow.steps.map((step, position) => ({
        id: step.id,
        deal_id: workflow.dealId,
        label: step.label,
        type: step.type,
        position,
        fields: JSON.stringify(step.stepFields),
        requirements: JSON.stringify(step.requirements),
        form_id: step.formId,
        retired_at: null,
      })),
    )
    // A step id of another deal was refused before; the where clause keeps it so under a race.
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet((eb) => ({
          label: eb.ref('excluded.label'),
          type: eb.ref('excluded.type'),
          position: eb.ref('excluded.position'),
          fields: eb.ref('excluded.fields'),
          requirements: eb.ref('excluded.requirements'),
          form_id: eb.ref('excluded.form_id'),
          retired_at: null,
        }))
        .where('workflow_steps.deal_id', '=', workflow.dealId),
    )
    .returning('id')
    .execute();
  const writtenIds = new Set(written.map((r) => r.id));
  const notWritten = ids.filter((id) => !writtenIds.has(id));
  if (notWritten.length > 0) return { notWritten };
  if (workflow.links.length > 0) {
    await db
      .insertInto('workflow_links')
      .values(workflow.links.map((l) => ({ deal_id: workflow.dealId, from_step_id: l.fromStepId, to_step_id: l.toStepId, investor_may: l.investorMay })))
      .execute();
  }
  return { notWritten: [] };
}

/** Records a version's structure (once; the PUT that made it holds the workflow row lock). */
export async function saveWorkflowVersion(db: Kysely<DB>, workflow: Workflow, stepMapping: Record<string, string>, now: Date): Promise<void> {
  await db
    .insertInto('workflow_versions')
    .values({
      deal_id: workflow.dealId,
      version: workflow.version,
      structure: JSON.stringify(workflow),
      step_mapping: JSON.stringify(stepMapping),
      created_at: now,
    })
    .onConflict((oc) => oc.columns(['deal_id', 'version']).doNothing())
    .execute();
}

/** One version of a deal's workflow as it was applied, with the step mapping its PUT named. */
export async function findWorkflowVersion(
  db: Kysely<DB>,
  dealId: string,
  version: number,
): Promise<{ workflow: Workflow; stepMapping: Record<string, string> } | undefined> {
  const row = await db
    .selectFrom('workflow_versions')
    .select(['structure', 'step_mapping'])
    .where('deal_id', '=', dealId)
    .where('version', '=', version)
    .executeTakeFirst();
  if (!row) return undefined;
  const workflow = row.structure as Workflow;
  // Versions recorded before links could be open to investors (migration 0027) have closed links.
  return { workflow: { ...workflow, links: workflow.links.map((l) => ({ ...l, investorMay: l.investorMay === true })) }, stepMapping: row.step_mapping };
}

/** How many investors of the deal stand on each of these steps (only steps with some). */
export async function countInvestorsAtSteps(db: Kysely<DB>, dealId: string, stepIds: string[]): Promise<{ stepId: string; investors: number }[]> {
  if (stepIds.length === 0) return [];
  const rows = await db
    .selectFrom('journeys')
    .select(['current_step_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('deal_id', '=', dealId)
    .where('event_count', '>', 0)
    .where('current_step_id', 'in', stepIds)
    .groupBy('current_step_id')
    .orderBy('current_step_id')
    .execute();
  return rows.map((r) => ({ stepId: r.current_step_id, investors: Number(r.n) }));
}
