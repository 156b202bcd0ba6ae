// Importing a bank statement and matching its credits (POST /payments/statements, `dealflow
// reconcile`). Contract:
// - the statement is parsed whole (camt.053/054 or CSV; malformed → 400, nothing stored);
// - the same file again changes nothing (payment_statements.content_sha256), and a line already on
//   file from another statement is not stored again (payment_lines.line_key);
// - in one transaction the statement and its new lines are stored; debits, reversals and entries
//   that are not booked (camt Sts PDNG, INFO…) are kept (status ignored), credits without a valid reference or with an unknown one are queued;
//   and the queued lines' payment.queued entries are written a chunk of lines per statement;
// - then each investor's credits are judged in statement order under their journey lock: first in
//   batches of investors (one transaction each), where the credits that need no move (partial,
//   overpaid, wrong currency) are queued in one statement per batch; then, from each investor's
//   first credit that reaches the commitment, one transaction per investor (several investors at
//   once on PostgreSQL): `matched` moves the investor to the deal's payment step through jumpToStep
//   as the principal `reconciliation`; anything else, and a refused move, is queued;
// - a reversal puts the credit it reverses back in the queue and takes its money back (no move).
// A process that dies between the two phases leaves lines `pending`; importing the file again
// finishes them.
import { createHash } from 'node:crypto';
import Big from 'big.js';
import { AppError } from '../domain/errors.ts';
import { parseCamt } from '../domain/camt.ts';
import { isBooked, judgeAmount, lineKeys, type ParsedStatement } from '../domain/payment-line.ts';
import type { Principal } from '../domain/principal.ts';
import { findReference } from '../domain/remittance.ts';
import { type CsvOptions, parseCsvStatement } from '../domain/statement-csv.ts';
import { batchConcurrency } from '../store/database.ts';
import { findPaymentSettings, type PaymentSettings } from '../store/payment-settings.ts';
import * as store from '../store/payments.ts';
import { type Deps, inTransaction } from './deps.ts';
import { jumpToStep } from './journeys.ts';
import { paymentMatchedEntry, paymentQueuedEntry, recordPaymentQueued } from './payment-events.ts';
import { appendOutboxMany } from '../store/outbox.ts';

/** The principal of moves made by reconciliation (recorded as the events' createdByUserId). */
export const RECONCILIATION: Principal = { userId: 'reconciliation', role: 'admin', tokenKey: 'reconciliation' };

export type StatementInput = { kind: 'xml'; text: string } | { kind: 'csv'; text: string; csv: CsvOptions };

export interface ImportResult {
  statement: store.StoredStatement;
  /** True when this file was imported before: nothing changed (beyond finishing pending lines). */
  duplicate: boolean;
  /** This statement's lines by outcome and by status. */
  outcomes: Record<string, number>;
  statuses: Record<string, number>;
}

export function parseStatement(input: StatementInput): ParsedStatement {
  return input.kind === 'xml' ? parseCamt(input.text) : parseCsvStatement(input.text, input.csv);
}

