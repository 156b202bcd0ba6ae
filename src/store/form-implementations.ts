// Form implementations: one per investor per step that names a form (unique step_id +
// investor_user_id), created on first request.
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface FormImplementation {
  id: string;
  stepId: string;
  investorUserId: string;
  formId: string;
  createdAt: string;
}

/** The live (not retired) step's deal and form, or undefined for an unknown or retired step. */
export async function findStepForm(db: Kysely<DB>, stepId: string): Promise<{ dealId: string; formId: string | null } | undefined> {
  const row = await db.selectFrom('workflow_steps').select(['deal_id', 'form_id']).where('id', '=', stepId).where('retired_at', 'is', null).executeTakeFirst();
  return row ? { dealId: row.deal_id, formId: row.form_id } : undefined;
}

/**
 * Get or create. INSERT … ON CONFLICT DO NOTHING, then SELECT: of two concurrent first calls one
 * inserts and the other's insert does nothing, and both then read the one row (the conflicting
 * insert waits for the first transaction, so its SELECT sees the committed row).
 */
export async function getOrCreateFormImplementation(
  db: Kysely<DB>,
  row: { id: string; stepId: string; investorUserId: string; formId: string },
  now: Date,
): Promise<FormImplementation> {
  await db
    .insertInto('form_implementations')
    .values({ id: row.id, step_id: row.stepId, investor_user_id: row.investorUserId, form_id: row.formId, created_at: now })
    .onConflict((oc) => oc.columns(['step_id', 'investor_user_id']).doNothing())
    .execute();
  const stored = await db
    .selectFrom('form_implementations')
    .selectAll()
    .where('step_id', '=', row.stepId)
    .where('investor_user_id', '=', row.investorUserId)
    .executeTakeFirstOrThrow();
  return {
    id: stored.id,
    stepId: stored.step_id,
    investorUserId: stored.investor_user_id,
    formId: stored.form_id,
    createdAt: stored.created_at.toISOString(),
  };
}
