// Enqueuing transactional e-mails, always in the caller's transaction: the mail is a fact of the
// same commit as the action that causes it, so a rolled-back action sends nothing and a committed
// one cannot lose its mail (mail-dispatcher.ts sends it). Each mail names its cause (the dedupe
// key): the same cause enqueued again adds nothing. A recipient without an e-mail address gets none.
//
// For the signing of documents: call `enqueueDocumentToSign` when a document is ready for an
// investor's signature, and `enqueueCountersignedCopy` when the countersigned copy can be
// downloaded, each inside the transaction that records that fact:
//
//   await enqueueDocumentToSign(tx, { dealId, investorUserId, documentId, documentTitle });
//
// The mail links to the deal's page in the portal; one mail per document and investor, however
// often it is called.
import Big from 'big.js';
import { type MailKind, mailLanguageOf } from '../domain/mail.ts';
import { investorDealOf, money } from '../domain/investor-deal.ts';
import { remainingOf } from '../domain/commitment.ts';
import { findDeal } from '../store/deals.ts';
import { findInvestorDeals } from '../store/investor-deals.ts';
import { findCreditMailFacts } from '../store/mail-facts.ts';
import { insertMail, insertMails } from '../store/mails.ts';
import type { DecisionInput } from '../store/payment-decisions.ts';
import type { Deps } from './deps.ts';

interface Recipient {
  /** Set when the recipient is an investor: their erasure blanks the mail. */
  investorUserId?: string;
  address: string;
  name: string;
  language: string | null;
}

/** One mail, in the caller's transaction; false when its cause was enqueued before or nobody receives it. */
export async function enqueueMail(
  tx: Deps,
  mail: { kind: MailKind; dedupeKey: string; dealId: string | null; to: Recipient | null; senderName: string | null; variables: Record<string, string> },
): Promise<boolean> {
  if (!mail.to) return false;
  return insertMail(tx.db, {
    id: tx.newId(),
    kind: mail.kind,
    dedupeKey: mail.dedupeKey,
    dealId: mail.dealId,
    investorUserId: mail.to.investorUserId ?? null,
    recipientAddress: mail.to.address,
    recipientName: mail.to.name,
    language: mailLanguageOf(mail.to.language),
    senderName: mail.senderName,
    variables: { recipientName: mail.to.name, dealName: mail.senderName ?? '', ...mail.variables },
    enqueuedAt: tx.clock(),
  });
}

/** The investor as a recipient; null without an address (or when the investor is unknown). */
export async function investorRecipient(tx: Deps, investorUserId: string): Promise<Recipient | null> {
  const row = await tx.db.selectFrom('investors').select(['full_name', 'email', 'language']).where('id', '=', investorUserId).executeTakeFirst();
  return row?.email ? { investorUserId, address: row.email, name: row.full_name, language: row.language } : null;
}

export async function enqueueInvitationMail(
  tx: Deps,
  invitation: { invitationId: string; investorUserId: string; url: string; expiresAt: Date },
): Promise<boolean> {
  return enqueueMail(tx, {
    kind: 'invitation',
    dedupeKey: `invitation:${invitation.invitationId}`,
    dealId: null,
    to: await investorRecipient(tx, invitation.investorUserId),
    senderName: null,
    variables: { invitationUrl: invitation.url, expiresAt: invitation.expiresAt.toUTCString() },
  });
}

interface DocumentMail {
  dealId: string;
  investorUserId: string;
  documentId: string;
  documentTitle: string;
}

const documentMail = async (tx: Deps, kind: 'document-to-sign' | 'countersigned-copy', d: DocumentMail) =>
  enqueueMail(tx, {
    kind,
    dedupeKey: `${kind}:${d.documentId}:${d.investorUserId}`,
    dealId: d.dealId,
    to: await investorRecipient(tx, d.investorUserId),
    senderName: (await findDeal(tx.db, d.dealId))?.name ?? null,
    // documentUrl: the dispatcher prefixes the portal's address (PUBLIC_URL).
    variables: { documentTitle: d.documentTitle, documentUrl: `#/deals/${encodeURIComponent(d.dealId)}` },
  });

/** The title of the subscription agreement in its mails. */
export const AGREEMENT_TITLE = 'Subscription agreement';

