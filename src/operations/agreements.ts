// Subscription agreements (docs/reference/documents.md, "Subscription agreements"): a deal's
// template uploaded by staff, and each investor's agreement: the template (or a page made from the
// deal's text) filled with their data, which they review, then sign in the portal and staff
// countersign (agreement-signing.ts). The agreement an investor or staff open is its newest form:
// countersigned, else signed, else the filled PDF. Another investor's agreement is a 404.
import { DEFAULT_COMMITMENT_FIELD_KEY, DEFAULT_CURRENCY_FIELD_KEY } from '../domain/commitment.ts';
import { documentsChain } from '../domain/audit.ts';
import { AppError, erasedContent, forbidden, invalid, notFound } from '../domain/errors.ts';
import { actorOf, isStaff, type Principal } from '../domain/principal.ts';
import { type AgreementState, requiresSignedAgreement, type Step } from '../domain/workflow.ts';
import * as store from '../store/agreements.ts';
import { appendToChain } from '../store/audit.ts';
import { findDeal } from '../store/deals.ts';
import type { ContentReader, StoredContent } from '../store/document-contents.ts';
import { wasErased } from '../store/erasure.ts';
import { findInvestor } from '../store/investors.ts';
import { findPaymentSettings } from '../store/payment-settings.ts';
import type { Db } from '../store/schema.ts';
import type { AgreementData } from './agreement-pdf.ts';
import { contentsOf, type Deps } from './deps.ts';
import { inOneTransaction } from './pipeline.ts';
import { loadWorkflow } from './workflows.ts';

export type { AgreementState };

export interface Agreement {
  dealId: string;
  investorUserId: string;
  investorName: string;
  state: AgreementState;
  /** SHA-256 of the PDF in its newest form: what the next signature binds. */
  contentHash: string;
  /** The template's hash; null for a page made from the deal's text. */
  templateHash: string | null;
  /** Whether a step of the deal's workflow requires it signed and countersigned. */
  required: boolean;
  signatures: Omit<store.SignatureRow, 'dealId' | 'investorUserId'>[];
}

export interface AgreementTemplate extends store.TemplateRow {
  /** The names of the template's form fields. */
  fields: string[];
}

