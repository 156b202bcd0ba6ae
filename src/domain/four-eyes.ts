// Four-eyes approvals, pure: which writes wait for a second person, who may decide them, and what
// moved since a proposal was checked. A held write is a proposal: its exact input and its `basis`
// (the facts it was checked against: a payment line's status and decision count, the payee's
// IBAN); approving it applies that input through the same operation as the direct write, unless the
// basis moved, when the approval is refused and recorded so.
import Big from 'big.js';
import { amountOf } from './commitment.ts';
import { isStaff, type Role, roleMeets, type StaffRole } from './principal.ts';

/**
 * What a proposal would do: the payee's IBAN replaced or removed, a payment line decided, many
 * investors moved at once, a deal's workflow replaced, its journeys migrated onto the current
 * version, or an investor's personal data erased.
 */
export const proposalActions = [
  'payee-change',
  'payment-assign',
  'payment-split',
  'payment-dismiss',
  'bulk-move',
  'workflow-change',
  'workflow-migration',
  'erasure',
] as const;
export type ProposalAction = (typeof proposalActions)[number];

/** The actions a deal's four-eyes rules switch on or off (the payee change is always four-eyes). */
export const fourEyesRuleActions = ['payment-decision', 'bulk-move', 'workflow-change', 'erasure'] as const;
export type FourEyesRuleAction = (typeof fourEyesRuleActions)[number];

export const decisionOutcomes = ['approved', 'rejected', 'refused'] as const;
export type DecisionOutcome = (typeof decisionOutcomes)[number];
export const proposalStatuses = ['pending', ...decisionOutcomes] as const;
export type ProposalStatus = (typeof proposalStatuses)[number];

export interface ProposalDecision {
  outcome: DecisionOutcome;
  decidedBy: string;
  decidedByName: string | null;
  reason: string | null;
  decidedAt: string;
  result: unknown;
}

export interface Proposal {
  id: string;
  action: ProposalAction;
  dealId: string;
  input: Record<string, unknown>;
  basis: Record<string, unknown>;
  proposedBy: string;
  proposedByName: string | null;
  proposedAt: string;
  decision: ProposalDecision | null;
}

const decidingRoles: Readonly<Record<ProposalAction, StaffRole>> = {
  'payee-change': 'admin',
  'payment-assign': 'approver',
  'payment-split': 'approver',
  'payment-dismiss': 'approver',
  'bulk-move': 'operator',
  'workflow-change': 'admin',
  'workflow-migration': 'admin',
  erasure: 'admin',
};

/** The role a decision on a proposal needs: the role its write needs when made directly. */
export const roleToDecide = (action: ProposalAction): StaffRole => decidingRoles[action];

export const statusOf = (proposal: Pick<Proposal, 'decision'>): ProposalStatus => proposal.decision?.outcome ?? 'pending';

/**
 * Whether a payee change waits for a second person: an IBAN already set is replaced by another or
 * removed. The first IBAN of a deal is set directly (there is no payee yet to divert money from);
 * removing one is four-eyes, so "remove, then set" is no way around it.
 */
export const payeeChangeNeedsSecondPerson = (current: string | null, next: string | null): boolean => current !== null && current !== next;

/** A deal's bulk-move rule: a batch waits from this many investors, or from this sum of commitments (null: not by that measure). */
export interface BulkMoveRule {
  fromInvestors: number | null;
  /** A decimal amount in the deal's currency. */
  fromAmount: string | null;
}

/** Whether a bulk move of `count` investors whose commitments add up to `amount` waits for a second person under `rule`. */
export const bulkMoveNeedsSecondPerson = (batch: { count: number; amount: Big }, rule: BulkMoveRule): boolean =>
  (rule.fromInvestors !== null && batch.count >= rule.fromInvestors) || (rule.fromAmount !== null && batch.amount.gte(rule.fromAmount));

/**
 * The sum of the commitments a bulk move concerns: each investor's commitment as the move leaves it
 * (the value the move captures under `commitmentKey`, else the one captured before), counted once
 * per investor; a value that is not an amount counts as nothing.
 */
export function batchCommitment(
  moves: readonly { investorUserId: string; data: Readonly<Record<string, string>> }[],
  commitmentKey: string,
  captured: ReadonlyMap<string, string | null>,
): Big {
  const after = new Map<string, string | null>();
  for (const move of moves)
    after.set(move.investorUserId, move.data[commitmentKey] ?? after.get(move.investorUserId) ?? captured.get(move.investorUserId) ?? null);
  let total = new Big(0);
  for (const value of after.values()) total = total.plus(amountOf(value) ?? 0);
  return total;
}

/** Why `decider` may not decide `proposal` (the problem's kind and detail), or null when they may. */
export function refusalToDecide(
  proposal: Pick<Proposal, 'action' | 'proposedBy' | 'decision'>,
  decider: { actor: string; role: Role },
): { kind: 'forbidden' | 'conflict'; detail: string } | null {
  if (!isStaff(decider)) return { kind: 'forbidden', detail: 'Only staff decide proposals' };
  const needed = roleToDecide(proposal.action);
  if (!roleMeets(decider.role, needed))
    return { kind: 'forbidden', detail: `Deciding a ${proposal.action} needs the ${needed} role or above; yours is ${decider.role}` };
  if (decider.actor === proposal.proposedBy) {
    return { kind: 'forbidden', detail: 'A second person must decide this proposal: you proposed it, so you can neither approve nor reject it' };
  }
  if (proposal.decision) return { kind: 'conflict', detail: `The proposal was already decided: ${proposal.decision.outcome}` };
  return null;
}

export interface BasisChange {
  field: string;
  was: unknown;
  now: unknown;
}

/** The members of `basis` whose value differs now (compared as JSON), in the basis's order. */
export function basisChanges(basis: Record<string, unknown>, now: Record<string, unknown>): BasisChange[] {
  return Object.entries(basis)
    .filter(([field, was]) => JSON.stringify(was ?? null) !== JSON.stringify(now[field] ?? null))
    .map(([field, was]) => ({ field, was: was ?? null, now: now[field] ?? null }));
}

/** The refused approval's detail: what moved, in words. */
export const describeChanges = (what: string, changes: readonly BasisChange[]): string =>
  `${what} changed since the proposal (${changes.map((c) => `${c.field} was ${JSON.stringify(c.was)}, now ${JSON.stringify(c.now)}`).join('; ')}): nothing was applied; propose again`;
