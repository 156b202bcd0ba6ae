// Investors' categories under the UK's financial promotion rules (domain/investor-category.ts):
// staff record the statement an investor signed, with its evidence, and read an investor's
// statements with the standing of the newest. The move path reads the newest with its load
// statement (store/moves.ts): a workflow's `investor-category` requirement and the checks before
// money (money-gate.ts) judge it there.
import { DIRECTORY_CHAIN } from '../domain/audit.ts';
import { isCalendarDate } from '../domain/calendar-date.ts';
import { conflict, forbidden, invalid, notFound } from '../domain/errors.ts';
import {
  CATEGORY_WARNING_DAYS,
  type CategoryStanding,
  categoryExpiry,
  categoryStanding,
  daysAfter,
  type InvestorCategory,
  investorCategories,
  isInvestorCategory,
  utcDate,
} from '../domain/investor-category.ts';
import { actorOf, canActFor, isStaff, type Principal } from '../domain/principal.ts';
import { appendToChain } from '../store/audit.ts';
import * as store from '../store/investor-categories.ts';
import { isErased } from '../store/erasure.ts';
import { findInvestor } from '../store/investors.ts';
import type { Deps } from './deps.ts';
import { inOneTransaction } from './pipeline.ts';
import { forReading } from './reads.ts';

export interface StatementInput {
  /** One of investorCategories (the route's schema holds it to them; checked again here). */
  category: string;
  statementText: string;
  signedOn: string;
  evidence?: string;
}

export type CategoryStatement = store.CategoryStatementRow;

export interface InvestorCategories {
  investorUserId: string;
  /** The newest statement, the one that counts, with its standing today; null when none was recorded. */
  current: (CategoryStatement & { standing: CategoryStanding }) | null;
  statements: CategoryStatement[];
}

/** Records a signed statement: the investor's newest from now on. One transaction with its audit entry. */
export async function recordCategoryStatement(deps: Deps, principal: Principal, investorUserId: string, input: StatementInput): Promise<CategoryStatement> {
  if (!isStaff(principal)) throw forbidden("Only staff record an investor's category statement");
  const today = utcDate(deps.clock());
  if (!isCalendarDate(input.signedOn)) throw invalid([{ in: 'body', field: 'signedOn', detail: 'must be a date that exists, as YYYY-MM-DD' }]);
  if (input.signedOn > today) throw invalid([{ in: 'body', field: 'signedOn', detail: `must not be after today (${today})` }]);
  if (!isInvestorCategory(input.category)) throw invalid([{ in: 'body', field: 'category', detail: `must be one of ${investorCategories.join(', ')}` }]);
  const statementText = input.statementText.trim();
  if (statementText === '') throw invalid([{ in: 'body', field: 'statementText', detail: 'the text the investor signed, not blank' }]);
  return inOneTransaction(async (tx) => {
    if (!(await findInvestor(tx.db, investorUserId))) throw notFound('investor', investorUserId);
    return appendStatement(tx, principal, investorUserId, { ...input, category: input.category as InvestorCategory, statementText });
  })(deps);
}

/**
 * Appends a statement and its audit entry in the caller's transaction, for a known investor: staff's
 * record, or (with `confirmationId`) what the investor confirmed in the portal, recorded when it is
 * theirs alone to state or when staff accept its certificate (operations/category-confirmations.ts).
 */
export async function appendStatement(
  tx: Deps,
  principal: Principal,
  investorUserId: string,
  input: { category: InvestorCategory; statementText: string; signedOn: string; evidence?: string | undefined; confirmationId?: string },
): Promise<CategoryStatement> {
  if (await isErased(tx.db, investorUserId)) throw conflict('The investor was erased: nothing more is recorded of them');
  const at = tx.clock();
  const recorded = await store.insertStatement(tx.db, {
    id: tx.newId(),
    investorId: investorUserId,
    category: input.category,
    statementText: input.statementText,
    evidence: input.evidence?.trim() || null,
    signedOn: input.signedOn,
    expiresOn: categoryExpiry(input.signedOn),
    recordedBy: actorOf(principal),
    recordedAt: at,
    confirmationId: input.confirmationId ?? null,
  });
  // The evidence stays out of the hash: it is free text an erasure clears.
  await appendToChain(tx.db, {
    chain: DIRECTORY_CHAIN,
    type: 'investor.category-recorded',
    principal: actorOf(principal),
    tokenId: principal.tokenKey,
    at: at.toISOString(),
    change: {
      statementId: recorded.id,
      investorUserId,
      category: recorded.category,
      signedOn: recorded.signedOn,
      expiresOn: recorded.expiresOn,
      ...(input.confirmationId ? { confirmationId: input.confirmationId } : {}),
    },
  });
  return recorded;
}

/** An investor's statements, newest first, and the standing of the newest; staff, or the investor themselves (404 for anyone else). */
export async function categoriesOf(deps: Deps, principal: Principal, investorUserId: string): Promise<InvestorCategories> {
  if (!canActFor(principal, investorUserId)) throw notFound('investor', investorUserId);
  const { db } = forReading(deps);
  if (!(await findInvestor(db, investorUserId))) throw notFound('investor', investorUserId);
  const statements = await store.statementsOf(db, investorUserId);
  const newest = statements[0];
  const current = newest ? { ...newest, standing: categoryStanding(newest.expiresOn, utcDate(deps.clock())) } : null;
  return { investorUserId, current, statements };
}

/**
 * Investors whose newest statement has expired or expires within `within` days (30 unless said),
 * soonest first, each with its standing: the list staff renew from, and (with `dealId`) how many of
 * a deal's investors an expired statement holds back. Staff only.
 */
export async function listExpiringCategories(deps: Deps, principal: Principal, query: { within?: number; dealId?: string; limit?: number; page?: number }) {
  if (!isStaff(principal)) throw forbidden("Only staff see investors' category statements across investors");
  const today = utcDate(deps.clock());
  const within = query.within ?? CATEGORY_WARNING_DAYS;
  const until = daysAfter(today, within);
  const limit = query.limit ?? 20;
  const page = query.page ?? 1;
  const { db } = forReading(deps);
  const { rows, total } = await store.expiringStatements(
    db,
    { until, ...(query.dealId ? { dealId: query.dealId } : {}) },
    { limit, offset: (page - 1) * limit },
  );
  return {
    output: rows.map((r) => ({ ...r, standing: categoryStanding(r.expiresOn, today) })),
    page,
    totalPages: Math.ceil(total / limit),
    total,
  };
}
