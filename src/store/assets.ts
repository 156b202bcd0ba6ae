import { type Kysely, type Selectable, sql } from 'kysely';
import type { Asset } from '../domain/subscription.ts';
import type { AssetsTable, DB } from './schema.ts';

const toAsset = (row: Selectable<AssetsTable>): Asset => ({
  id: Number(row.id),
  name: row.name,
  currency: row.currency,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export async function findAsset(db: Kysely<DB>, id: number): Promise<Asset | undefined> {
  const row = await db.selectFrom('assets').selectAll().where('id', '=', String(id)).executeTakeFirst();
  return row ? toAsset(row) : undefined;
}

/** Inserts or updates; `created` tells which happened. */
export async function upsertAsset(
  db: Kysely<DB>,
  asset: { id: number; name: string; currency: string },
  now: Date,
): Promise<{ asset: Asset; created: boolean }> {
  const row = await db
    .insertInto('assets')
    .values({ id: asset.id, name: asset.name, currency: asset.currency, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ name: asset.name, currency: asset.currency, updated_at: now }))
    .returningAll()
    // xmax is 0 on a freshly inserted row version, non-zero when ON CONFLICT updated it.
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
    .executeTakeFirstOrThrow();
  return { asset: toAsset(row), created: row.inserted };
}
