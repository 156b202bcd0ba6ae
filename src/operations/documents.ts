// A deal's documents (docs/reference/documents.md): staff upload a PDF (its bytes go to the content
// store first, outside any transaction; the document's row and its audit entry follow in one),
// release it to every investor at or past a step or to one investor, and see who opened what.
// Investors list and open the documents released to them; another investor's document, or one not
// released to them, answers 404 as an unknown one does. Every upload, release and read is an audit
// entry on the deal's documents chain.
import { documentsChain } from '../domain/audit.ts';
import { AppError, conflict, forbidden, invalid, notFound } from '../domain/errors.ts';
import { actorOf, isStaff, type Principal } from '../domain/principal.ts';
import { appendToChain } from '../store/audit.ts';
import { findDeal } from '../store/deals.ts';
import { ContentTooLarge, type ContentReader, EmptyContent, type StoredContent } from '../store/document-contents.ts';
import * as store from '../store/documents.ts';
import { findInvestor } from '../store/investors.ts';
import { findJourney } from '../store/journeys.ts';
import { contentsOf, type Deps } from './deps.ts';
import { inOneTransaction } from './pipeline.ts';
import { forReading } from './reads.ts';
import { loadWorkflow } from './workflows.ts';

/** The largest document taken: a subscription pack with scans is tens of megabytes. */
export const DOCUMENT_MAX_BYTES = 64 * 1024 * 1024;
const PDF_MAGIC = Buffer.from('%PDF-');

export type DealDocument = store.DocumentRow;
export interface StaffDocument extends DealDocument {
  releases: Omit<store.ReleaseRow, 'documentId'>[];
  reads: number;
}

/** The bytes, refused unless they begin as a PDF does (`%PDF-`), whatever the request said. */
async function* onlyPdf(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let head = Buffer.alloc(0);
  let checked = false;
  for await (const piece of source) {
    if (!checked) {
      head = Buffer.concat([head, piece]);
      if (head.length < PDF_MAGIC.length) continue;
      if (!head.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC))
        throw invalid([{ in: 'body', field: 'body', detail: 'is not a PDF (it does not begin with %PDF-)' }]);
      checked = true;
      yield head;
      continue;
    }
    yield piece;
  }
  if (!checked && head.length > 0) throw invalid([{ in: 'body', field: 'body', detail: 'is not a PDF (it does not begin with %PDF-)' }]);
}

function assertStaff(principal: Principal, what: string): void {
  if (!isStaff(principal)) throw forbidden(`Only staff may ${what}`);
}

/**
 * The first half of an upload: the PDF's bytes into the content store, a chunk at a time, outside
 * any transaction (a slow upload holds none open). Content no document names is harmless, and the
 * same bytes twice are stored once. The deal must exist (404).
 */
