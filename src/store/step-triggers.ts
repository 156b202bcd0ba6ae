// Step triggers of a deal's workflow, with their secrets kept in webhook_secrets. The
// workflow save replaces a deal's triggers whole; reads never select a secret.
import type { Kysely } from 'kysely';
import type { OutboxEventType } from '../domain/outbox-event.ts';
import type { StepTrigger, TriggerKind } from '../domain/step-trigger.ts';
import type { DB } from './schema.ts';

/** A trigger as the API shows it: no secret, only whether one is set. */
export interface StepTriggerView {
  kind: TriggerKind;
  url: string;
  events: OutboxEventType[];
  hasSecret: boolean;
}

/**
 * Replaces every trigger of the deal. A trigger sent without a secret keeps the secret stored for
 * the same step and URL (clients never see secrets, so a workflow read and saved back keeps them).
 * Run it in the workflow save's transaction.
 */
export async function replaceStepTriggers(
  db: Kysely<DB>,
  dealId: string,
  steps: readonly { stepId: string; triggers: readonly StepTrigger[] }[],
  now: Date,
  newId: () => string,
): Promise<void> {
  const existing = await db.selectFrom('step_triggers').select(['step_id', 'url', 'secret_id']).where('deal_id', '=', dealId).execute();
  const storedSecret = new Map(existing.map((row) => [`${row.step_id}\n${row.url}`, row.secret_id]));
  await db.deleteFrom('step_triggers').where('deal_id', '=', dealId).execute();
  for (const { stepId, triggers } of steps) {
    for (const [position, trigger] of triggers.entries()) {
      let secretId = storedSecret.get(`${stepId}\n${trigger.url}`) ?? null;
      if (trigger.secret !== undefined) {
        secretId = newId();
        await db.insertInto('webhook_secrets').values({ id: secretId, secret: trigger.secret, created_at: now }).execute();
      }
      await db
        .insertInto('step_triggers')
        .values({
          id: newId(),
          deal_id: dealId,
          step_id: stepId,
          position,
          kind: trigger.kind,
          url: trigger.url,
          secret_id: secretId,
          events: trigger.events,
        })
        .execute();
    }
  }
}

/** The deal's triggers by step id, in the order they were saved. */
export async function listStepTriggers(db: Kysely<DB>, dealId: string): Promise<Map<string, StepTriggerView[]>> {
  const rows = await db
    .selectFrom('step_triggers')
    .select(['step_id', 'kind', 'url', 'events', 'secret_id'])
    .where('deal_id', '=', dealId)
    .orderBy('step_id')
    .orderBy('position')
    .execute();
  const byStep = new Map<string, StepTriggerView[]>();
  for (const row of rows) {
    const list = byStep.get(row.step_id) ?? [];
    list.push({ kind: row.kind as TriggerKind, url: row.url, events: row.events as OutboxEventType[], hasSecret: row.secret_id !== null });
    byStep.set(row.step_id, list);
  }
  return byStep;
}
