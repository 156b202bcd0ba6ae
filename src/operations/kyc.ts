// KYC evidence (docs/concepts.md, "KYC evidence"): a deal's KYC settings (the step whose investors
// are asked, the documents asked for, the level they earn once all are accepted), an investor's
// KYC in a deal as the portal and the console show it (each request's state, the files, the level
// and its expiry, the categories the deal requires with the statement to confirm), and the staff
// lists: the files waiting for a decision and the levels that expire within 30 days.
import { categoryStatementTexts } from '../domain/category-statement-text.ts';
import { forbidden, invalid, notFound } from '../domain/errors.ts';
import { CATEGORY_WARNING_DAYS, type CategoryStanding, categoryStanding, daysAfter, type InvestorCategory, utcDate } from '../domain/investor-category.ts';
import { type KycDocumentKind, type KycRequest, kycRequests, kycStanding, needsCertificate } from '../domain/kyc.ts';
import { actorOf, canActFor, isStaff, type Principal } from '../domain/principal.ts';
import { newestConfirmation } from '../store/category-confirmations.ts';
import { findDeal } from '../store/deals.ts';
import { statementsOf } from '../store/investor-categories.ts';
import * as store from '../store/kyc.ts';
import { appendToChain } from '../store/audit.ts';
import { DIRECTORY_CHAIN } from '../domain/audit.ts';
import type { Deps } from './deps.ts';
import { inOneTransaction } from './pipeline.ts';
import { forReading } from './reads.ts';
import { loadWorkflow } from './workflows.ts';

export type KycSettings = store.KycSettingsRow;
export type KycDocument = store.KycDocumentRow;

/** Sets what a deal asks of its investors for KYC; the step must be one of the deal's workflow. */
export async function putKycSettings(
  deps: Deps,
  principal: Principal,
  dealId: string,
  input: { stepId: string; level: number; documents: KycDocumentKind[] },
): Promise<KycSettings> {
  if (!isStaff(principal)) throw forbidden("Only staff set a deal's KYC settings");
  const documents = [...new Set(input.documents)];
  if (documents.length !== input.documents.length) throw invalid([{ in: 'body', field: 'documents', detail: 'names each document once' }]);
  return inOneTransaction(async (tx) => {
    if (!(await findDeal(tx.db, dealId))) throw notFound('deal', dealId);
    const workflow = await loadWorkflow(tx, dealId);
    if (!workflow?.workflow.steps.some((s) => s.id === input.stepId)) throw notFound('step', input.stepId);
    const at = tx.clock();
    await store.putSettings(tx.db, { dealId, stepId: input.stepId, level: input.level, documents, updatedBy: actorOf(principal), updatedAt: at });
    await appendToChain(tx.db, {
      chain: DIRECTORY_CHAIN,
      type: 'deal.kyc-settings-changed',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: { dealId, stepId: input.stepId, level: input.level, documents },
    });
    return (await store.findSettings(tx.db, dealId))!;
  })(deps);
}

/** A deal's KYC settings; 404 when the deal has none (or does not exist). */
export async function getKycSettings(deps: Deps, principal: Principal, dealId: string): Promise<KycSettings> {
  if (!isStaff(principal)) throw forbidden("Only staff read a deal's KYC settings");
  const found = await store.findSettings(forReading(deps).db, dealId);
  if (!found) throw notFound('KYC settings of deal', dealId);
  return found;
}

/**
 * Who may see an investor's KYC in a deal: staff, or the investor themself, and only with a journey
 * in the deal. Anyone else, an unknown investor or deal, or no journey: 404, alike. Returns the
 * steps the journey has entered.
 */
export async function assertKycAccess(db: Deps['db'], principal: Principal, dealId: string, investorUserId: string): Promise<{ entered: string[] }> {
  if (!canActFor(principal, investorUserId)) throw notFound('investor', investorUserId);
  const entered = await store.enteredSteps(db, dealId, investorUserId);
  if (!entered) throw notFound('investor', investorUserId);
  return { entered };
}

export interface KycLevel {
  level: number;
  dealId: string;
  acceptedOn: string;
  expiresOn: string;
  standing: CategoryStanding;
}

/** The requests of a deal's KYC for an investor, judged now: only files uploaded since a level that has expired answer them. */
export async function requestsOf(db: Deps['db'], settings: KycSettings, dealId: string, investorUserId: string, today: string) {
  const [documents, newest] = await Promise.all([store.documentsOf(db, dealId, investorUserId), store.newestLevel(db, investorUserId)]);
  const level: KycLevel | null = newest
    ? { level: newest.level, dealId: newest.dealId, acceptedOn: newest.acceptedOn, expiresOn: newest.expiresOn, standing: kycStanding(newest.expiresOn, today) }
    : null;
  const since = newest && level?.standing === 'expired' ? newest.recordedAt : null;
  const requests = kycRequests(settings.documents, documents, since);
  return { documents, level, requests };
}