export async function importStatement(deps: Deps, principal: Principal, input: StatementInput, options: { concurrency?: number } = {}): Promise<ImportResult> {
  const parsed = parseStatement(input);
  const sha256 = createHash('sha256').update(input.text).digest('hex');
  const keys = lineKeys(parsed.lines);
  const found = parsed.lines.map((l) => (l.direction === 'credit' && !l.reversal && isBooked(l) ? findReference(l.structuredReferences, l.remittance) : null));
  const resolved = await store.resolveReferences(deps.db, [...new Set(found.map((f) => f?.reference).filter((r): r is string => !!r))]);
  const lines: store.NewLine[] = parsed.lines.map((line, i) => {
    const base = { ...line, id: deps.newId(), key: keys[i]!, reference: null, dealId: null, investorUserId: null, detail: null };
    // Pending or informational entries are not money on the account yet: kept, never matched. The
    // booked entry comes in a later statement under its own key (lineKeys) and is matched then.
    if (!isBooked(line)) return { ...base, outcome: 'not-booked', status: 'ignored', detail: `entry status ${line.entryStatus}: kept, not matched; only booked (BOOK) entries are matched` };
    if (line.reversal) return { ...base, outcome: 'reversal', status: 'pending' };
    if (line.direction === 'debit') return { ...base, outcome: 'debit', status: 'ignored' };
    const { reference, rejected } = found[i]!;
    if (!reference) {
      const detail = rejected.length ? `no valid RF reference; check digits fail for ${rejected.join(', ')}` : 'no RF reference in the structured or unstructured remittance information';
      return { ...base, outcome: 'no-reference', status: 'queued', detail };
    }
    const journey = resolved.get(reference);
    if (!journey) return { ...base, reference, outcome: 'unknown-reference', status: 'queued', detail: `${reference} is no investor's payment reference` };
    return { ...base, reference, ...journey, outcome: null, status: 'pending' };
  });

  const at = deps.clock();
  const stored = await inTransaction(deps, async (tx) => {
    const statement = await store.insertStatement(tx.db, {
      id: tx.newId(), sha256, format: parsed.format, messageId: parsed.messageId, lineCount: lines.length, importedBy: principal.userId, importedAt: at,
    });
    if (!statement) return undefined;
    const inserted = await store.insertLines(tx.db, statement.id, lines, at);
    await store.setNewLineCount(tx.db, statement.id, inserted.size);
    const decided = lines.filter((l) => inserted.has(l.id) && l.status !== 'pending').map((l) => l.id);
    await store.recordImportDecisions(tx.db, decided, principal.userId, at);
    // The queued lines' payment.queued entries, a chunk of lines per statement.
    const queued = lines.filter((l) => inserted.has(l.id) && l.status === 'queued').map((l) => l.id);
    for (let i = 0; i < queued.length; i += QUEUED_CHUNK) {
      const found = await store.findLines(tx.db, queued.slice(i, i + QUEUED_CHUNK));
      await appendOutboxMany(tx.db, found.map((line) => paymentQueuedEntry(tx, { line })));
    }
    return { ...statement, newLineCount: inserted.size };
  });
  const statement = stored ?? (await store.findStatementBySha(deps.db, sha256));
  if (!statement) throw new Error('a statement that conflicted on its content is not on file');

  await matchPendingLines(deps, statement.id, options.concurrency ?? batchConcurrency(deps.db));
  const counts = await store.countStatementLines(deps.db, statement.id);
  const outcomes: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  for (const [key, n] of Object.entries(counts)) {
    const [outcome, status] = key.split('/') as [string, string];
    outcomes[outcome] = (outcomes[outcome] ?? 0) + n;
    statuses[status] = (statuses[status] ?? 0) + n;
  }
  return { statement, duplicate: stored === undefined, outcomes, statuses };
}

/**
 * Judges the statement's pending credits, then applies its reversals. First in batches of
 * investors (one transaction and three statements per batch): each investor's credits that need no
 * move (partial, overpaid, wrong currency, a journey without events) are queued, up to the first
 * one whose total would reach the commitment. Then investor by investor, for those left: the move,
 * under their journey lock (several investors at once on PostgreSQL).
 */
async function matchPendingLines(deps: Deps, statementId: string, concurrency: number): Promise<void> {
  const pending = await store.statementLines(deps.db, statementId, 'pending');
  const credits = pending.filter((l) => !l.reversal && l.dealId !== null && l.investorUserId !== null);
  const groups = new Map<string, CreditGroup>();
  for (const line of credits) {
    const key = store.journeyKey({ dealId: line.dealId!, investorUserId: line.investorUserId! });
    const group = groups.get(key) ?? { dealId: line.dealId!, investorUserId: line.investorUserId!, lineIds: [] };
    group.lineIds.push(line.id);
    groups.set(key, group);
  }
  const dealIds = [...new Set(credits.map((l) => l.dealId!))];
  const settings = await findPaymentSettings(deps.db, dealIds);
  const currencies = await store.dealCurrencies(deps.db, dealIds);
  const context = (group: CreditGroup) => ({ settings: settings.get(group.dealId) ?? defaultSettings(group.dealId), dealCurrency: currencies.get(group.dealId) ?? null });
  const all = [...groups.values()];
  const batches = Array.from({ length: Math.ceil(all.length / JUDGE_BATCH) }, (_, i) => all.slice(i * JUDGE_BATCH, (i + 1) * JUDGE_BATCH));
  const moving: CreditGroup[] = [];
  await eachConcurrently(batches, concurrency, async (batch) => {
    moving.push(...(await queueCreditsWithoutMoves(deps, batch, context)));
  });
  // In statement order (the batches finish in any order).
  const order = new Map(all.map((g, i) => [store.journeyKey(g), i]));
  moving.sort((a, b) => order.get(store.journeyKey(a))! - order.get(store.journeyKey(b))!);
  await eachConcurrently(moving, concurrency, (group) => {
    const { settings: s, dealCurrency } = context(group);
    return matchInvestorLines(deps, group, s, dealCurrency);
  });
  for (const reversal of pending.filter((l) => l.reversal)) await applyReversal(deps, reversal);
}

