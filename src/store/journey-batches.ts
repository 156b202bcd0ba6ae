// Journey rows of many investors at once.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

/** Locks (FOR UPDATE) the existing journey rows of these investors in the deal, in investor id order. */
export async function lockExistingJourneys(db: Kysely<DB>, dealId: string, investorUserIds: readonly string[]): Promise<void> {
  if (investorUserIds.length === 0) return;
  await db
    .selectFrom('journeys')
    .select('investor_user_id')
    .where('deal_id', '=', dealId)
    .where('investor_user_id', 'in', [...investorUserIds])
    .orderBy(sql`investor_user_id collate "C"`)
    .forUpdate()
    .execute();
}
