// Importing a bank statement and matching its credits (POST /payments/statements, `dealflow
// reconcile`). Contract:
// - the statement is parsed whole (camt.053/054 or CSV; malformed → 400, nothing stored);
// - the same file again changes nothing (payment_statements.content_sha256), and a line already on
//   file from another statement is not stored again (payment_lines.line_key);
// - the statement and then its new lines are stored, a chunk of lines per transaction (so that the
//   embedded database serves other requests meanwhile); the statement reads as complete
//   (new_line_count set) once its last chunk commits, and an import of the same file that finds it
//   incomplete stores the lines still missing; debits, reversals and entries
//   that are not booked (camt Sts PDNG, INFO…) are kept (status ignored), credits without a valid reference or with an unknown one are queued;
//   and the queued lines' payment.queued entries are written a chunk of lines per statement;
// - then each investor's credits are judged in statement order under their journey lock, in
//   batches of investors, one transaction per batch (several batches at once on PostgreSQL): the
//   credits before an investor's first that reaches the commitment (partial, overpaid, wrong
//   currency) are queued, one statement for the batch; then `matched` moves the investor to the
//   deal's payment step through jumpToStep as the principal `reconciliation`, and that line and
//   the ones after it are decided (anything else, and a refused move, queued), one statement for
//   the batch; a move and its line's decision commit together;
// - a reversal puts the credit it reverses back in the queue and takes its money back (no move).
// A process that dies between storing and matching, or a batch that fails, leaves lines `pending`;
// importing the file again finishes them.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Big from 'big.js';
import { type CreditFacts, type CreditJudgement, creditMoved, judgeCredit } from '../domain/credit.ts';
import { AppError } from '../domain/errors.ts';
import { parseCamt } from '../domain/camt.ts';
import { isBooked, lineKeys, type ParsedStatement } from '../domain/payment-line.ts';
import type { Principal } from '../domain/principal.ts';
import type { StepType } from '../domain/workflow.ts';
import { type CsvOptions, parseCsvStatement } from '../domain/statement-csv.ts';
import { batchConcurrency } from '../store/database.ts';
import { findPaymentSettings, type PaymentSettings } from '../store/payment-settings.ts';
import { type DecisionInput, lineAllocations, type NewAllocation, recordDecision, recordDecisions, recordImportDecisions } from '../store/payment-decisions.ts';
import { dealCurrencies, journeyKey, lockJourneyCredits, lockJourneyPaymentFacts } from '../store/payment-facts.ts';
import { findLine, findReversedCredit, insertLines, lockPendingLines, type NewLine, type PaymentLine, queuedPartialLines, statementLines } from '../store/payment-lines.ts';
import { countStatementLines, findStatementBySha, insertStatement, resolveReferences, setNewLineCount, type StoredStatement } from '../store/statements.ts';
import { type Deps, inTransaction } from './deps.ts';
import type { JobProgress } from './import-jobs.ts';
import { readStatement } from './statement-parse.ts';
import { applyMoves, type JumpInput, jumpToStep } from './journeys.ts';
import { paymentMatchedEntry, paymentQueuedEntry, recordPaymentQueued } from './payment-events.ts';
import { appendOutboxMany } from '../store/outbox.ts';
import { retryOnDeadlock } from '../store/errors.ts';

/** The principal of moves made by reconciliation (recorded as the events' createdByUserId). */
export const RECONCILIATION: Principal = { userId: 'reconciliation', role: 'admin', tokenKey: 'reconciliation' };

export type StatementInput = { kind: 'xml'; text: string } | { kind: 'csv'; text: string; csv: CsvOptions };

export interface ImportResult {
  statement: StoredStatement;
  /** True when this file was imported before: nothing changed (beyond finishing pending lines). */
  duplicate: boolean;
  /** This statement's lines by outcome and by status. */
  outcomes: Record<string, number>;
  statuses: Record<string, number>;
}

export function parseStatement(input: StatementInput): ParsedStatement {
  return input.kind === 'xml' ? parseCamt(input.text) : parseCsvStatement(input.text, input.csv);
}

