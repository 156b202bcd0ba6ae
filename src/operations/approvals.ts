// Deciding a four-eyes proposal (docs/reference/approvals.md). Approving applies exactly the stored
// input through the same operation code as the direct write (payment-settings.ts,
// payment-line-decisions.ts, bulk-moves.ts, workflow-changes.ts, erasure.ts), in one transaction with the decision row, unless the basis moved
// since it was proposed: then nothing is applied and the decision is recorded as `refused`, naming
// what changed (409). Rejecting records the decision with its reason. Either way, never by the
// proposer (403: a second person must), never twice (409), and only with the role the write needs
// (domain/four-eyes.ts, refusalToDecide).
// Contract: unknown proposal 404; investors 403.
import { AppError, notFound } from '../domain/errors.ts';
import { basisChanges, describeChanges, type Proposal, refusalToDecide } from '../domain/four-eyes.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import { findPaymentSettings } from '../store/payment-settings.ts';
import { findProposal } from '../store/approvals.ts';
import type { MoveInput } from './apply-moves.ts';
import { bulkMove, bulkMoveBasis } from './bulk-moves.ts';
import { type Deps, forgetContents } from './deps.ts';
import { applyHeldErasure, erasureBasis, type HeldErasure } from './erasure.ts';
import { applyPaymentDecision, lineBasis, type PaymentDecisionInput } from './payment-line-decisions.ts';
import { applyPaymentSettings, type PaymentSettingsInput } from './payment-settings.ts';
import { type Answer, inOneTransaction, type WriteRequest, write } from './pipeline.ts';
import { type ProposalView, recordProposalDecision } from './proposals.ts';
import { invalidateLocally } from './caches.ts';
import { applyWorkflowChange, type WorkflowChangeInput, workflowBasis } from './workflow-changes.ts';
import { type MigrationInput, migrateWorkflow } from './workflow-migration.ts';

const isWorkflowAction = (action: Proposal['action']) => action === 'workflow-change' || action === 'workflow-migration';

/** An approval refused because the proposal's basis moved: its decision is recorded in a transaction of its own. */
class BasisMoved extends AppError {}

/** The proposal, locked, when `principal` may decide it; else the refusal (404, 403, 409). */
async function decidable(tx: Deps, principal: Principal, proposalId: string): Promise<Proposal> {
  const proposal = await findProposal(tx.db, proposalId, { lock: true });
  if (!proposal) throw notFound('proposal', proposalId);
  const refusal = refusalToDecide(proposal, { actor: actorOf(principal), role: principal.role });
  if (refusal) throw new AppError(refusal.kind, refusal.detail, refusal.kind === 'conflict' ? { extensions: { outcome: proposal.decision?.outcome } } : {});
  return proposal;
}

/** The basis as it stands now, and what the proposal is about, in words. */
async function basisNow(tx: Deps, proposal: Proposal): Promise<{ now: Record<string, unknown>; what: string }> {
  if (isWorkflowAction(proposal.action)) return { now: await workflowBasis(tx, proposal.dealId), what: `The workflow of deal ${proposal.dealId}` };
  if (proposal.action === 'bulk-move') {
    const moves = (proposal.input as { moves: MoveInput[] }).moves;
    return { now: await bulkMoveBasis(tx, proposal.dealId, moves), what: `The investors of the bulk move in deal ${proposal.dealId}` };
  }
  if (proposal.action === 'erasure') {
    const investorUserId = String(proposal.input.investorUserId);
    return { now: await erasureBasis(tx, investorUserId), what: `Investor ${investorUserId}` };
  }
  if (proposal.action === 'payee-change') {
    const current = (await findPaymentSettings(tx.db, [proposal.dealId])).get(proposal.dealId);
    return { now: { iban: current?.iban ?? null, updatedAt: current?.updatedAt ?? null }, what: `The payment settings of deal ${proposal.dealId}` };
  }
  const lineId = String(proposal.input.lineId);
  return { now: await lineBasis(tx, lineId), what: `Payment line ${lineId}` };
}

