// Four-eyes proposals (docs/reference/approvals.md): a write held for a second person is recorded
// with its exact input and its basis, in the caller's transaction, with its audit entry
// (`approval.proposed` in the deal's approvals chain) and its feed entry (`approval.proposed`, to
// the deal's feed and the triggers of the deal's steps that list it). Decisions are recorded the
// same way (`approval.approved|rejected|refused`, feed `approval.decided`). Reading: the list of
// pending or decided proposals, and one proposal (staff only).
import { approvalsChain } from '../domain/audit.ts';
import { forbidden, notFound } from '../domain/errors.ts';
import { type DecisionOutcome, type Proposal, type ProposalAction, type ProposalStatus, roleToDecide, statusOf } from '../domain/four-eyes.ts';
import { actorOf, isStaff, type Principal, type StaffRole } from '../domain/principal.ts';
import { findProposal, insertDecision, insertProposal, pageProposals, tokenName } from '../store/approvals.ts';
import { appendToChain } from '../store/audit.ts';
import { appendOutbox } from '../store/outbox.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';
import { loadWorkflow } from './workflows.ts';

/** A proposal as the API shows it: with its status and the role a decision on it needs. */
export interface ProposalView extends Proposal {
  status: ProposalStatus;
  neededRole: StaffRole;
}

export const viewOf = (proposal: Proposal): ProposalView => ({ ...proposal, status: statusOf(proposal), neededRole: roleToDecide(proposal.action) });

/** Who a principal is, by name, for people reading a proposal: a JWT's name claim, else the API key's name. */
export const nameOf = async (tx: Deps, principal: Principal): Promise<string | null> => principal.name ?? (await tokenName(tx.db, principal.tokenKey));

/** The feed entry of a proposal, to the deal's feed and to every step trigger of the deal that lists the type. */
async function announce(tx: Deps, type: 'approval.proposed' | 'approval.decided', proposal: Proposal) {
  const steps = (await loadWorkflow(tx, proposal.dealId))?.workflow.steps.map((s) => s.id) ?? [];
  await appendOutbox(tx.db, {
    id: tx.newId(),
    type,
    occurredAt: tx.clock(),
    dealId: proposal.dealId,
    stepIds: steps,
    data: { dealId: proposal.dealId, proposal: viewOf(proposal) },
  });
}

/** Holds a write for a second person (in the caller's transaction): the proposal, its audit entry and its feed entry. */
export async function propose(
  tx: Deps,
  principal: Principal,
  held: { action: ProposalAction; dealId: string; input: Record<string, unknown>; basis: Record<string, unknown> },
): Promise<ProposalView> {
  const at = tx.clock();
  const proposal = await insertProposal(tx.db, {
    id: tx.newId(),
    ...held,
    proposedBy: actorOf(principal),
    proposedByName: await nameOf(tx, principal),
    proposedAt: at.toISOString(),
  });
  await appendToChain(
    tx.db,
    {
      chain: approvalsChain(held.dealId),
      type: 'approval.proposed',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: JSON.parse(JSON.stringify({ proposalId: proposal.id, dealId: held.dealId, action: held.action, input: held.input, basis: held.basis })),
    },
    held.dealId,
  );
  await announce(tx, 'approval.proposed', proposal);
  return viewOf(proposal);
}

/**
 * Records a proposal's decision (in the caller's transaction, which holds the proposal's lock), its
 * audit entry and its feed entry. False when the proposal already had one (nothing recorded).
 */
export async function recordProposalDecision(
  tx: Deps,
  principal: Principal,
  proposal: Proposal,
  decision: { outcome: DecisionOutcome; reason: string | null; result: unknown },
): Promise<ProposalView | undefined> {
  const at = tx.clock();
  const decided = { ...decision, decidedBy: actorOf(principal), decidedByName: await nameOf(tx, principal), decidedAt: at.toISOString() };
  if (!(await insertDecision(tx.db, proposal.id, decided))) return undefined;
  await appendToChain(
    tx.db,
    {
      chain: approvalsChain(proposal.dealId),
      type: `approval.${decision.outcome}`,
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: { proposalId: proposal.id, dealId: proposal.dealId, action: proposal.action, outcome: decision.outcome, reason: decision.reason },
    },
    proposal.dealId,
  );
  const withDecision = { ...proposal, decision: decided };
  await announce(tx, 'approval.decided', withDecision);
  return viewOf(withDecision);
}

const assertStaff = (principal: Principal) => {
  if (!isStaff(principal)) throw forbidden('Only staff see proposals');
};

/** Proposals newest first: `pending` (awaiting a second person), `decided`, or both. */
export async function listApprovals(
  deps: Deps,
  principal: Principal,
  filter: { status?: 'pending' | 'decided' | undefined; dealId?: string | undefined },
  page: { limit: number; page: number },
) {
  assertStaff(principal);
  const { items, total } = await pageProposals(forReading(deps).db, filter, { limit: page.limit, offset: (page.page - 1) * page.limit });
  return { output: items.map(viewOf), page: page.page, totalPages: Math.ceil(total / page.limit) };
}

export async function getApproval(deps: Deps, principal: Principal, proposalId: string): Promise<ProposalView> {
  assertStaff(principal);
  const proposal = await findProposal(forReading(deps).db, proposalId);
  if (!proposal) throw notFound('proposal', proposalId);
  return viewOf(proposal);
}