export async function storeDocumentContent(deps: Deps, principal: Principal, dealId: string, body: AsyncIterable<Uint8Array>): Promise<StoredContent> {
  assertStaff(principal, 'upload documents');
  if (!(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
  try {
    return await contentsOf(deps).put(onlyPdf(body), DOCUMENT_MAX_BYTES);
  } catch (err) {
    if (err instanceof ContentTooLarge) throw tooLarge();
    if (err instanceof EmptyContent) throw invalid([{ in: 'body', field: 'body', detail: 'is empty: send the PDF itself' }]);
    throw err;
  }
}

export const tooLarge = () => new AppError('payload-too-large', `A document may be at most ${DOCUMENT_MAX_BYTES} bytes (64 MiB)`);

/** The second half: the document's row and its audit entry, naming the stored content, in one transaction. */
export async function recordDocument(
  deps: Deps,
  principal: Principal,
  dealId: string,
  meta: { title: string; fileName: string },
  stored: StoredContent,
): Promise<DealDocument> {
  assertStaff(principal, 'upload documents');
  return inOneTransaction(async (tx) => {
    const at = tx.clock();
    const document = await store.insertDocument(tx.db, {
      id: tx.newId(),
      dealId,
      title: meta.title,
      fileName: meta.fileName,
      contentHash: stored.contentHash,
      size: stored.size,
      uploadedBy: actorOf(principal),
      uploadedAt: at,
    });
    await appendToChain(tx.db, {
      chain: documentsChain(dealId),
      type: 'document.uploaded',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: { documentId: document.id, title: document.title, fileName: document.fileName, contentHash: document.contentHash, size: document.size },
    });
    return document;
  })(deps);
}

/** Releases a document to every investor at or past `stepId`, or to one investor. 409 when released so already. */
export async function releaseDocument(
  deps: Deps,
  principal: Principal,
  dealId: string,
  documentId: string,
  to: { stepId?: string; investorUserId?: string },
): Promise<Omit<store.ReleaseRow, 'documentId'> & { documentId: string }> {
  assertStaff(principal, 'release documents');
  if ((to.stepId === undefined) === (to.investorUserId === undefined)) {
    throw invalid([{ in: 'body', field: 'stepId', detail: 'give either stepId (every investor at or past that step) or investorUserId (one investor)' }]);
  }
  return inOneTransaction(async (tx) => {
    if (!(await store.findDocument(tx.db, dealId, documentId))) throw notFound('document', documentId);
    if (to.stepId !== undefined) {
      const workflow = await loadWorkflow(tx, dealId);
      if (!workflow?.workflow.steps.some((s) => s.id === to.stepId)) throw notFound('step', to.stepId);
    }
    if (to.investorUserId !== undefined && !(await findInvestor(tx.db, to.investorUserId))) throw notFound('investor', to.investorUserId);
    const at = tx.clock();
    const release = { id: tx.newId(), documentId, stepId: to.stepId ?? null, investorUserId: to.investorUserId ?? null, releasedBy: actorOf(principal) };
    if (!(await store.insertRelease(tx.db, dealId, { ...release, releasedAt: at }))) throw conflict('The document is released so already');
    await appendToChain(tx.db, {
      chain: documentsChain(dealId),
      type: 'document.released',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: { documentId, releaseId: release.id, ...(to.stepId ? { stepId: to.stepId } : { investorUserId: to.investorUserId }) },
    });
    return { ...release, releasedAt: at.toISOString() };
  })(deps);
}

/** An investor's view of a deal: 404 for a deal that does not exist or that they have no journey in. */
async function assertInvestorInDeal(db: Deps['db'], principal: Principal, dealId: string): Promise<string> {
  const investorUserId = principal.investorUserId;
  if (investorUserId === undefined || !(await findJourney(db, dealId, investorUserId))) throw notFound('deal', dealId);
  return investorUserId;
}

/** Staff: every document of the deal with its releases and how often it was opened. Investors: those released to them. */
export async function listDocuments(deps: Deps, principal: Principal, dealId: string): Promise<(DealDocument | StaffDocument)[]> {
  const { db } = forReading(deps);
  if (!isStaff(principal)) return store.documentsOf(db, dealId, await assertInvestorInDeal(db, principal, dealId));
  if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
  const [documents, releases, reads] = await Promise.all([store.documentsOf(db, dealId), store.releasesOf(db, dealId), store.readCounts(db, dealId)]);
  return documents.map((d) => ({
    ...d,
    releases: releases.filter((r) => r.documentId === d.id).map(({ documentId: _, ...r }) => r),
    reads: reads.get(d.id) ?? 0,
  }));
}

/** Who opened a document, oldest first (staff). */
export async function listDocumentReads(deps: Deps, principal: Principal, dealId: string, documentId: string): Promise<store.ReadRow[]> {
  assertStaff(principal, "see who opened a deal's documents");
  const { db } = forReading(deps);
  if (!(await store.findDocument(db, dealId, documentId))) throw notFound('document', documentId);
  return store.readsOf(db, documentId);
}

/**
 * Opens a document for reading: the read is recorded (with its audit entry) before a byte is sent.
 * An investor may open only what is released to them; anything else is the 404 of an unknown document.
 */
export async function openDocument(
  deps: Deps,
  principal: Principal,
  dealId: string,
  documentId: string,
): Promise<{ document: DealDocument; content: ContentReader }> {
  const investorUserId = isStaff(principal) ? undefined : await assertInvestorInDeal(deps.db, principal, dealId);
  const document = await inOneTransaction(async (tx) => {
    const found = await store.findDocument(tx.db, dealId, documentId, investorUserId);
    if (!found) throw notFound('document', documentId);
    const at = tx.clock();
    const reader = actorOf(principal);
    await store.insertRead(tx.db, dealId, { id: tx.newId(), documentId, reader, readerRole: principal.role, readAt: at });
    await appendToChain(tx.db, {
      chain: documentsChain(dealId),
      type: 'document.read',
      principal: reader,
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: { documentId, contentHash: found.contentHash },
    });
    return found;
  })(deps);
  const content = await contentsOf(deps).get(document.contentHash);
  if (!content) throw new AppError('internal', `the content ${document.contentHash} of document ${documentId} is missing`);
  return { document, content };
}