export interface CategoryOffer {
  category: InvestorCategory;
  statementText: string;
  needsCertificate: boolean;
}

/** The categories the deal's workflow requires (investor-category requirements), with the statement each asks the investor to confirm. */
export async function categoryOffers(deps: Deps, dealId: string): Promise<CategoryOffer[]> {
  const workflow = await loadWorkflow(deps, dealId);
  const wanted = new Set<InvestorCategory>();
  for (const step of workflow?.workflow.steps ?? []) {
    for (const r of step.requirements) if (r.kind === 'investor-category') for (const c of r.categories) wanted.add(c as InvestorCategory);
  }
  return [...wanted].map((category) => ({ category, statementText: categoryStatementTexts[category], needsCertificate: needsCertificate(category) }));
}

export interface KycStatus {
  dealId: string;
  investorUserId: string;
  settings: Pick<KycSettings, 'stepId' | 'level' | 'documents'> | null;
  /** The investor's journey has entered the KYC step: the requests are theirs to answer. */
  open: boolean;
  /** The investor holds a level at least the deal's that has not expired: nothing is asked. */
  satisfied: boolean;
  requests: KycRequest[];
  documents: KycDocument[];
  level: KycLevel | null;
  categories: CategoryOffer[];
  confirmation: { id: string; category: string; needsReview: boolean; confirmedAt: string; recorded: boolean } | null;
  category: { category: string; expiresOn: string; standing: CategoryStanding; confirmationId: string | null } | null;
}

/** An investor's KYC in a deal: staff, or the investor themself (anyone else: 404). */
export async function kycStatusOf(deps: Deps, principal: Principal, dealId: string, investorUserId: string): Promise<KycStatus> {
  const { db } = forReading(deps);
  const { entered } = await assertKycAccess(db, principal, dealId, investorUserId);
  const today = utcDate(deps.clock());
  const [settings, categories, confirmation, statements] = await Promise.all([
    store.findSettings(db, dealId),
    categoryOffers(deps, dealId),
    newestConfirmation(db, dealId, investorUserId),
    statementsOf(db, investorUserId),
  ]);
  const judged = settings
    ? await requestsOf(db, settings, dealId, investorUserId, today)
    : { documents: await store.documentsOf(db, dealId, investorUserId), level: null, requests: [] };
  const level = judged.level ?? (await store.newestLevel(db, investorUserId).then((l) => l && { ...l, standing: kycStanding(l.expiresOn, today) }));
  const newest = statements[0];
  return {
    dealId,
    investorUserId,
    settings: settings ? { stepId: settings.stepId, level: settings.level, documents: settings.documents } : null,
    open: settings !== undefined && entered.includes(settings.stepId),
    satisfied: settings !== undefined && !!level && level.standing !== 'expired' && level.level >= settings.level,
    requests: judged.requests,
    documents: judged.documents,
    level: level ? { level: level.level, dealId: level.dealId, acceptedOn: level.acceptedOn, expiresOn: level.expiresOn, standing: level.standing } : null,
    categories,
    confirmation: confirmation
      ? {
          id: confirmation.id,
          category: confirmation.category,
          needsReview: confirmation.needsReview,
          confirmedAt: confirmation.confirmedAt,
          recorded: confirmation.recorded,
        }
      : null,
    category: newest
      ? { category: newest.category, expiresOn: newest.expiresOn, standing: categoryStanding(newest.expiresOn, today), confirmationId: newest.confirmationId }
      : null,
  };
}

/** Files waiting for staff's decision, oldest first (staff). */
export async function listKycReviews(deps: Deps, principal: Principal, query: { limit?: number; page?: number }) {
  if (!isStaff(principal)) throw forbidden("Only staff see investors' KYC documents across investors");
  const limit = query.limit ?? 20;
  const page = query.page ?? 1;
  const { rows, total } = await store.undecidedDocuments(forReading(deps).db, { limit, offset: (page - 1) * limit });
  return { output: rows, page, totalPages: Math.ceil(total / limit), total };
}

/** Investors whose newest level has expired or expires within `within` days (30 unless said), soonest first (staff). */
export async function listExpiringKyc(deps: Deps, principal: Principal, query: { within?: number; limit?: number; page?: number }) {
  if (!isStaff(principal)) throw forbidden("Only staff see investors' KYC levels across investors");
  const today = utcDate(deps.clock());
  const limit = query.limit ?? 20;
  const page = query.page ?? 1;
  const until = daysAfter(today, query.within ?? CATEGORY_WARNING_DAYS);
  const { rows, total } = await store.expiringLevels(forReading(deps).db, until, { limit, offset: (page - 1) * limit });
  return { output: rows.map((r) => ({ ...r, standing: kycStanding(r.expiresOn, today) })), page, totalPages: Math.ceil(total / limit), total };
}
