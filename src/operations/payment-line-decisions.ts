// A staff decision on a queued payment line (assign, split, dismiss) as an edge asks for it: applied
// at once (200, payment-queue.ts), or, when a deal it concerns has its payment decisions under
// four-eyes (four-eyes.ts), held for a second person (202 with the proposal): nothing applied.
// The deals a decision concerns: the line's, the ones its shares go to, and the ones it already
// gave money to (a decision first takes that back).
// Contract: as payment-queue.ts (unknown line 404, a line not in the queue 409, an investor without
// a journey 404, shares that do not add up 422, …) on either path: a held decision is tried first
// and undone, so one that would be refused now is refused, not held.
import { AppError, notFound } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import { lineAllocations, lineDecisions } from '../store/payment-decisions.ts';
import { findLine } from '../store/payment-lines.ts';
import { undoneAfter } from '../store/savepoints.ts';
import type { Deps } from './deps.ts';
import { fourEyesDeal } from './four-eyes.ts';
import { allocateLine, assignLine, dismissLine, type Share } from './payment-queue.ts';
import { type Answer, type WriteRequest, writeOutcome } from './pipeline.ts';
import { propose } from './proposals.ts';

export type PaymentDecisionInput =
  | { action: 'payment-assign'; dealId: string; investorUserId: string }
  | { action: 'payment-split'; shares: Share[] }
  | { action: 'payment-dismiss'; reason: string };

export function decidePaymentLine(deps: Deps, request: WriteRequest, lineId: string, decision: PaymentDecisionInput): Promise<Answer> {
  return writeOutcome(deps, request, async (tx) => {
    const line = await findLine(tx.db, lineId, { lock: true });
    if (!line) throw notFound('payment line', lineId);
    if (line.status !== 'queued') throw new AppError('conflict', `line ${lineId} is ${line.status}, not in the queue`, { extensions: { status: line.status } });
    const shares = decision.action === 'payment-assign' ? [decision] : decision.action === 'payment-split' ? decision.shares : [];
    const held = await lineAllocations(tx.db, lineId);
    const dealId = await fourEyesDeal(tx, [line.dealId, ...shares.map((s) => s.dealId), ...held.map((a) => a.dealId)], 'payment-decision');
    if (dealId === undefined) return { status: 200, value: await applyPaymentDecision(tx, request.principal, lineId, decision) };
    // Tried first and undone: a decision that would be refused now (an investor without a journey,
    // shares that do not add up, a debit) is refused now, not held for someone to approve in vain.
    await undoneAfter(tx.db, () => applyPaymentDecision(tx, request.principal, lineId, decision));
    const { action, ...input } = decision;
    return { status: 202, value: await propose(tx, request.principal, { action, dealId, input: { lineId, ...input }, basis: await lineBasis(tx, lineId) }) };
  });
}

/** What a held decision was checked against: the line's status and how many decisions it had. */
export async function lineBasis(tx: Deps, lineId: string): Promise<Record<string, unknown>> {
  const line = await findLine(tx.db, lineId, { lock: true });
  return { lineId, status: line?.status ?? null, decisions: line ? (await lineDecisions(tx.db, lineId)).length : 0 };
}

/** The decision applied by the same code as a direct one (in the caller's transaction), as `principal`. */
export function applyPaymentDecision(tx: Deps, principal: Principal, lineId: string, decision: PaymentDecisionInput) {
  switch (decision.action) {
    case 'payment-assign':
      return assignLine(tx, principal, lineId, { dealId: decision.dealId, investorUserId: decision.investorUserId });
    case 'payment-split':
      return allocateLine(tx, principal, lineId, decision.shares, 'split');
    case 'payment-dismiss':
      return dismissLine(tx, principal, lineId, decision.reason);
  }
}
