// Investors read and written a batch at a time, for imports.
import { type Kysely, sql } from 'kysely';
import type { Investor } from '../domain/investor.ts';
import { investorColumns, toInvestor } from './investors.ts';
import type { DB } from './schema.ts';

export async function findInvestors(db: Kysely<DB>, ids: readonly string[]): Promise<Map<string, Investor>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('investors')
    .select(['id', 'remote_id', 'data_source', 'team_user_id', 'kyc_check_level', 'contact'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, toInvestor(r)]));
}

/** Inserts or updates every investor in one statement (ids must be distinct). */
export async function upsertInvestors(db: Kysely<DB>, investors: readonly Investor[], now: Date): Promise<void> {
  if (investors.length === 0) return;
  await db
    .insertInto('investors')
    .values(investors.map((investor) => ({ id: investor.id, ...investorColumns(investor, now), created_at: now })))
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({
        remote_id: sql`excluded.remote_id`,
        data_source: sql`excluded.data_source`,
        team_user_id: sql`excluded.team_user_id`,
        kyc_check_level: sql`excluded.kyc_check_level`,
        contact: sql`excluded.contact`,
        full_name: sql`excluded.full_name`,
        email: sql`excluded.email`,
        status: sql`excluded.status`,
        updated_at: sql`excluded.updated_at`,
      }),
    )
    .execute();
}
