// An investor's KYC documents (docs/concepts.md, "KYC evidence"): the investor uploads a PDF, JPEG or
// PNG (its bytes go to the content store first, a chunk at a time, outside any transaction; the
// file's row and its audit entry follow in one), staff accept it or ask for another with a reason
// the investor sees. Accepting the last required document accepts the deal's level: the investor's
// kycCheckLevel is set to it, and the level with its day and expiry is appended to kyc_levels.
// Accepting a category's evidence records the statement the investor confirmed and that waited for
// it (category-confirmations.ts). Every upload and decision is an audit entry.
import { DIRECTORY_CHAIN } from '../domain/audit.ts';
import { AppError, conflict, erasedContent, forbidden, invalid, notFound } from '../domain/errors.ts';
import { type InvestorCategory, utcDate } from '../domain/investor-category.ts';
import { allAccepted, type KycMediaType, type KycUploadKind, kycExpiry, MAGIC_BYTES, mediaTypeOf } from '../domain/kyc.ts';
import { actorOf, isStaff, type Principal } from '../domain/principal.ts';
import { appendToChain } from '../store/audit.ts';
import { newestConfirmation } from '../store/category-confirmations.ts';
import { ContentTooLarge, type ContentReader, EmptyContent, type StoredContent } from '../store/document-contents.ts';
import * as store from '../store/kyc.ts';
import { wasErased } from '../store/erasure.ts';
import { contentsOf, type Deps } from './deps.ts';
import { appendStatement } from './investor-categories.ts';
import { assertKycAccess, type KycDocument, requestsOf } from './kyc.ts';
import { inOneTransaction } from './pipeline.ts';

const notKnown = (declared: string) =>
  invalid([{ in: 'body', field: 'body', detail: `is not a PDF, JPEG or PNG file as its Content-Type (${declared}) says: its first bytes show otherwise` }]);

/** The bytes, refused unless their first bytes show the declared type (PDF, JPEG or PNG). */
async function* onlyType(source: AsyncIterable<Uint8Array>, declared: string): AsyncGenerator<Uint8Array> {
  let head = Buffer.alloc(0);
  let checked = false;
  for await (const piece of source) {
    if (checked) {
      yield piece;
      continue;
    }
    head = Buffer.concat([head, piece]);
    if (head.length < MAGIC_BYTES) continue;
    if (mediaTypeOf(head) !== declared) throw notKnown(declared);
    checked = true;
    yield head;
  }
  if (!checked && head.length > 0) {
    if (mediaTypeOf(head) !== declared) throw notKnown(declared);
    yield head;
  }
}

export const kycTooLarge = (maxBytes: number) => new AppError('payload-too-large', `A KYC document may be at most ${maxBytes} bytes`);

/**
 * The first half of an upload: the file's bytes into the content store, outside any transaction.
 * The investor themself (or staff), with a journey in the deal; anyone else 404.
 */
export async function storeKycContent(
  deps: Deps,
  principal: Principal,
  target: { dealId: string; investorUserId: string; mediaType: KycMediaType; maxBytes: number },
  body: AsyncIterable<Uint8Array>,
): Promise<StoredContent> {
  await assertKycAccess(deps.db, principal, target.dealId, target.investorUserId);
  try {
    return await contentsOf(deps).put(onlyType(body, target.mediaType), target.maxBytes);
  } catch (err) {
    if (err instanceof ContentTooLarge) throw kycTooLarge(target.maxBytes);
    if (err instanceof EmptyContent) throw invalid([{ in: 'body', field: 'body', detail: 'is empty: send the file itself' }]);
    throw err;
  }
}

/** The second half: the file's row and its audit entry, naming the stored content, in one transaction. */
export async function recordKycDocument(
  deps: Deps,
  principal: Principal,
  target: { dealId: string; investorUserId: string; kind: KycUploadKind; fileName: string; mediaType: KycMediaType },
  stored: StoredContent,
): Promise<KycDocument> {
  return inOneTransaction(async (tx) => {
    await assertKycAccess(tx.db, principal, target.dealId, target.investorUserId);
    const at = tx.clock();
    const id = tx.newId();
    await store.insertDocument(tx.db, { id, ...target, contentHash: stored.contentHash, size: stored.size, uploadedBy: actorOf(principal), uploadedAt: at });
    await appendToChain(tx.db, {
      chain: DIRECTORY_CHAIN,
      type: 'kyc.document-uploaded',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: {
        documentId: id,
        dealId: target.dealId,
        investorUserId: target.investorUserId,
        kind: target.kind,
        contentHash: stored.contentHash,
        size: stored.size,
      },
    });
    return (await store.findDocument(tx.db, target.dealId, target.investorUserId, id))!;
  })(deps);
}