export interface ImportOptions {
  /** Batches matched at once (PostgreSQL); default batchConcurrency. */
  concurrency?: number;
  /** Investors per batch; default MATCH_BATCH. */
  batchSize?: number;
  /** Told what the import is doing (an import job's progress). */
  onProgress?: (progress: JobProgress) => void;
}

export async function importStatement(deps: Deps, principal: Principal, input: StatementInput, options: ImportOptions = {}): Promise<ImportResult> {
  const progress = options.onProgress ?? (() => {});
  progress({ stage: 'parsing', done: 0, total: null });
  // Parsed off the event loop when big (statement-parse.ts): the instance answers meanwhile.
  const { parsed, keys, found } = await readStatement(input.kind, input.text, input.kind === 'csv' ? input.csv : undefined);
  const sha256 = createHash('sha256').update(input.text).digest('hex');
  progress({ stage: 'storing', done: 0, total: parsed.lines.length });
  const resolved = await resolveReferences(deps.db, [...new Set(found.map((f) => f?.reference).filter((r): r is string => !!r))]);
  const lines: NewLine[] = parsed.lines.map((line, i) => {
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
  // Stored in chunks of STORE_CHUNK lines, one transaction each, so that on the embedded database
  // (one connection) other requests are served between chunks rather than after the whole file.
  // The statement is written first, marked as having its lines stored (new_line_count -1) until the
  // last chunk commits; an import of the same file that finds it so (the process stopped mid-way,
  // or an import of it running now) stores the lines still missing: line keys make the rest no-ops.
  const inserted = await insertStatement(deps.db, {
    id: deps.newId(), sha256, format: parsed.format, messageId: parsed.messageId, lineCount: lines.length, importedBy: principal.userId, importedAt: at,
  });
  let statement = inserted ?? (await findStatementBySha(deps.db, sha256));
  if (!statement) throw new Error('a statement that conflicted on its content is not on file');
  const complete = inserted === undefined && statement.newLineCount >= 0;
  let fresh: PaymentLine[] = [];
  if (!complete) {
    const shared = batchConcurrency(deps.db) === 1;
    const size = shared ? SHARED_STORE_CHUNK : STORE_CHUNK;
    for (let i = 0; i < lines.length; i += size) {
      const chunk = lines.slice(i, i + size);
      const id = statement.id;
      fresh = fresh.concat(await inTransaction(deps, async (tx) => {
        // The lines as stored (in statement order), to announce the queued ones and match the pending.
        const rows = await insertLines(tx.db, id, chunk, at);
        await recordImportDecisions(tx.db, rows.filter((l) => l.status !== 'pending').map((l) => l.id), principal.userId, at);
        // The queued lines' payment.queued entries, a chunk of lines per statement.
        const queued = rows.filter((l) => l.status === 'queued');
        for (let q = 0; q < queued.length; q += QUEUED_CHUNK) {
          await appendOutboxMany(tx.db, queued.slice(q, q + QUEUED_CHUNK).map((line) => paymentQueuedEntry(tx, { line })));
        }
        return rows;
      }));
      progress({ stage: 'storing', done: Math.min(i + size, lines.length), total: lines.length });
      if (shared) await letOthersIn();
    }
    // Counted rather than taken from this import's chunks: another import of the file may have stored some.
    const newLineCount = Object.values(await countStatementLines(deps.db, statement.id)).reduce((a, n) => a + n, 0);
    await setNewLineCount(deps.db, statement.id, newLineCount);
    statement = { ...statement, newLineCount };
  }

  // A file imported before: its lines still pending (a process that died, an import running now).
  const pending = inserted ? fresh.filter((l) => l.status === 'pending') : await statementLines(deps.db, statement.id, 'pending');
  progress({ stage: 'matching', done: 0, total: parsed.lines.length });
  await matchPendingLines(deps, pending, { concurrency: options.concurrency ?? batchConcurrency(deps.db), batchSize: options.batchSize ?? MATCH_BATCH });
  progress({ stage: 'done', done: parsed.lines.length, total: parsed.lines.length });
  const counts = await countStatementLines(deps.db, statement.id);
  const outcomes: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  for (const [key, n] of Object.entries(counts)) {
    const [outcome, status] = key.split('/') as [string, string];
    outcomes[outcome] = (outcomes[outcome] ?? 0) + n;
    statuses[status] = (statuses[status] ?? 0) + n;
  }
  // A duplicate: the file was on file before, and this import stored none of its lines.
  const duplicate = inserted === undefined && fresh.length === 0;
  return { statement, duplicate, outcomes, statuses };
}

/**
 * Judges the statement's pending credits, then applies its reversals. The credits are grouped by
 * investor, in statement order, and matched in batches of investors, one transaction per batch
 * (several batches at once on PostgreSQL): see matchBatch.
 */
async function matchPendingLines(deps: Deps, pending: readonly PaymentLine[], options: { concurrency: number; batchSize: number }): Promise<void> {
  const credits = pending.filter((l) => !l.reversal && l.dealId !== null && l.investorUserId !== null);
  const groups = new Map<string, CreditGroup>();
  for (const line of credits) {
    const key = journeyKey({ dealId: line.dealId!, investorUserId: line.investorUserId! });
    const group = groups.get(key) ?? { dealId: line.dealId!, investorUserId: line.investorUserId!, lines: [] };
    group.lines.push(line);
    groups.set(key, group);
  }
  const dealIds = [...new Set(credits.map((l) => l.dealId!))];
  const settings = await findPaymentSettings(deps.db, dealIds);
  const currencies = await dealCurrencies(deps.db, dealIds);
  const context = (group: CreditGroup) => ({ settings: settings.get(group.dealId) ?? defaultSettings(group.dealId), dealCurrency: currencies.get(group.dealId) ?? null });
  const all = [...groups.values()];
  const size = Math.max(1, options.batchSize);
  const batches = Array.from({ length: Math.ceil(all.length / size) }, (_, i) => all.slice(i * size, (i + 1) * size));
  const shared = batchConcurrency(deps.db) === 1;
  await eachConcurrently(batches, options.concurrency, async (batch) => {
    await retryOnDeadlock(() => matchBatch(deps, batch, context));
    if (shared) await letOthersIn();
  });
  for (const reversal of pending.filter((l) => l.reversal)) await applyReversal(deps, reversal);
}

/** An investor's pending credits of the statement, in statement order, as read before matching. */
type CreditGroup = { dealId: string; investorUserId: string; lines: PaymentLine[] };

/**
 * Investors per transaction. A batch holds its journeys' locks until it commits (about two round
 * trips per move it makes), and costs four statements of its own whatever its size: big enough
 * that those are a small share of a credit's, small enough that a lock is held briefly and that
 * a statement's batches keep every lane busy.
 */
export const MATCH_BATCH = 100;
/** Lines stored per transaction at import. */
const STORE_CHUNK = 2000;
/**
 * On the embedded database, whose one connection a transaction holds whole, fewer (about a
 * tenth of a second of work each), and a pause after each transaction of an import: a request
 * that waited for the connection gets it and finishes its few statements before the import takes
 * the connection again (the connection's lock is not fair: without the pause the import, ready
 * first, would take it back after each of them).
 */
const SHARED_STORE_CHUNK = 100;
const letOthersIn = () => sleep(5);
/** Queued lines per statement of payment.queued entries at import. */
const QUEUED_CHUNK = 500;

/**
 * One batch of investors, in one transaction: locks their journeys and pending lines (one
 * statement), queues each investor's credits up to the first that would need a move (one
 * statement for the batch), then makes those moves through applyMoves (one load and one write
 * statement per deal for the whole batch), and records the moves' decisions and those of the credits after them (one statement
 * for the batch), and settles the partial lines the moves completed. The decisions before the
 * moves are written first, so each investor's webhook entries keep the order of their lines. A
 * move and its line's decision commit together: a batch is all or nothing.
 */
async function matchBatch(
  deps: Deps,
  batch: readonly CreditGroup[],
  context: (group: CreditGroup) => { settings: PaymentSettings; dealCurrency: string | null },
): Promise<void> {
  await inTransaction(deps, async (tx) => {
    // Generic plans for the rest of this transaction (the moves' statements and the decisions'):
    // left to choose (plan_cache_mode auto), PostgreSQL plans the decision statement afresh on every
    // call, because its plan for one row looks cheaper than the generic one for arrays of unknown
    // length, and planning a statement of eight parts costs as much database CPU as running it.
    const locked = await lockJourneyCredits(tx.db, batch.map((g) => {
      const { settings } = context(g);
      return { dealId: g.dealId, investorUserId: g.investorUserId, lineIds: g.lines.map((l) => l.id), fields: { commitment: settings.commitmentFieldKey, currency: settings.currencyFieldKey } };
    }), { genericPlans: true });
    const before: DecisionInput[] = [];
    const moving: { credit: Omit<CreditInput, 'line' | 'amount' | 'received'>; lines: PaymentLine[]; received: string }[] = [];
    for (const group of batch) {
      const { facts, lineIds } = locked.get(journeyKey(group))!;
      // The lines as read before matching: a line still pending has had no decision, so nothing
      // about it has changed since (another import may have decided some meanwhile: those are not here).
      const stillPending = new Set(lineIds);
      const lines = group.lines.filter((l) => stillPending.has(l.id));
      if (!facts) {
        for (const line of lines) before.push(noJourneyDecision(tx, line));
        continue;
      }
      const { settings, dealCurrency } = context(group);
      const credit = {
        dealId: group.dealId, investorUserId: group.investorUserId, settings, commitment: facts.commitment,
        commitmentCurrency: facts.commitmentCurrency ?? dealCurrency, by: RECONCILIATION.userId, action: 'imported', staff: false,
        currentStepType: facts.currentStepType,
      } as const;
      let received = facts.received;
      for (const [i, line] of lines.entries()) {
        const plan = planCredit(tx, { ...credit, line, amount: line.amount, received });
        if (plan.kind === 'move') {
          moving.push({ credit, lines: lines.slice(i), received });
          break;
        }
        before.push(plan.decision);
        received = plan.received;
      }
    }
    await recordDecisions(tx.db, before);
    // The batch's first moves (one per moving investor) through applyMoves, one load and one write
    // statement per deal whatever their number; a later line of the same investor that asks for a
    // move again (rare) moves on its own.
    const first = moving.map(({ credit, lines, received }) => {
      const input = { ...credit, line: lines[0]!, amount: lines[0]!.amount, received };
      const plan = planCredit(tx, input) as Extract<CreditPlan, { kind: 'move' }>;
      return { input, plan, move: creditMove(plan) };
    });
    const moved = new Map<(typeof first)[number], MovedCredit>();
    for (const dealId of new Set(first.map((f) => f.input.dealId))) {
      const asked = first.filter((f) => f.input.dealId === dealId && !('refusal' in f.move));
      const outcomes = asked.length > 0 ? await applyMoves(tx, RECONCILIATION, dealId, asked.map((f) => ({ input: f.move as JumpInput }))) : [];
      asked.forEach((f, i) => {
        const o = outcomes[i]!;
        moved.set(f, creditMovedDecision(tx, f.input, f.plan, o.ok ? { eventId: o.event.id } : { refusal: refusalOf(o.error) }));
      });
    }
    const after: DecisionInput[] = [];
    const settling: Settlement[] = [];
    for (const [k, { credit, lines }] of moving.entries()) {
      const f = first[k]!;
      const result0 = moved.get(f) ?? creditMovedDecision(tx, f.input, f.plan, f.move as { refusal: Record<string, unknown> });
      after.push(result0.decision);
      if (result0.settles) settling.push(result0.settles);
      let received = result0.received;
      for (const line of lines.slice(1)) {
        const input = { ...credit, line, amount: line.amount, received };
        const plan = planCredit(tx, input);
        const result = plan.kind === 'decision' ? plan : await moveCredit(tx, input, plan);
        after.push(result.decision);
        if (result.settles) settling.push(result.settles);
        received = result.received;
      }
    }
    await recordDecisions(tx.db, after);
    await settlePartialLines(tx, settling);
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

/** What a refused move is kept as on the line: the problem's kind, detail and extensions. */
export const refusalOf = (err: AppError) => ({ kind: err.kind, detail: err.message, ...(err.extensions ?? {}), ...(err.errors ? { errors: err.errors } : {}) });

/** A credit whose reference names a journey without events: queued as an unknown reference. */
function noJourneyDecision(tx: Deps, line: PaymentLine): DecisionInput {
  const d = { outcome: 'unknown-reference', detail: 'the journey of this reference has no events' } as const;
  return {
    id: tx.newId(), lineId: line.id, action: 'imported', outcome: d.outcome, status: 'queued', detail: d.detail, by: RECONCILIATION.userId, at: tx.clock(),
    outbox: paymentQueuedEntry(tx, { line: { ...line, outcome: d.outcome, status: 'queued', detail: d.detail } }),
  };
}

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

type CreditPlan =
  | { kind: 'decision'; decision: DecisionInput; received: string; outcome: string; eventId: null; refusal: null; settles: null }
  | { kind: 'move'; judgement: Extract<CreditJudgement, { kind: 'move' }>; base: Omit<DecisionInput, 'status' | 'outcome' | 'detail'>; allocations: NewAllocation[]; at: Date };

/** A move's decision, and the queued partial lines of the investor it settles (when money came before it). */
type MovedCredit = { decision: DecisionInput; received: string; outcome: string; eventId: string | null; refusal: unknown; settles: Settlement | null };

/** A completed payment: the investor's queued partial lines leave the queue with the line that completed it. */
type Settlement = { dealId: string; investorUserId: string; lineId: string; eventId: string; by: string; at: Date };

const creditFacts = (input: CreditInput): CreditFacts => ({
  amount: input.amount, currency: input.line.currency, valueDate: input.line.valueDate ?? input.line.bookingDate, dealId: input.dealId,
  investorUserId: input.investorUserId, commitment: input.commitment, commitmentCurrency: input.commitmentCurrency, received: input.received,
  currentStepType: input.currentStepType, settings: input.settings, staff: input.staff, decide: input.decide ?? true,
});

/**
 * One credit judged (domain/credit.ts, judgeCredit; the caller holds the journey lock), as the
 * decision to record when it needs no move, else what the move's decision starts from. No I/O: a
 * batch collects these decisions to write them at once.
 */
function planCredit(tx: Deps, input: CreditInput): CreditPlan {
  const { line } = input;
  const at = tx.clock();
  const judgement = judgeCredit(creditFacts(input));
  const base = { id: tx.newId(), lineId: line.id, action: input.action, dealId: input.dealId, investorUserId: input.investorUserId, by: input.by, at } as const;
  const takeBack = input.takeBack ?? [];
  const allocation = (): NewAllocation => ({ id: tx.newId(), dealId: input.dealId, investorUserId: input.investorUserId, amount: input.amount, currency: line.currency, valueDate: line.valueDate ?? line.bookingDate });
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
function creditMove(plan: Extract<CreditPlan, { kind: 'move' }>): JumpInput | { refusal: Record<string, unknown> } {
  return plan.judgement.move;
}

/**
 * A credit whose total reaches the commitment: moves the investor (creditMove) through jumpToStep,
 * in the caller's transaction, and returns the line's decision, to be recorded by the caller:
 * `matched` with the event, or `queued` with the refusal.
 */
async function moveCredit(tx: Deps, input: CreditInput, plan: Extract<CreditPlan, { kind: 'move' }>): Promise<MovedCredit> {
  const move = creditMove(plan);
  if ('refusal' in move) return creditMovedDecision(tx, input, plan, { refusal: move.refusal });
  try {
    return creditMovedDecision(tx, input, plan, { eventId: (await jumpToStep(tx, RECONCILIATION, input.dealId, move)).id });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return creditMovedDecision(tx, input, plan, { refusal: refusalOf(err) });
  }
}

/** The decision of a credit's move once made (its event) or refused (domain/credit.ts, creditMoved). */
function creditMovedDecision(tx: Deps, input: CreditInput, plan: Extract<CreditPlan, { kind: 'move' }>, moved: { eventId: string } | { refusal: Record<string, unknown> }): MovedCredit {
  const { line, settings } = input;
  const { judgement, base, allocations, at } = plan;
  const result = creditMoved(creditFacts(input), judgement, moved);
  const { outcome, status, detail, eventId, refusal } = result;
  // The decision and its webhook entry are written together: payment.matched for a move, else
  // payment.queued when the line stays in the queue with the refusal.
  const outbox = result.announce === 'matched'
    ? paymentMatchedEntry(tx, {
        line: { ...line, outcome, status: 'matched', dealId: input.dealId, investorUserId: input.investorUserId, eventId, detail },
        dealId: input.dealId, investorUserId: input.investorUserId, paymentStepId: settings.paymentStepId!, eventId: eventId!, received: judgement.total,
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
async function settlePartialLines(tx: Deps, settlements: readonly Settlement[]): Promise<void> {
  // One settlement per investor: a second would find their partial lines already settled.
  const first = new Map<string, Settlement>();
  for (const s of settlements) if (!first.has(journeyKey(s))) first.set(journeyKey(s), s);
  if (first.size === 0) return;
  const partial = await queuedPartialLines(tx.db, [...first.values()]);
  await recordDecisions(tx.db, partial.flatMap(({ id, dealId, investorUserId }) => {
    const s = first.get(journeyKey({ dealId, investorUserId }))!;
    return id === s.lineId ? [] : [{ id: tx.newId(), lineId: id, action: 'settled', outcome: null, status: 'matched', reason: `completed by line ${s.lineId}`, eventId: s.eventId, by: s.by, at: s.at } as const];
  }));
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
  if (result.settles) await settlePartialLines(tx, [result.settles]);
  return { received: result.received, outcome: result.outcome, eventId: result.eventId, refusal: result.refusal };
}

/** A reversal: the credit it reverses goes back to the queue and its money is taken back. */
async function applyReversal(deps: Deps, reversal: PaymentLine): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const [locked] = await lockPendingLines(tx.db, [reversal.id]);
    if (!locked) return;
    const at = tx.clock();
    const originalId = reversal.direction === 'debit' ? await findReversedCredit(tx.db, reversal) : undefined;
    if (!originalId) {
      await recordDecision(tx.db, { id: tx.newId(), lineId: reversal.id, action: 'imported', outcome: 'reversal', status: 'ignored', detail: 'reverses no credit on file', by: RECONCILIATION.userId, at });
      return;
    }
    const original = (await findLine(tx.db, originalId))!;
    const held = await lineAllocations(tx.db, original.id);
    for (const a of held) await lockJourneyPaymentFacts(tx.db, a, { commitment: 'committed_amount', currency: null });
    const status = original.status === 'dismissed' ? 'dismissed' : 'queued';
    const detail = `reversed by line ${reversal.id}${original.status === 'matched' ? '; the investor was not moved back' : ''}`;
    await recordDecision(tx.db, {
      id: tx.newId(), lineId: original.id, action: 'reversed', outcome: null, status, detail, reversedByLineId: reversal.id, by: RECONCILIATION.userId, at,
      allocations: held.map((a) => ({ id: tx.newId(), ...a, amount: new Big(a.amount).neg().toFixed(), valueDate: reversal.valueDate })),
    });
    await recordDecision(tx.db, { id: tx.newId(), lineId: reversal.id, action: 'imported', outcome: 'reversal', status: 'ignored', detail: `reverses line ${original.id}`, by: RECONCILIATION.userId, at });
    if (status === 'queued') await recordPaymentQueued(tx, { line: { ...original, status, detail, reversedByLineId: reversal.id } });
  });
}
