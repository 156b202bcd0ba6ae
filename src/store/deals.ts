import { type Kysely, type Selectable, sql } from 'kysely';
import type { DB, DealsTable } from './schema.ts';

export interface Deal {
  id: string;
  name: string;
  description: string | null;
  currency: string | null;
  createdAt: string;
  updatedAt: string;
}

const toDeal = (row: Selectable<DealsTable>): Deal => ({
  id: row.id,
  name: row.name,
  description: row.description,
  currency: row.currency,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export async function findDeal(db: Kysely<DB>, id: string): Promise<Deal | undefined> {
  const row = await db.selectFrom('deals').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toDeal(row) : undefined;
}

/** Inserts or updates; `created` tells which happened. */
export async function upsertDeal(
  db: Kysely<DB>,
  deal: { id: string; name: string; description: string | null; currency: string | null },
  now: Date,
): Promise<{ deal: Deal; created: boolean }> {
  const row = await db
    .insertInto('deals')
    .values({ ...deal, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ name: deal.name, description: deal.description, currency: deal.currency, updated_at: now }))
    .returningAll()
    // xmax is 0 on a freshly inserted row version, non-zero when ON CONFLICT updated it.
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
    .executeTakeFirstOrThrow();
  const { inserted, ...deal_ } = row;
  return { deal: toDeal(deal_), created: inserted };
}
