// Bank statement lines and how reconciliation judges them. A line is one credit or debit the bank
// reported (one transaction of a batched entry is one line). Pure rules; no I/O.
import { createHash } from 'node:crypto';
import Big from 'big.js';
import type { Decimal } from './money.ts';

/** What reconciliation concluded about a line. The last three are kept but never matched. */
export const paymentOutcomes = [
  'matched', // the reference resolved, and the investor's total received now equals the commitment
  'partial', // … below the commitment
  'overpaid', // … above it (or nothing was committed)
  'wrong-currency', // the line's currency is not the commitment's
  'after-completion', // the investor completed or withdrew (or the move would take them backward): money recorded, investor not moved
  'unknown-reference', // a valid RF reference that belongs to no journey
  'no-reference', // no valid RF reference in the structured field or the free text
  'debit', // money out of the account
  'reversal', // the bank reversed an earlier entry
  'not-booked', // the bank reports the entry as pending (PDNG) or for information (INFO), not booked
] as const;
export type PaymentOutcome = (typeof paymentOutcomes)[number];

/** Where a line stands: applied, waiting for staff, set aside by staff, or not a payment to match. */
export const paymentLineStatuses = ['matched', 'queued', 'dismissed', 'ignored'] as const;
export type PaymentLineStatus = (typeof paymentLineStatuses)[number];

/** Every kind of decision recorded about a line (payment_line_decisions.action). */
export const paymentDecisionActions = ['imported', 'assigned', 'split', 'dismissed', 'reversed', 'settled'] as const;
export type PaymentDecisionAction = (typeof paymentDecisionActions)[number];

export const statementFormats = ['camt.053', 'camt.054', 'csv'] as const;
export type StatementFormat = (typeof statementFormats)[number];

/** One line as read from a statement, before matching. Amounts are exact decimals, never negative. */
export interface StatementLine {
  direction: 'credit' | 'debit';
  reversal: boolean;
  amount: Decimal;
  currency: string;
  bookingDate: string | null;
  valueDate: string | null;
  /** The statement's account (IBAN or other id), part of the line's identity. */
  account: string | null;
  /** The bank's own reference for the entry or transaction (AcctSvcrRef, or the CSV's column). */
  entryReference: string | null;
  endToEndId: string | null;
  debtorName: string | null;
  debtorAccount: string | null;
  /** Creditor references of type SCOR from the structured remittance information. */
  structuredReferences: string[];
  /** Unstructured remittance lines. */
  remittance: string[];
  /** The bank's identity of this line when it gives one (see lineKeys); null: hash the fields. */
  bankKey: string | null;
  /**
   * The entry's status as the bank reports it (camt Ntry/Sts: BOOK, PDNG, INFO, FUTR): only booked
   * entries are money on the account, so only they are matched. CSV lines are booked.
   */
  entryStatus: string;
}

/** A booked entry: camt's BOOK (statuses of camt.053/054 before 001.08 are the same codes as text). */
export const isBooked = (line: Pick<StatementLine, 'entryStatus'>) => line.entryStatus === 'BOOK';

export interface ParsedStatement {
  format: StatementFormat;
  /** camt version, e.g. "001.08"; null for CSV. */
  version: string | null;
  messageId: string | null;
  lines: StatementLine[];
}

/**
 * The identity of each line: `bank:<account>:<key>` when the bank identifies it, else
 * `hash:<sha256 of the line's fields>:<n>`, n counting identical lines within the statement (two
 * equal transfers on one day are two lines; the same statement read again gives the same keys).
 * An entry that is not booked has its status in its key (`…#PDNG`), so the booked entry the bank
 * reports later under the same reference is a new line, and is matched.
 */
export function lineKeys(lines: readonly StatementLine[]): string[] {
  const seen = new Map<string, number>();
  return lines.map((line) => {
    const status = isBooked(line) ? '' : `#${line.entryStatus}`;
    if (line.bankKey !== null) return `bank:${line.account ?? ''}:${line.bankKey}${status}`;
    const fields = [
      line.account,
      line.direction,
      line.reversal,
      new Big(line.amount).toFixed(),
      line.currency,
      line.bookingDate,
      line.valueDate,
      line.endToEndId,
      line.debtorName,
      line.debtorAccount,
      line.structuredReferences,
      line.remittance,
    ];
    const hash = createHash('sha256').update(JSON.stringify(fields)).digest('hex') + status;
    const n = (seen.get(hash) ?? 0) + 1;
    seen.set(hash, n);
    return `hash:${hash}:${n}`;
  });
}

export type AmountOutcome = Extract<PaymentOutcome, 'matched' | 'partial' | 'overpaid' | 'wrong-currency'>;

export interface AmountFacts {
  amount: Decimal;
  currency: string;
  /** What the investor committed; null when nothing is captured. */
  commitment: Decimal | null;
  /** The commitment's currency; null when neither the investor nor the deal names one. */
  commitmentCurrency: string | null;
  /** What earlier lines brought for this investor in this deal. */
  received: Decimal;
}

/** Compares a credit with the commitment and what was received before it. */
export function judgeAmount(facts: AmountFacts): { outcome: AmountOutcome; total: Decimal; detail: string } {
  if (facts.commitmentCurrency !== null && facts.currency !== facts.commitmentCurrency) {
    return { outcome: 'wrong-currency', total: facts.received, detail: `paid in ${facts.currency}; the commitment is in ${facts.commitmentCurrency}` };
  }
  const total = new Big(facts.received).plus(facts.amount);
  if (facts.commitment === null) return { outcome: 'overpaid', total: total.toFixed(), detail: 'the investor has no commitment captured' };
  const committed = new Big(facts.commitment);
  const cmp = total.cmp(committed);
  const stated = `received ${total.toFixed()} of ${committed.toFixed()}`;
  if (cmp === 0) return { outcome: 'matched', total: total.toFixed(), detail: stated };
  return { outcome: cmp < 0 ? 'partial' : 'overpaid', total: total.toFixed(), detail: stated };
}

/** Decimal amount text as statements write it: digits, optionally a point and decimals. */
export const isStatementAmount = (text: string) => /^\d{1,15}(\.\d{1,10})?$/.test(text);
