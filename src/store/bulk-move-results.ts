// Outcomes of the moves of an idempotent bulk request (migration 0009).
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface BatchRef {
  scope: string;
  key: string;
  fingerprint: string;
}

export async function listBulkMoveResults(db: Kysely<DB>, ref: BatchRef): Promise<Map<number, unknown>> {
  const rows = await db
    .selectFrom('bulk_move_results')
    .select(['item', 'result'])
    .where('scope', '=', ref.scope)
    .where('key', '=', ref.key)
    .where('fingerprint', '=', ref.fingerprint)
    .execute();
  return new Map(rows.map((r) => [r.item, r.result]));
}

/** The outcomes of the moves of one transaction of the batch (by item index), in one statement. */
export async function insertBulkMoveResults(db: Kysely<DB>, ref: BatchRef, results: readonly { item: number; result: unknown }[], now: Date): Promise<void> {
  if (results.length === 0) return;
  await db
    .insertInto('bulk_move_results')
    .values(results.map(({ item, result }) => ({ ...ref, item, result: JSON.stringify(result), created_at: now })))
    .execute();
}

export async function deleteBulkMoveResults(db: Kysely<DB>, ref: Pick<BatchRef, 'scope' | 'key'>): Promise<void> {
  await db.deleteFrom('bulk_move_results').where('scope', '=', ref.scope).where('key', '=', ref.key).execute();
}
