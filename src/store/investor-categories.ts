// Investors' category statements (migration 0043): recorded, listed newest first, and the newest
// of each investor, which the move path reads with its one load statement (store/moves.ts).
import { sql } from 'kysely';
import type { Db } from './schema.ts';

export interface CategoryStatementRow {
  id: string;
  investorId: string;
  category: string;
  statementText: string;
  evidence: string | null;
  signedOn: string;
  expiresOn: string;
  recordedBy: string;
  recordedAt: string;
  /** The investor's confirmation in the portal it records; null: recorded by staff. */
  confirmationId: string | null;
}

const COLUMNS = [
  'id',
  'investor_id',
  'category',
  'statement_text',
  'evidence',
  sql<string>`signed_on::text`.as('signed_on'),
  sql<string>`expires_on::text`.as('expires_on'),
  'recorded_by',
  'recorded_at',
  'confirmation_id',
] as const;

const toRow = (r: {
  id: string;
  investor_id: string;
  category: string;
  statement_text: string;
  evidence: string | null;
  signed_on: string;
  expires_on: string;
  recorded_by: string;
  recorded_at: Date;
  confirmation_id: string | null;
}): CategoryStatementRow => ({
  id: r.id,
  investorId: r.investor_id,
  category: r.category,
  statementText: r.statement_text,
  evidence: r.evidence,
  signedOn: r.signed_on,
  expiresOn: r.expires_on,
  recordedBy: r.recorded_by,
  recordedAt: r.recorded_at.toISOString(),
  confirmationId: r.confirmation_id,
});

export async function insertStatement(db: Db, row: Omit<CategoryStatementRow, 'recordedAt'> & { recordedAt: Date }): Promise<CategoryStatementRow> {
  const stored = await db
    .insertInto('investor_category_statements')
    .values({
      id: row.id,
      investor_id: row.investorId,
      category: row.category,
      statement_text: row.statementText,
      evidence: row.evidence,
      signed_on: row.signedOn,
      expires_on: row.expiresOn,
      recorded_by: row.recordedBy,
      recorded_at: row.recordedAt,
      confirmation_id: row.confirmationId,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
  return toRow(stored);
}

/** An investor's statements, newest first (the first is the one that counts). */
export async function statementsOf(db: Db, investorId: string): Promise<CategoryStatementRow[]> {
  const rows = await db.selectFrom('investor_category_statements').select(COLUMNS).where('investor_id', '=', investorId).orderBy('seq', 'desc').execute();
  return rows.map(toRow);
}

/** Each investor's newest statement, the one that counts (of these investors only, when given). */
const newestOf = (ids?: readonly string[]) => sql`select distinct on (investor_id) investor_id, category, signed_on, expires_on
  from investor_category_statements ${ids === undefined ? sql`` : sql`where investor_id = any(${ids as string[]}::text[])`}
  order by investor_id, seq desc`;

/**
 * The newest statement of each investor of `ids`, as a SQL expression yielding a JSON object keyed
 * by investor id (`{ category, expiresOn }`); for the move's load statement.
 */
export const newestStatements = (ids: readonly string[]) => sql<Record<string, { category: string; expiresOn: string }> | null>`(
  select json_object_agg(s.investor_id, json_build_object('category', s.category, 'expiresOn', s.expires_on::text))
  from (${newestOf(ids)}) s)`;

export interface ExpiringStatement {
  investorUserId: string;
  investorName: string;
  category: string;
  signedOn: string;
  expiresOn: string;
}

/**
 * Investors whose newest statement expires on or before `until` (YYYY-MM-DD), soonest first, and
 * how many there are; with `dealId`, only investors with a journey in that deal.
 */
export async function expiringStatements(
  db: Db,
  filter: { until: string; dealId?: string },
  page: { limit: number; offset: number },
): Promise<{ rows: ExpiringStatement[]; total: number }> {
  const inDeal =
    filter.dealId === undefined ? sql`` : sql`and exists (select 1 from journeys j where j.deal_id = ${filter.dealId} and j.investor_user_id = n.investor_id)`;
  const held = sql`with newest as (${newestOf()})
    select n.investor_id, i.full_name, n.category, n.signed_on::text as signed_on, n.expires_on::text as expires_on
    from newest n join investors i on i.id = n.investor_id
    where n.expires_on <= ${filter.until}::date and i.erased_at is null ${inDeal}`;
  const [{ rows }, counted] = await Promise.all([
    sql<{ investor_id: string; full_name: string; category: string; signed_on: string; expires_on: string }>`${held}
      order by expires_on, investor_id limit ${page.limit} offset ${page.offset}`.execute(db),
    sql<{ n: number }>`select count(*)::int as n from (${held}) h`.execute(db),
  ]);
  return {
    rows: rows.map((r) => ({ investorUserId: r.investor_id, investorName: r.full_name, category: r.category, signedOn: r.signed_on, expiresOn: r.expires_on })),
    total: counted.rows[0]!.n,
  };
}
