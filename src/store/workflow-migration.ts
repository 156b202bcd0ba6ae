// The journeys a workflow migration moves: those of the deal still on an older version.
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface JourneyToMigrate {
  investorUserId: string;
  currentStepId: string;
  workflowVersion: number;
  /** What its events captured (kept on the journey row, migration 0021). */
  captured: Record<string, string>;
}

/** Journeys of the deal with an event and a version below `version`, by investor id. */
export async function listJourneysToMigrate(db: Kysely<DB>, dealId: string, version: number): Promise<JourneyToMigrate[]> {
  const rows = await db
    .selectFrom('journeys')
    .select(['investor_user_id', 'current_step_id', 'workflow_version', 'captured'])
    .where('deal_id', '=', dealId)
    .where('event_count', '>', 0)
    .where('workflow_version', '<', version)
    .orderBy('investor_user_id')
    .execute();
  return rows.map((r) => ({
    investorUserId: r.investor_user_id,
    currentStepId: r.current_step_id,
    workflowVersion: r.workflow_version!,
    captured: r.captured,
  }));
}