/** A file and its bytes: staff, or the investor who uploaded it; anything else is the 404 of an unknown file. */
export async function openKycDocument(
  deps: Deps,
  principal: Principal,
  dealId: string,
  investorUserId: string,
  documentId: string,
): Promise<{ document: KycDocument; content: ContentReader }> {
  await assertKycAccess(deps.db, principal, dealId, investorUserId);
  const document = await store.findDocument(deps.db, dealId, investorUserId, documentId);
  if (!document) throw notFound('KYC document', documentId);
  if (await wasErased(deps.db, investorUserId)) throw erasedContent(`The content of KYC document ${JSON.stringify(documentId)}`);
  const content = await contentsOf(deps).get(document.contentHash);
  if (!content) throw new AppError('internal', `the content ${document.contentHash} of KYC document ${documentId} is missing`);
  return { document, content };
}

export interface Review {
  decision: 'accepted' | 'rejected';
  /** Why another file is asked for (a rejection only), shown to the investor. */
  reason?: string | undefined;
}

/**
 * Staff's decision on a file, once (409 when decided already). Accepting the last of the deal's
 * required documents accepts its level, for `validMonths`; accepting a category's evidence records
 * the statement waiting for it.
 */
export async function reviewKycDocument(
  deps: Deps,
  principal: Principal,
  target: { dealId: string; investorUserId: string; documentId: string },
  review: Review,
  validMonths: number,
): Promise<KycDocument> {
  if (!isStaff(principal)) throw forbidden('Only staff decide on KYC documents');
  const reason = review.reason?.trim() || null;
  if (review.decision === 'rejected' && reason === null)
    throw invalid([{ in: 'body', field: 'reason', detail: 'says what is wrong, for the investor to read' }]);
  const { dealId, investorUserId, documentId } = target;
  return inOneTransaction(async (tx) => {
    const document = await store.findDocument(tx.db, dealId, investorUserId, documentId);
    if (!document) throw notFound('KYC document', documentId);
    const at = tx.clock();
    const by = actorOf(principal);
    if (!(await store.insertReview(tx.db, { documentId, decision: review.decision, reason, reviewedBy: by, reviewedAt: at }))) {
      throw conflict('The document was decided already; the investor uploads another for a new decision');
    }
    await appendToChain(tx.db, {
      chain: DIRECTORY_CHAIN,
      type: review.decision === 'accepted' ? 'kyc.document-accepted' : 'kyc.document-rejected',
      principal: by,
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: { documentId, dealId, investorUserId, kind: document.kind, ...(reason ? { reason } : {}) },
    });
    if (review.decision === 'accepted') {
      if (document.kind === 'category-evidence') await recordConfirmedCategory(tx, principal, dealId, investorUserId, document);
      else await acceptLevelWhenComplete(tx, principal, dealId, investorUserId, validMonths);
    }
    return (await store.findDocument(tx.db, dealId, investorUserId, documentId))!;
  })(deps);
}

/** Once every required document is accepted: the deal's level, set on the investor and appended with its day and expiry. */
async function acceptLevelWhenComplete(tx: Deps, principal: Principal, dealId: string, investorUserId: string, validMonths: number): Promise<void> {
  const settings = await store.findSettings(tx.db, dealId);
  if (!settings) return;
  const at = tx.clock();
  const acceptedOn = utcDate(at);
  const { requests } = await requestsOf(tx.db, settings, dealId, investorUserId, acceptedOn);
  if (!allAccepted(requests)) return;
  const expiresOn = kycExpiry(acceptedOn, validMonths);
  const id = tx.newId();
  await store.insertLevel(tx.db, { id, investorUserId, dealId, level: settings.level, acceptedOn, expiresOn, recordedBy: actorOf(principal), recordedAt: at });
  await store.setInvestorKycLevel(tx.db, investorUserId, settings.level, at);
  await appendToChain(tx.db, {
    chain: DIRECTORY_CHAIN,
    type: 'kyc.level-accepted',
    principal: actorOf(principal),
    tokenId: principal.tokenKey,
    at: at.toISOString(),
    change: { levelId: id, dealId, investorUserId, level: settings.level, acceptedOn, expiresOn },
  });
}

/** The investor's confirmation waiting for its certificate, recorded as their statement now that staff accepted the evidence. */
async function recordConfirmedCategory(tx: Deps, principal: Principal, dealId: string, investorUserId: string, evidence: KycDocument): Promise<void> {
  const waiting = await newestConfirmation(tx.db, dealId, investorUserId);
  if (!waiting || waiting.recorded || !waiting.needsReview) return;
  await appendStatement(tx, principal, investorUserId, {
    category: waiting.category as InvestorCategory,
    statementText: waiting.statementText,
    signedOn: waiting.confirmedAt.slice(0, 10),
    evidence: `KYC document ${evidence.id} (${evidence.fileName})`,
    confirmationId: waiting.id,
  });
}
