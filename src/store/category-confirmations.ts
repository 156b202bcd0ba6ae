// The category statements investors confirm in the portal (migration 0050): each confirmation as
// made, with its time and IP address; one that needs a certificate waits for staff until a statement
// names it (investor_category_statements.confirmation_id).
import { sql } from 'kysely';
import type { Db } from './schema.ts';

export interface ConfirmationRow {
  id: string;
  dealId: string;
  investorUserId: string;
  category: string;
  statementText: string;
  needsReview: boolean;
  confirmedAt: string;
  /** Whether a statement records it (the confirmation counts from then on). */
  recorded: boolean;
}

export async function insertConfirmation(db: Db, row: Omit<ConfirmationRow, 'confirmedAt' | 'recorded'> & { confirmedAt: Date; ip: string }): Promise<void> {
  await db
    .insertInto('category_confirmations')
    .values({
      id: row.id,
      deal_id: row.dealId,
      investor_id: row.investorUserId,
      category: row.category,
      statement_text: row.statementText,
      needs_review: row.needsReview,
      confirmed_at: row.confirmedAt,
      ip: row.ip,
    })
    .execute();
}

/** The investor's newest confirmation in the deal, and whether a statement records it; undefined when none. */
export async function newestConfirmation(db: Db, dealId: string, investorUserId: string): Promise<ConfirmationRow | undefined> {
  const r = await db
    .selectFrom('category_confirmations as c')
    .select(['c.id', 'c.deal_id', 'c.investor_id', 'c.category', 'c.statement_text', 'c.needs_review', 'c.confirmed_at'])
    .select(sql<boolean>`exists (select 1 from investor_category_statements s where s.confirmation_id = c.id)`.as('recorded'))
    .where('c.deal_id', '=', dealId)
    .where('c.investor_id', '=', investorUserId)
    .orderBy('c.seq', 'desc')
    .executeTakeFirst();
  return (
    r && {
      id: r.id,
      dealId: r.deal_id,
      investorUserId: r.investor_id,
      category: r.category,
      statementText: r.statement_text,
      needsReview: r.needs_review,
      confirmedAt: r.confirmed_at.toISOString(),
      recorded: r.recorded,
    }
  );
}
