import { type Kysely, type Selectable, sql } from 'kysely';
import type { Investor, InvestorContact } from '../domain/investor.ts';
import type { DB, InvestorsTable } from './schema.ts';

export const toInvestor = (
  row: Pick<Selectable<InvestorsTable>, 'id' | 'remote_id' | 'data_source' | 'team_user_id' | 'kyc_check_level' | 'contact'>,
): Investor => ({
  id: row.id,
  remoteId: row.remote_id,
  dataSource: row.data_source,
  teamUserId: row.team_user_id,
  kycCheckLevel: row.kyc_check_level,
  contact: row.contact as InvestorContact,
});

export async function findInvestor(db: Kysely<DB>, id: string): Promise<Investor | undefined> {
  const row = await db.selectFrom('investors').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toInvestor(row) : undefined;
}

/** The columns of an investor row but id and created_at: the contact whole, and what is searched. */
export const investorColumns = (investor: Investor, now: Date) => ({
  remote_id: investor.remoteId,
  data_source: investor.dataSource,
  team_user_id: investor.teamUserId,
  kyc_check_level: investor.kycCheckLevel,
  contact: JSON.stringify(investor.contact),
  full_name: investor.contact.fullName,
  email: investor.contact.contact.email,
  status: investor.contact.status,
  updated_at: now,
});

/** Inserts or updates; `created` tells which happened. */
export async function upsertInvestor(db: Kysely<DB>, investor: Investor, now: Date): Promise<{ investor: Investor; created: boolean }> {
  const columns = investorColumns(investor, now);
  const row = await db
    .insertInto('investors')
    .values({ id: investor.id, ...columns, created_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet(columns))
    .returningAll()
    // xmax is 0 on a freshly inserted row version, non-zero when ON CONFLICT updated it.
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
    .executeTakeFirstOrThrow();
  return { investor: toInvestor(row), created: row.inserted };
}

/** An investor's mail language (null: never chosen) and whether they were erased; locked FOR UPDATE with `lock`. */
export async function investorLanguage(
  db: Kysely<DB>,
  id: string,
  options: { lock?: boolean } = {},
): Promise<{ language: string | null; erased: boolean } | undefined> {
  let query = db
    .selectFrom('investors')
    .select(['language', sql<boolean>`erased_at is not null`.as('erased')])
    .where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function setInvestorLanguageRow(db: Kysely<DB>, id: string, language: string): Promise<void> {
  await db.updateTable('investors').set({ language }).where('id', '=', id).execute();
}