type CreditGroup = { dealId: string; investorUserId: string; lineIds: string[] };

/** Investors per transaction of the first pass: their journeys stay locked for one batch's three statements. */
const JUDGE_BATCH = 500;
/** Queued lines per statement of payment.queued entries at import. */
const QUEUED_CHUNK = 500;

/**
 * The first pass over a batch of investors, in one transaction: locks their journeys and pending
 * lines, queues each investor's credits in order up to the first that would need a move (all of
 * them when the journey has no events), in one statement, and returns each investor whose credits
 * from that one on are left for the move.
 */
async function queueCreditsWithoutMoves(
  deps: Deps,
  batch: readonly CreditGroup[],
  context: (group: CreditGroup) => { settings: PaymentSettings; dealCurrency: string | null },
): Promise<CreditGroup[]> {
  return inTransaction(deps, async (tx) => {
    const locked = await store.lockJourneyCredits(tx.db, batch.map((g) => {
      const { settings } = context(g);
      return { ...g, fields: { commitment: settings.commitmentFieldKey, currency: settings.currencyFieldKey } };
    }));
    const decisions: store.DecisionInput[] = [];
    const left: CreditGroup[] = [];
    for (const group of batch) {
      const { facts, lines } = locked.get(store.journeyKey(group))!;
      if (!facts) {
        for (const line of lines) decisions.push(noJourneyDecision(tx, line));
        continue;
      }
      const { settings, dealCurrency } = context(group);
      let received = facts.received;
      for (const [i, line] of lines.entries()) {
        const plan = planCredit(tx, {
          line, dealId: group.dealId, investorUserId: group.investorUserId, amount: line.amount, received, settings,
          commitment: facts.commitment, commitmentCurrency: facts.commitmentCurrency ?? dealCurrency, by: RECONCILIATION.userId, action: 'imported', staff: false,
        });
        if (plan.kind === 'move') {
          left.push({ ...group, lineIds: lines.slice(i).map((l) => l.id) });
          break;
        }
        decisions.push(plan.decision);
        received = plan.received;
      }
    }
    await store.recordDecisions(tx.db, decisions);
    return left;
  });
}

export const defaultSettings = (dealId: string): PaymentSettings => ({
  dealId, paymentStepId: null, amountFieldKey: null, dateFieldKey: null, commitmentFieldKey: 'committed_amount', currencyFieldKey: 'currency',
  assetId: null, pricePerUnit: null, unitDecimals: 0, updatedAt: new Date(0).toISOString(),
});

/** Runs `work` over `items`, at most `limit` at a time; the first failure is thrown once all stop. */
async function eachConcurrently<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const lane = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure !== undefined) throw failure;
}

/** Amounts written into event data keep at least two decimals ("25000.00"). */
const moneyText = (value: string) => {
  const big = new Big(value);
  return big.round(2).eq(big) ? big.toFixed(2) : big.toFixed();
};

/** What a refused move is kept as on the line: the problem's kind, detail and extensions. */
export const refusalOf = (err: AppError) => ({ kind: err.kind, detail: err.message, ...(err.extensions ?? {}), ...(err.errors ? { errors: err.errors } : {}) });

/**
 * One investor's pending credits, in statement order, under their journey lock. Also the path of a
 * staff assignment (payment-queue.ts), through applyCredit.
 */
async function matchInvestorLines(
  deps: Deps,
  group: { dealId: string; investorUserId: string; lineIds: string[] },
  settings: PaymentSettings,
  dealCurrency: string | null,
): Promise<void> {
  await inTransaction(deps, async (tx) => {
    // Generic plans for the rest of this transaction (the move's statements and the decision's):
    // left to choose (plan_cache_mode auto), PostgreSQL plans the decision statement afresh on every
    // call, because its plan for one row looks cheaper than the generic one for arrays of unknown
    // length, and planning a statement of eight parts costs as much database CPU as running it.
    const locked = await store.lockJourneyCredits(tx.db, [{ ...group, fields: { commitment: settings.commitmentFieldKey, currency: settings.currencyFieldKey } }], { genericPlans: true });
    const { facts, lines } = locked.get(store.journeyKey(group))!;
    if (!facts) {
      await store.recordDecisions(tx.db, lines.map((line) => noJourneyDecision(tx, line)));
      return;
    }
    let received = facts.received;
    for (const line of lines) {
      const result = await applyCredit(tx, {
        line, dealId: group.dealId, investorUserId: group.investorUserId, amount: line.amount, received, settings,
        commitment: facts.commitment, commitmentCurrency: facts.commitmentCurrency ?? dealCurrency, by: RECONCILIATION.userId, action: 'imported',
        staff: false,
      });
      received = result.received;
    }
  });
}

