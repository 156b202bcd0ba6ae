// How reconciliation judges one credit for one investor: queue it, accept it, or move the investor
// to the deal's payment step; and what a move's result makes of the line. Pure: the caller holds
// the journey lock, gives the facts read under it, and turns the judgement into stored decisions,
// allocations and webhook entries (operations/payment-decisions.ts). No clock and no ids are needed here.
import Big from 'big.js';
import { AppError } from './errors.ts';
import type { Decimal } from './money.ts';
import { judgeAmount, type PaymentLineStatus, type PaymentOutcome } from './payment-line.ts';
import type { StepType } from './workflow.ts';

export interface CreditFacts {
  /** The part of the line for this investor (all of it, or a split's share), and the line's currency. */
  amount: Decimal;
  currency: string;
  /** The line's value date, else its booking date. */
  valueDate: string | null;
  dealId: string;
  investorUserId: string;
  commitment: Decimal | null;
  commitmentCurrency: string | null;
  /** What earlier lines brought for this investor in this deal. */
  received: Decimal;
  /** The type of the step the investor stands at (undefined: not known to the caller). */
  currentStepType?: StepType | null | undefined;
  settings: { paymentStepId: string | null; amountFieldKey: string | null; dateFieldKey: string | null };
  /** A staff decision: the money is accepted whatever the amount, and the line leaves the queue. */
  staff: boolean;
  /** Record the decision on the line (false for all but the last part of a split). */
  decide: boolean;
}

/** The move a credit asks for: the investor to the payment step, forward only. */
export interface CreditMove {
  investorUserId: string;
  targetStepId: string;
  data: Record<string, string>;
  /** Reconciliation never moves an investor backward, nor away from a complete or withdrawn step. */
  forwardOnly: true;
}

export type CreditJudgement =
  /** No move: the line's status and outcome; `allocate`: the money counts as received for the investor. */
  | { kind: 'decision'; outcome: PaymentOutcome; status: PaymentLineStatus; detail: string; allocate: boolean; received: Decimal; announceQueued: boolean }
  /** The total reaches the commitment (or staff accept more): the move to ask for, or why none can be. */
  | { kind: 'move'; outcome: PaymentOutcome; detail: string; total: Decimal; move: CreditMove | { refusal: Record<string, unknown> } };

/** Amounts written into event data keep at least two decimals ("25000.00"). */
export const moneyText = (value: string) => {
  const big = new Big(value);
  return big.round(2).eq(big) ? big.toFixed(2) : big.toFixed();
};

const terminal = (type: StepType | null | undefined) => type === 'complete' || type === 'withdrawn';

/** Judges one credit. Throws (422) for a staff decision that cannot be accepted (another currency). */
export function judgeCredit(facts: CreditFacts): CreditJudgement {
  const judged = judgeAmount({
    amount: facts.amount,
    currency: facts.currency,
    commitment: facts.commitment,
    commitmentCurrency: facts.commitmentCurrency,
    received: facts.received,
  });
  if (judged.outcome !== 'wrong-currency' && !facts.staff && terminal(facts.currentStepType)) {
    // Money (in the commitment's currency) for an investor who completed or withdrew: recorded, the
    // investor left where they are, and the line queued for staff (a late or second transfer, a refund to make).
    return {
      kind: 'decision',
      outcome: 'after-completion',
      status: 'queued',
      allocate: true,
      received: judged.total,
      announceQueued: facts.decide,
      detail: `the investor already stands at a ${facts.currentStepType} step; ${judged.detail}; not moved`,
    };
  }
  if (judged.outcome === 'wrong-currency' || (judged.outcome === 'overpaid' && !facts.staff)) {
    if (facts.staff) throw new AppError('unprocessable', `The line cannot be accepted for investor ${facts.investorUserId}: ${judged.detail}`);
    return {
      kind: 'decision',
      outcome: judged.outcome,
      status: 'queued',
      detail: judged.detail,
      allocate: false,
      received: facts.received,
      announceQueued: true,
    };
  }
  if (judged.outcome === 'partial') {
    const status = facts.staff ? 'matched' : 'queued';
    return {
      kind: 'decision',
      outcome: 'partial',
      status: facts.decide ? status : 'queued',
      detail: judged.detail,
      allocate: true,
      received: judged.total,
      announceQueued: status === 'queued' && facts.decide,
    };
  }
  const { settings } = facts;
  if (!settings.paymentStepId) {
    return {
      kind: 'move',
      outcome: judged.outcome,
      detail: judged.detail,
      total: judged.total,
      move: { refusal: { kind: 'unprocessable', detail: `deal ${facts.dealId} names no payment step (PUT /deals/deal/{dealId}/payment-settings)` } },
    };
  }
  const data: Record<string, string> = {};
  if (settings.amountFieldKey) data[settings.amountFieldKey] = moneyText(judged.total);
  if (settings.dateFieldKey && facts.valueDate) data[settings.dateFieldKey] = facts.valueDate;
  return {
    kind: 'move',
    outcome: judged.outcome,
    detail: judged.detail,
    total: judged.total,
    move: { investorUserId: facts.investorUserId, targetStepId: settings.paymentStepId, data, forwardOnly: true },
  };
}

export interface MovedCredit {
  outcome: PaymentOutcome;
  status: PaymentLineStatus;
  detail: string;
  eventId: string | null;
  refusal: Record<string, unknown> | null;
  /** The webhook entry the decision carries. */
  announce: 'matched' | 'queued' | null;
  /** Money came before this line and the move completed the payment: the investor's queued partial lines are settled. */
  settles: boolean;
}

/**
 * What a credit's move, made or refused, makes of the line: matched with the event; else queued
 * with the refusal, as `after-completion` when the move would have taken the investor backward or
 * away from a complete or withdrawn step (planMove's forwardOnly refusal).
 */
export function creditMoved(
  facts: Pick<CreditFacts, 'decide' | 'received'>,
  judgement: Extract<CreditJudgement, { kind: 'move' }>,
  moved: { eventId: string } | { refusal: Record<string, unknown> },
): MovedCredit {
  if ('eventId' in moved) {
    return {
      outcome: judgement.outcome,
      status: facts.decide ? 'matched' : 'queued',
      detail: judgement.detail,
      eventId: moved.eventId,
      refusal: null,
      announce: 'matched',
      settles: new Big(facts.received).gt(0),
    };
  }
  const backward = moved.refusal['movesBackward'] === true;
  return {
    outcome: backward ? 'after-completion' : judgement.outcome,
    status: 'queued',
    detail: backward ? `${judgement.detail}; ${String(moved.refusal['detail'])}; not moved` : judgement.detail,
    eventId: null,
    refusal: moved.refusal,
    announce: facts.decide ? 'queued' : null,
    settles: false,
  };
}