/** Every byte of a stored content (agreements are a few pages: they are signed whole). */
export async function bytesOfContent(deps: Deps, contentHash: string): Promise<Buffer> {
  const content = await contentsOf(deps).get(contentHash);
  if (!content) throw new AppError('internal', `the content ${contentHash} is missing`);
  const chunks: Uint8Array[] = [];
  for await (const chunk of content.chunks) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Stores server-made bytes (a filled or sealed PDF) by their hash. */
export async function storeBytes(deps: Deps, bytes: Buffer): Promise<StoredContent> {
  return contentsOf(deps).put(
    (async function* () {
      yield bytes;
    })(),
    bytes.length,
  );
}

const notAPdf = (detail: string) => invalid([{ in: 'body', field: 'body', detail }]);

/** Records the stored content as the deal's template in use (staff; storeDocumentContent stored it). 400 when no PDF reader can open it. */
export async function recordAgreementTemplate(deps: Deps, principal: Principal, dealId: string, stored: StoredContent): Promise<AgreementTemplate> {
  if (!isStaff(principal)) throw forbidden('Only staff may upload agreement templates');
  return inOneTransaction(async (tx) => {
    let fields: string[];
    try {
      const { PDFDocument } = await import('pdf-lib');
      const doc = await PDFDocument.load(await bytesOfContent(tx, stored.contentHash), { updateMetadata: false });
      fields = doc
        .getForm()
        .getFields()
        .map((f) => f.getName());
    } catch (err) {
      throw notAPdf(`cannot be read as a PDF form: ${(err as Error).message}`);
    }
    const at = tx.clock();
    const template = await store.insertTemplate(tx.db, {
      id: tx.newId(),
      dealId,
      contentHash: stored.contentHash,
      uploadedBy: actorOf(principal),
      uploadedAt: at,
    });
    await appendToChain(tx.db, {
      chain: documentsChain(dealId),
      type: 'agreement.template-uploaded',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: { templateId: template.id, contentHash: template.contentHash, fields },
    });
    return { ...template, fields };
  })(deps);
}

/** The investor whose agreement `principal` may see: an investor only their own, with a journey in the deal (else 404). */
async function subjectOf(db: Db, principal: Principal, dealId: string, investorUserId: string): Promise<{ name: string; captured: Record<string, string> }> {
  if (!isStaff(principal) && principal.investorUserId !== investorUserId) throw notFound('agreement', investorUserId);
  const [captured, investor] = [await store.capturedOf(db, dealId, investorUserId), await findInvestor(db, investorUserId)];
  if (!captured || !investor) throw isStaff(principal) && !(await findDeal(db, dealId)) ? notFound('deal', dealId) : notFound('agreement', investorUserId);
  return { name: investor.contact.fullName, captured };
}

/** The filled PDF the investor reviews: the deal's template filled, or a page from the deal's text. */
async function filledAgreement(deps: Deps, dealId: string, subject: { name: string; captured: Record<string, string> }, steps: readonly Step[]) {
  const { db } = deps;
  const deal = (await findDeal(db, dealId))!;
  const settings = (await findPaymentSettings(db, [dealId])).get(dealId);
  const labels = new Map<string, string>();
  for (const step of steps) for (const f of step.stepFields) labels.set(f.fieldKey, f.label ?? f.fieldKey);
  const currencyKey = settings ? settings.currencyFieldKey : DEFAULT_CURRENCY_FIELD_KEY;
  const data: AgreementData = {
    dealName: deal.name,
    dealDescription: deal.description,
    investorName: subject.name,
    captured: subject.captured,
    labels,
    amount: subject.captured[settings?.commitmentFieldKey ?? DEFAULT_COMMITMENT_FIELD_KEY] ?? null,
    currency: (currencyKey ? subject.captured[currencyKey] : undefined) ?? deal.currency ?? null,
    date: deps.clock().toISOString().slice(0, 10),
  };
  const template = await store.currentTemplate(db, dealId);
  // pdf-lib loads at the first agreement, not at start (sign-in.ts webAuthn says why).
  const { fillTemplate, generateAgreement } = await import('./agreement-pdf.ts');
  const bytes = template ? await fillTemplate(await bytesOfContent(deps, template.contentHash), data) : await generateAgreement(data);
  return { bytes, templateHash: template?.contentHash ?? null };
}

const hashOf = async (bytes: Buffer) => Buffer.from(await crypto.subtle.digest('SHA-256', bytes)).toString('hex');

/** The agreement in its newest form, and its bytes when it is still the filled PDF. */
export async function currentAgreement(deps: Deps, principal: Principal, dealId: string, investorUserId: string): Promise<Agreement & { filled?: Buffer }> {
  const subject = await subjectOf(deps.db, principal, dealId, investorUserId);
  const signatures = await store.signaturesOf(deps.db, dealId, investorUserId);
  const signed = signatures.find((s) => s.role === 'investor');
  const countersigned = signatures.find((s) => s.role === 'countersigner');
  const steps = (await loadWorkflow(deps, dealId))?.workflow.steps ?? [];
  const base = {
    dealId,
    investorUserId,
    investorName: subject.name,
    required: steps.some(requiresSignedAgreement),
    signatures: signatures.map(({ dealId: _, investorUserId: __, ...s }) => s),
  };
  if (countersigned) return { ...base, state: 'countersigned', contentHash: countersigned.sealedHash, templateHash: null };
  if (signed) return { ...base, state: 'signed', contentHash: signed.sealedHash, templateHash: null };
  const { bytes, templateHash } = await filledAgreement(deps, dealId, subject, steps);
  return { ...base, state: 'to-sign', contentHash: await hashOf(bytes), templateHash, filled: bytes };
}

/** GET …/agreement: the agreement's state (an investor: their own; staff: anyone's). */
export async function getAgreement(deps: Deps, principal: Principal, dealId: string, investorUserId: string): Promise<Agreement> {
  const { filled: _, ...agreement } = await currentAgreement(deps, principal, dealId, investorUserId);
  return agreement;
}

/** Staff: every investor's agreement in the deal that has a signature, oldest signature first. */
export async function listAgreements(deps: Deps, principal: Principal, dealId: string): Promise<Agreement[]> {
  if (!isStaff(principal)) throw forbidden("Only staff may list a deal's agreements");
  if (!(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
  const investors = [...new Set((await store.signaturesOf(deps.db, dealId)).map((s) => s.investorUserId))];
  return Promise.all(investors.map((id) => getAgreement(deps, principal, dealId, id)));
}

/** 404 for the PDF of an erased investor's agreement: its contents went with their personal data. */
export async function assertAgreementKept(db: Db, investorUserId: string): Promise<void> {
  if (await wasErased(db, investorUserId)) throw erasedContent(`The PDFs of investor ${JSON.stringify(investorUserId)}'s agreement`);
}

/** The PDF in its newest form, for reading; the read is an audit entry, as a document's is. */
export async function openAgreement(
  deps: Deps,
  principal: Principal,
  dealId: string,
  investorUserId: string,
): Promise<{ agreement: Agreement; content: ContentReader }> {
  const { filled, ...agreement } = await currentAgreement(deps, principal, dealId, investorUserId);
  await assertAgreementKept(deps.db, investorUserId);
  await inOneTransaction(async (tx) => {
    const at = tx.clock();
    await appendToChain(tx.db, {
      chain: documentsChain(dealId),
      type: 'agreement.read',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: { investorUserId, state: agreement.state, contentHash: agreement.contentHash },
    });
  })(deps);
  if (filled) {
    return {
      agreement,
      content: {
        size: filled.length,
        chunks: (async function* () {
          yield filled;
        })(),
      },
    };
  }
  const content = await contentsOf(deps).get(agreement.contentHash);
  if (!content) throw new AppError('internal', `the content ${agreement.contentHash} is missing`);
  return { agreement, content };
}
