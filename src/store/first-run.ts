// The first-run record (migration 0009-first-run): one row, id 1.
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface FirstRunState {
  tokenId: string | null;
  tokenShownAt: Date | null;
  completedAt: Date | null;
}

export async function findFirstRun(db: Kysely<DB>): Promise<FirstRunState | undefined> {
  const row = await db.selectFrom('first_run').selectAll().where('id', '=', 1).executeTakeFirst();
  return row && { tokenId: row.token_id, tokenShownAt: row.token_shown_at, completedAt: row.completed_at };
}

/** Records a new admin token as not yet shown (starting the first run when there is no record). */
export async function recordUnshownToken(db: Kysely<DB>, tokenId: string, now: Date): Promise<void> {
  await db
    .insertInto('first_run')
    .values({ id: 1, token_id: tokenId, token_shown_at: null, started_at: now, completed_at: null })
    .onConflict((oc) => oc.column('id').doUpdateSet({ token_id: tokenId, token_shown_at: null }))
    .execute();
}

export async function markTokenShown(db: Kysely<DB>, tokenId: string, now: Date): Promise<void> {
  await db.updateTable('first_run').set({ token_shown_at: now }).where('id', '=', 1).where('token_id', '=', tokenId).execute();
}

export async function markCompleted(db: Kysely<DB>, now: Date): Promise<void> {
  await db
    .insertInto('first_run')
    .values({ id: 1, token_id: null, token_shown_at: null, started_at: now, completed_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ completed_at: now }))
    .execute();
}