/** A credit whose reference names a journey without events: queued as an unknown reference. */
function noJourneyDecision(tx: Deps, line: store.PaymentLine): store.DecisionInput {
  const d = { outcome: 'unknown-reference', detail: 'the journey of this reference has no events' } as const;
  return {
    id: tx.newId(), lineId: line.id, action: 'imported', outcome: d.outcome, status: 'queued', detail: d.detail, by: RECONCILIATION.userId, at: tx.clock(),
    outbox: paymentQueuedEntry(tx, { line: { ...line, outcome: d.outcome, status: 'queued', detail: d.detail } }),
  };
}

export interface CreditInput {
  line: store.PaymentLine;
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
  takeBack?: store.NewAllocation[];
  /** Record the decision on the line (false for all but the last part of a split). */
  decide?: boolean;
}

type CreditPlan =
  | { kind: 'decision'; decision: store.DecisionInput; received: string; outcome: string }
  | { kind: 'move'; judged: ReturnType<typeof judgeAmount>; base: Omit<store.DecisionInput, 'status'>; allocations: store.NewAllocation[]; at: Date };

/**
 * How one credit is judged (the caller holds the journey lock): the decision to record when it
 * needs no move (queued, or a staff decision below the commitment), else what the move's decision
 * starts from. No I/O: the first pass of an import collects these decisions to write them at once.
 */
function planCredit(tx: Deps, input: CreditInput): CreditPlan {
  const { line } = input;
  const at = tx.clock();
  const judged = judgeAmount({ amount: input.amount, currency: line.currency, commitment: input.commitment, commitmentCurrency: input.commitmentCurrency, received: input.received });
  const decide = input.decide ?? true;
  const base = { id: tx.newId(), lineId: line.id, action: input.action, outcome: judged.outcome, dealId: input.dealId, investorUserId: input.investorUserId, detail: judged.detail, by: input.by, at } as const;
  const takeBack = input.takeBack ?? [];
  if (judged.outcome === 'wrong-currency' || (judged.outcome === 'overpaid' && !input.staff)) {
    if (input.staff) throw new AppError('unprocessable', `The line cannot be accepted for investor ${input.investorUserId}: ${judged.detail}`);
    const decision: store.DecisionInput = {
      ...base, status: 'queued', allocations: takeBack,
      outbox: paymentQueuedEntry(tx, { line: { ...line, outcome: judged.outcome, status: 'queued', dealId: input.dealId, investorUserId: input.investorUserId, detail: judged.detail } }),
    };
    return { kind: 'decision', decision, received: input.received, outcome: judged.outcome };
  }
  const allocations = [...takeBack, { id: tx.newId(), dealId: input.dealId, investorUserId: input.investorUserId, amount: input.amount, currency: line.currency, valueDate: line.valueDate ?? line.bookingDate }];
  if (judged.outcome === 'partial') {
    const status = input.staff ? 'matched' : 'queued';
    const queued = status === 'queued' && decide
      ? { outbox: paymentQueuedEntry(tx, { line: { ...line, outcome: 'partial', status, dealId: input.dealId, investorUserId: input.investorUserId, detail: judged.detail } }) }
      : {};
    return { kind: 'decision', decision: { ...base, status: decide ? status : 'queued', allocations, ...queued }, received: judged.total, outcome: judged.outcome };
  }
  return { kind: 'move', judged, base, allocations, at };
}

/**
 * Judges one credit for one investor (the caller holds their journey lock), allocates the money,
 * and moves the investor when their total reaches the commitment. Returns the new total received
 * and the move's event, or the refusal.
 */
