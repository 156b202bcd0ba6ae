// What a move import compares against: each investor's latest event in the deal.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

export async function findLatestMoves(
  db: Kysely<DB>,
  dealId: string,
  investorUserIds: readonly string[],
): Promise<Map<string, { toStepId: string; data: Record<string, string> }>> {
  if (investorUserIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('journeys as j')
    .innerJoin('workflow_events as e', (join) =>
      join.onRef('e.deal_id', '=', 'j.deal_id').onRef('e.investor_user_id', '=', 'j.investor_user_id').onRef('e.seq', '=', 'j.event_count'),
    )
    .select(['j.investor_user_id', 'e.to_step_id', 'e.data'])
    .where('j.deal_id', '=', dealId)
    .where('j.investor_user_id', 'in', [...investorUserIds])
    .where(sql<boolean>`j.event_count > 0`)
    .execute();
  return new Map(rows.map((r) => [r.investor_user_id, { toStepId: r.to_step_id, data: r.data as Record<string, string> }]));
}