/** What an applied erasure leaves for after the commit: the API keys it revoked, the contents it deleted. */
interface AfterErasure {
  revoked: string[];
  removed: string[];
}

/** The stored input applied, as the direct write would apply it, by the approver; `after` collects what an erasure leaves for after the commit. */
async function apply(tx: Deps, principal: Principal, proposal: Proposal, after: AfterErasure): Promise<unknown> {
  if (proposal.action === 'erasure') {
    const { erasure, revokedTokens, removedContents } = await applyHeldErasure(tx, principal, proposal.input as unknown as HeldErasure);
    after.revoked.push(...revokedTokens);
    after.removed.push(...removedContents);
    return erasure;
  }
  if (proposal.action === 'workflow-change')
    return (await applyWorkflowChange(tx, { principal }, proposal.dealId, proposal.input as unknown as WorkflowChangeInput)).workflow;
  if (proposal.action === 'workflow-migration') return migrateWorkflow(tx, principal, proposal.dealId, proposal.input as MigrationInput, { dryRun: false });
  if (proposal.action === 'bulk-move') {
    const { moves, atomic } = proposal.input as { moves: MoveInput[]; atomic: boolean };
    const tag = { id: tx.newId(), kind: 'bulk-move' } as const;
    const results = await bulkMove(tx, principal, proposal.dealId, moves, atomic ? { atomic, tag } : { joined: true, tag });
    const refused = results.flatMap((r, i) => (r.ok ? [] : [{ investorUserId: moves[i]!.investorUserId, refusal: r.refusal }]));
    return { batchId: tag.id, moved: results.length - refused.length, refused };
  }
  if (proposal.action === 'payee-change') return (await applyPaymentSettings(tx, proposal.dealId, proposal.input as unknown as PaymentSettingsInput)).settings;
  const { lineId, ...input } = proposal.input;
  return applyPaymentDecision(tx, principal, String(lineId), { action: proposal.action, ...input } as PaymentDecisionInput);
}

export async function approveProposal(deps: Deps, request: WriteRequest, proposalId: string): Promise<Answer> {
  let workflowOf: string | undefined;
  const after: AfterErasure = { revoked: [], removed: [] };
  try {
    const answer = await write(deps, request, 200, async (tx) => {
      const proposal = await decidable(tx, request.principal, proposalId);
      if (isWorkflowAction(proposal.action)) workflowOf = proposal.dealId;
      const { now, what } = await basisNow(tx, proposal);
      const changed = basisChanges(proposal.basis, now);
      if (changed.length > 0) throw new BasisMoved('conflict', describeChanges(what, changed), { extensions: { outcome: 'refused', changed } });
      const result = await apply(tx, request.principal, proposal, after);
      return (await recordProposalDecision(tx, request.principal, proposal, { outcome: 'approved', reason: null, result }))!;
    });
    // An approved workflow change: this instance's cached workflow dropped once committed (others: by NOTIFY).
    if (workflowOf !== undefined) invalidateLocally({ kind: 'workflow', dealId: workflowOf });
    for (const tokenId of after.revoked) invalidateLocally({ kind: 'token', tokenId });
    await forgetContents(deps, after.removed);
    return answer;
  } catch (err) {
    if (!(err instanceof BasisMoved)) throw err;
    // The refusal is kept: it is part of the proposal's history, whatever is asked next.
    await inOneTransaction(async (tx) => {
      const proposal = await decidable(tx, request.principal, proposalId);
      await recordProposalDecision(tx, request.principal, proposal, { outcome: 'refused', reason: err.message, result: err.extensions ?? null });
    })(deps);
    throw err;
  }
}

export function rejectProposal(deps: Deps, request: WriteRequest, proposalId: string, reason: string): Promise<Answer> {
  return write(deps, request, 200, async (tx): Promise<ProposalView> => {
    const proposal = await decidable(tx, request.principal, proposalId);
    return (await recordProposalDecision(tx, request.principal, proposal, { outcome: 'rejected', reason, result: null }))!;
  });
}