/** A document waits for the investor's signature. */
export const enqueueDocumentToSign = (tx: Deps, d: DocumentMail) => documentMail(tx, 'document-to-sign', d);

/** The countersigned copy of a document can be downloaded. */
export const enqueueCountersignedCopy = (tx: Deps, d: DocumentMail) => documentMail(tx, 'countersigned-copy', d);

/**
 * How to pay, once the investor has a commitment with something still to pay and the deal has bank
 * details: one mail per commitment amount and bank account (a new amount or IBAN sends it again).
 */
export async function enqueuePaymentInstructions(tx: Deps, dealId: string, investorUserId: string): Promise<boolean> {
  const [facts] = await findInvestorDeals(tx.db, investorUserId, dealId);
  const payment = facts ? investorDealOf(facts).payment : null;
  if (!facts || !payment || !payment.iban || new Big(payment.remaining).lte(0)) return false;
  return enqueueMail(tx, {
    kind: 'payment-instructions',
    dedupeKey: `payment-instructions:${dealId}:${investorUserId}:${payment.amountDue}:${payment.iban}`,
    dealId,
    to: await investorRecipient(tx, investorUserId),
    senderName: facts.dealName,
    variables: {
      amountDue: payment.amountDue,
      amountRemaining: payment.remaining,
      currency: payment.currency ?? '',
      reference: payment.reference,
      beneficiaryName: payment.beneficiaryName ?? '',
      iban: payment.iban,
      bic: payment.bic ?? '',
    },
  });
}

/**
 * One mail per booked credit (a decision that allocates money to an investor), after the decisions
 * are recorded: two statements for a whole batch (the facts of every investor concerned, then the
 * mails), so a statement's import does not send more statements the more credits it books.
 */
export async function enqueueCreditsReceived(tx: Deps, decisions: readonly DecisionInput[]): Promise<void> {
  const credits = decisions.flatMap((d) => {
    if (!d.dealId || !d.investorUserId) return [];
    const credited = (d.allocations ?? []).filter((a) => a.dealId === d.dealId && a.investorUserId === d.investorUserId && new Big(a.amount).gt(0));
    if (credited.length === 0) return [];
    const amount = credited.length === 1 ? credited[0]!.amount : credited.reduce((sum, a) => sum.plus(a.amount), new Big(0)).toFixed();
    return [{ id: d.id, dealId: d.dealId, investorUserId: d.investorUserId, amount, currency: credited[0]!.currency }];
  });
  if (credits.length === 0) return;
  const facts = await findCreditMailFacts(tx.db, credits);
  const factsOf = new Map(facts.map((f) => [`${f.dealId}\n${f.investorUserId}`, f]));
  const now = tx.clock();
  const mails = credits.flatMap((c) => {
    const f = factsOf.get(`${c.dealId}\n${c.investorUserId}`);
    if (!f?.email) return [];
    const remaining = remainingOf(f.commitment, f.received);
    return [
      {
        id: tx.newId(),
        kind: 'payment-received',
        dedupeKey: `payment-received:${c.id}`,
        dealId: c.dealId,
        investorUserId: c.investorUserId,
        recipientAddress: f.email,
        recipientName: f.fullName,
        language: mailLanguageOf(f.language),
        senderName: f.dealName,
        variables: {
          recipientName: f.fullName,
          dealName: f.dealName,
          amountReceived: c.amount,
          totalReceived: money(new Big(f.received), c.currency),
          amountRemaining: remaining === null ? '' : money(remaining, c.currency),
          currency: c.currency,
          reference: f.paymentReference,
        },
        enqueuedAt: now,
      },
    ];
  });
  await insertMails(tx.db, mails);
}

/** The investor's edit request was approved or rejected. */
export async function enqueueEditRequestDecided(
  tx: Deps,
  request: { id: string; dealId: string; investorUserId: string; type: string },
  decided: { status: 'approved' | 'rejected'; reason: string | null },
): Promise<boolean> {
  return enqueueMail(tx, {
    kind: 'edit-request-decided',
    dedupeKey: `edit-request-decided:${request.id}`,
    dealId: request.dealId,
    to: await investorRecipient(tx, request.investorUserId),
    senderName: (await findDeal(tx.db, request.dealId))?.name ?? null,
    variables: { requestType: request.type, decision: decided.status, reason: decided.reason ?? '' },
  });
}
