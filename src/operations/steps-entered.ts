// What entering a step sets off, in the move's transaction: a complete step books the subscription
// (when the deal names an asset, completion-booking.ts), an investor with a commitment still to pay
// is mailed how to pay (once per amount and bank account, mail-outbox.ts), and an investor who
// enters a step from which a link leads to a step requiring the signed agreement is mailed that
// their subscription agreement waits for their signature (once per agreement template, while it is
// not signed).
import type { Principal } from '../domain/principal.ts';
import { requiresSignedAgreement, type Step, type Workflow } from '../domain/workflow.ts';
import { agreementStateOf, currentTemplate } from '../store/agreements.ts';
import { bookOnCompletion } from './completion-booking.ts';
import type { Deps } from './deps.ts';
import { AGREEMENT_TITLE, enqueueDocumentToSign, enqueuePaymentInstructions } from './mail-outbox.ts';
import { loadWorkflow } from './workflows.ts';

export async function afterStepsEntered(
  tx: Deps,
  dealId: string,
  entered: readonly { investorUserId: string; step: Step | undefined; eventId: string; by: Principal; at: Date }[],
  /** The deal has a bank account to pay into (read with the moves' facts): without one, there is nothing to tell how to pay. */
  payable: boolean,
): Promise<void> {
  if (entered.length === 0) return;
  for (const e of entered) {
    await bookOnCompletion(tx, e.by, { dealId, investorUserId: e.investorUserId, step: e.step, eventId: e.eventId, at: e.at });
    if (payable) await enqueuePaymentInstructions(tx, dealId, e.investorUserId);
  }
  // The move loaded the workflow into this instance's cache: no statement unless it requires the agreement.
  const beforeSigning = stepsBeforeSigning((await loadWorkflow(tx, dealId))?.workflow);
  if (beforeSigning.size === 0) return;
  const toSign = entered.filter((e) => e.step && beforeSigning.has(e.step.id)).map((e) => e.investorUserId);
  if (toSign.length > 0) await enqueueAgreementsToSign(tx, dealId, toSign);
}

/** The steps from which a link leads to a step that requires the signed agreement (none: an empty set). */
export function stepsBeforeSigning(workflow: Workflow | undefined): Set<string> {
  const signing = new Set(workflow?.steps.filter(requiresSignedAgreement).map((s) => s.id));
  return new Set(signing.size === 0 ? [] : workflow!.links.filter((l) => signing.has(l.toStepId)).map((l) => l.fromStepId));
}

/**
 * Mails each investor whose agreement is not signed yet that it waits for their signature. Every
 * deal has an agreement (its template filled, or a page made from the deal's text: agreements.ts),
 * so the mail's cause is the agreement's template (or the generated page) and the investor: a new
 * template mails again, entering the step again does not.
 */
async function enqueueAgreementsToSign(tx: Deps, dealId: string, investorUserIds: readonly string[]): Promise<void> {
  const template = await currentTemplate(tx.db, dealId);
  const documentId = `agreement:${dealId}:${template?.id ?? 'generated'}`;
  for (const investorUserId of investorUserIds) {
    if ((await agreementStateOf(tx.db, dealId, investorUserId)) !== 'to-sign') continue;
    await enqueueDocumentToSign(tx, { dealId, investorUserId, documentId, documentTitle: AGREEMENT_TITLE });
  }
}
