// The decision about one credit for one investor: judged by the pure rule (domain/credit.ts,
// judgeCredit), the money allocated, the investor moved to the deal's payment step when their total
// reaches the commitment (as the principal `reconciliation`, or the staff member deciding), and the
// investor's queued partial lines settled by the line that completed the payment. Used by the
// matching of imported lines (payment-matching.ts) and by staff decisions (payment-queue.ts).
import { enqueueCreditsReceived } from './mail-outbox.ts';
import { type CreditFacts, type CreditJudgement, creditMoved, judgeCredit } from '../domain/credit.ts';
import { DEFAULT_COMMITMENT_FIELD_KEY, DEFAULT_CURRENCY_FIELD_KEY } from '../domain/commitment.ts';
import { AppError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { StepType } from '../domain/workflow.ts';
import type { PaymentSettings } from '../store/payment-settings.ts';
import { type DecisionInput, type NewAllocation, recordDecision, recordDecisions } from '../store/payment-decisions.ts';
import { journeyKey } from '../store/payment-facts.ts';
import { type PaymentLine, queuedPartialLines } from '../store/payment-lines.ts';
import type { Deps } from './deps.ts';
import type { MoveInput } from './apply-moves.ts';
import { moveToStep } from './journeys.ts';
import { paymentMatchedEntry, paymentQueuedEntry } from './payment-events.ts';

/** The principal of moves made by reconciliation (recorded as the events' createdByUserId). */
export const RECONCILIATION: Principal = { userId: 'reconciliation', role: 'admin', tokenKey: 'reconciliation' };

export const defaultSettings = (dealId: string): PaymentSettings => ({
  dealId,
  paymentStepId: null,
  amountFieldKey: null,
  dateFieldKey: null,
  commitmentFieldKey: DEFAULT_COMMITMENT_FIELD_KEY,
  currencyFieldKey: DEFAULT_CURRENCY_FIELD_KEY,
  assetId: null,
  pricePerUnit: null,
  unitDecimals: 0,
  beneficiaryName: null,
  iban: null,
  bic: null,
  updatedAt: new Date(0).toISOString(),
});

/** What a refused move is kept as on the line: the problem's kind, detail and extensions. */
export const refusalOf = (err: AppError) => ({ kind: err.kind, detail: err.message, ...(err.extensions ?? {}), ...(err.errors ? { errors: err.errors } : {}) });

export interface CreditInput {
  line: PaymentLine;
  dealId: string;
  investorUserId: string;
  /** The part of the line for this investor (all of it, or a split's share). */
  amount: string;
  received: string;
  settings: PaymentSettings;
  commitment: string | null;
  commitmentCurrency: string | null;
  by: string;
  action: 'imported' | 'assigned' | 'split';
  /** A staff decision: the money is accepted whatever the amount, and the line leaves the queue. */
  staff: boolean;
  /** Allocations to append with this one (a staff decision first takes back the line's earlier ones). */
  takeBack?: NewAllocation[];
  /** Record the decision on the line (false for all but the last part of a split). */
  decide?: boolean;
  /** The type of the step the investor stands at, when read with the facts. */
  currentStepType?: StepType | null;
}

export type CreditPlan =
  | { kind: 'decision'; decision: DecisionInput; received: string; outcome: string; eventId: null; refusal: null; settles: null }
  | {
      kind: 'move';
      judgement: Extract<CreditJudgement, { kind: 'move' }>;
      base: Omit<DecisionInput, 'status' | 'outcome' | 'detail'>;
      allocations: NewAllocation[];
      at: Date;
    };

/** A move's decision, and the queued partial lines of the investor it settles (when money came before it). */
export type MovedCredit = { decision: DecisionInput; received: string; outcome: string; eventId: string | null; refusal: unknown; settles: Settlement | null };

/** A completed payment: the investor's queued partial lines leave the queue with the line that completed it. */
export type Settlement = { dealId: string; investorUserId: string; lineId: string; eventId: string; by: string; at: Date };

const creditFacts = (input: CreditInput): CreditFacts => ({
  amount: input.amount,
  currency: input.line.currency,
  valueDate: input.line.valueDate ?? input.line.bookingDate,
  dealId: input.dealId,
  investorUserId: input.investorUserId,
  commitment: input.commitment,
  commitmentCurrency: input.commitmentCurrency,
  received: input.received,
  currentStepType: input.currentStepType,
  settings: input.settings,
  staff: input.staff,
  decide: input.decide ?? true,
});

/**
 * One credit judged (domain/credit.ts, judgeCredit; the caller holds the journey lock), as the
 * decision to record when it needs no move, else what the move's decision starts from. No I/O: a
 * batch collects these decisions to write them at once.
 */
export function planCredit(tx: Deps, input: CreditInput): CreditPlan {
  const { line } = input;
  const at = tx.clock();
  const judgement = judgeCredit(creditFacts(input));
  const base = { id: tx.newId(), lineId: line.id, action: input.action, dealId: input.dealId, investorUserId: input.investorUserId, by: input.by, at } as const;
  const takeBack = input.takeBack ?? [];
  const allocation = (): NewAllocation => ({
    id: tx.newId(),
    dealId: input.dealId,
    investorUserId: input.investorUserId,
    amount: input.amount,
    currency: line.currency,
    valueDate: line.valueDate ?? line.bookingDate,
  });
  if (judgement.kind === 'decision') {
    const { outcome, status, detail } = judgement;
    const queued = judgement.announceQueued
      ? { outbox: paymentQueuedEntry(tx, { line: { ...line, outcome, status: 'queued', dealId: input.dealId, investorUserId: input.investorUserId, detail } }) }
      : {};
    const decision = { ...base, outcome, status, detail, allocations: judgement.allocate ? [...takeBack, allocation()] : takeBack, ...queued };
    return { kind: 'decision', decision, received: judgement.received, outcome, eventId: null, refusal: null, settles: null };
  }
  return { kind: 'move', judgement, base, allocations: [...takeBack, allocation()], at };
}

/** The move a credit asks for (domain/credit.ts), or the refusal when none can be asked. */
export function creditMove(plan: Extract<CreditPlan, { kind: 'move' }>): MoveInput | { refusal: Record<string, unknown> } {
  return plan.judgement.move;
}

/**
 * A credit whose total reaches the commitment: moves the investor (creditMove) through moveToStep,
 * in the caller's transaction, and returns the line's decision, to be recorded by the caller:
 * `matched` with the event, or `queued` with the refusal.
 */
export async function moveCredit(tx: Deps, input: CreditInput, plan: Extract<CreditPlan, { kind: 'move' }>): Promise<MovedCredit> {
  const move = creditMove(plan);
  if ('refusal' in move) return creditMovedDecision(tx, input, plan, { refusal: move.refusal });
  try {
    return creditMovedDecision(tx, input, plan, {
      eventId: (await moveToStep(tx, RECONCILIATION, input.dealId, move, {}, { batch: { kind: input.staff ? 'payment-decision' : 'reconciliation' } })).id,
    });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return creditMovedDecision(tx, input, plan, { refusal: refusalOf(err) });
  }
}

/** The decision of a credit's move once made (its event) or refused (domain/credit.ts, creditMoved). */
export function creditMovedDecision(
  tx: Deps,
  input: CreditInput,
  plan: Extract<CreditPlan, { kind: 'move' }>,
  moved: { eventId: string } | { refusal: Record<string, unknown> },
): MovedCredit {
  const { line, settings } = input;
  const { judgement, base, allocations, at } = plan;
  const result = creditMoved(creditFacts(input), judgement, moved);
  const { outcome, status, detail, eventId, refusal } = result;
  // The decision and its webhook entry are written together: payment.matched for a move, else
  // payment.queued when the line stays in the queue with the refusal.
  const outbox =
    result.announce === 'matched'
      ? paymentMatchedEntry(tx, {
          line: { ...line, outcome, status: 'matched', dealId: input.dealId, investorUserId: input.investorUserId, eventId, detail },
          dealId: input.dealId,
          investorUserId: input.investorUserId,
          paymentStepId: settings.paymentStepId!,
          eventId: eventId!,
          received: judgement.total,
        })
      : result.announce === 'queued'
        ? paymentQueuedEntry(tx, { line: { ...line, outcome, status: 'queued', dealId: input.dealId, investorUserId: input.investorUserId, detail, refusal } })
        : undefined;
  const decision: DecisionInput = { ...base, outcome, status, detail, allocations, refusal, eventId, ...(outbox ? { outbox } : {}) };
  const settles = eventId && result.settles ? { dealId: input.dealId, investorUserId: input.investorUserId, lineId: line.id, eventId, by: input.by, at } : null;
  return { decision, received: judgement.total, outcome, eventId, refusal, settles };
}

/**
 * The `settled` decisions of the investors' queued partial lines, each completed by the line that
 * reached the commitment (one statement to find them, one to record them; none when no move
 * followed earlier money). Call after the completing lines' own decisions are recorded.
 */
export async function settlePartialLines(tx: Deps, settlements: readonly Settlement[]): Promise<void> {
  // One settlement per investor: a second would find their partial lines already settled.
  const first = new Map<string, Settlement>();
  for (const s of settlements) if (!first.has(journeyKey(s))) first.set(journeyKey(s), s);
  if (first.size === 0) return;
  const partial = await queuedPartialLines(tx.db, [...first.values()]);
  await recordDecisions(
    tx.db,
    partial.flatMap(({ id, dealId, investorUserId }) => {
      const s = first.get(journeyKey({ dealId, investorUserId }))!;
      return id === s.lineId
        ? []
        : [
            {
              id: tx.newId(),
              lineId: id,
              action: 'settled',
              outcome: null,
              status: 'matched',
              reason: `completed by line ${s.lineId}`,
              eventId: s.eventId,
              by: s.by,
              at: s.at,
            } as const,
          ];
    }),
  );
}

/**
 * Judges one credit for one investor (the caller holds their journey lock), allocates the money,
 * and moves the investor when their total reaches the commitment, recording the decision (a staff
 * decision's path, payment-queue.ts). Returns the new total received and the move's event, or the
 * refusal.
 */
export async function applyCredit(tx: Deps, input: CreditInput): Promise<{ received: string; outcome: string; eventId: string | null; refusal: unknown }> {
  const plan = planCredit(tx, input);
  const result = plan.kind === 'decision' ? plan : await moveCredit(tx, input, plan);
  await recordDecision(tx.db, result.decision);
  await enqueueCreditsReceived(tx, [result.decision]);
  if (result.settles) await settlePartialLines(tx, [result.settles]);
  return { received: result.received, outcome: result.outcome, eventId: result.eventId, refusal: result.refusal };
}