export async function applyCredit(tx: Deps, input: CreditInput): Promise<{ received: string; outcome: string; eventId: string | null; refusal: unknown }> {
  const plan = planCredit(tx, input);
  if (plan.kind === 'decision') {
    await store.recordDecision(tx.db, plan.decision);
    return { received: plan.received, outcome: plan.outcome, eventId: null, refusal: null };
  }
  const { line, settings } = input;
  const { judged, base, allocations, at } = plan;
  const decide = input.decide ?? true;
  // matched (or overpaid, accepted by staff): move the investor to the payment step.
  let eventId: string | null = null;
  let refusal: Record<string, unknown> | null = null;
  if (!settings.paymentStepId) {
    refusal = { kind: 'unprocessable', detail: `deal ${input.dealId} names no payment step (PUT /deals/deal/{dealId}/payment-settings)` };
  } else {
    const data: [string, string][] = [];
    if (settings.amountFieldKey) data.push([settings.amountFieldKey, moneyText(judged.total)]);
    const date = line.valueDate ?? line.bookingDate;
    if (settings.dateFieldKey && date) data.push([settings.dateFieldKey, date]);
    try {
      const event = await jumpToStep(tx, RECONCILIATION, input.dealId, { investorUserId: input.investorUserId, targetStepId: settings.paymentStepId, data: Object.fromEntries(data) });
      eventId = event.id;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      refusal = refusalOf(err);
    }
  }
  const status = eventId ? 'matched' : 'queued';
  // The decision and its webhook entry are one statement: payment.matched for a move, else
  // payment.queued when the line stays in the queue with the refusal.
  const outbox = eventId
    ? paymentMatchedEntry(tx, {
        line: { ...line, outcome: judged.outcome, status: 'matched', dealId: input.dealId, investorUserId: input.investorUserId, eventId, detail: judged.detail },
        dealId: input.dealId, investorUserId: input.investorUserId, paymentStepId: settings.paymentStepId!, eventId, received: judged.total,
      })
    : decide
      ? paymentQueuedEntry(tx, { line: { ...line, outcome: judged.outcome, status: 'queued', dealId: input.dealId, investorUserId: input.investorUserId, detail: judged.detail, refusal } })
      : undefined;
  await store.recordDecision(tx.db, { ...base, status: decide ? status : 'queued', allocations, refusal, eventId, ...(outbox ? { outbox } : {}) });
  if (eventId) {
    // Queued partial lines exist only when money was received before this line.
    const earlier = new Big(input.received).gt(0) ? await store.queuedPartialLines(tx.db, input.dealId, input.investorUserId) : [];
    await store.recordDecisions(tx.db, earlier.filter((id) => id !== line.id).map((id) => ({
      id: tx.newId(), lineId: id, action: 'settled', outcome: null, status: 'matched', reason: `completed by line ${line.id}`, eventId, by: input.by, at,
    })));
  }
  return { received: judged.total, outcome: judged.outcome, eventId, refusal };
}

/** A reversal: the credit it reverses goes back to the queue and its money is taken back. */
async function applyReversal(deps: Deps, reversal: store.PaymentLine): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const [locked] = await store.lockPendingLines(tx.db, [reversal.id]);
    if (!locked) return;
    const at = tx.clock();
    const originalId = reversal.direction === 'debit' ? await store.findReversedCredit(tx.db, reversal) : undefined;
    if (!originalId) {
      await store.recordDecision(tx.db, { id: tx.newId(), lineId: reversal.id, action: 'imported', outcome: 'reversal', status: 'ignored', detail: 'reverses no credit on file', by: RECONCILIATION.userId, at });
      return;
    }
    const original = (await store.findLine(tx.db, originalId))!;
    const held = await store.lineAllocations(tx.db, original.id);
    for (const a of held) await store.lockJourneyPaymentFacts(tx.db, a, { commitment: 'committed_amount', currency: null });
    const status = original.status === 'dismissed' ? 'dismissed' : 'queued';
    const detail = `reversed by line ${reversal.id}${original.status === 'matched' ? '; the investor was not moved back' : ''}`;
    await store.recordDecision(tx.db, {
      id: tx.newId(), lineId: original.id, action: 'reversed', outcome: null, status, detail, reversedByLineId: reversal.id, by: RECONCILIATION.userId, at,
      allocations: held.map((a) => ({ id: tx.newId(), ...a, amount: new Big(a.amount).neg().toFixed(), valueDate: reversal.valueDate })),
    });
    await store.recordDecision(tx.db, { id: tx.newId(), lineId: reversal.id, action: 'imported', outcome: 'reversal', status: 'ignored', detail: `reverses line ${original.id}`, by: RECONCILIATION.userId, at });
    if (status === 'queued') await recordPaymentQueued(tx, { line: { ...original, status, detail, reversedByLineId: reversal.id } });
  });
}
