// Matching a statement's pending lines (after its import stores them, statement-import.ts):
// - each investor's credits are judged in statement order under their journey lock, in batches of
//   investors, one transaction per batch (several batches at once on PostgreSQL): the credits
//   before an investor's first that reaches the commitment (partial, overpaid, wrong currency) are
//   queued, one statement for the batch; then `matched` moves the investor to the deal's payment
//   step through moveToStep as the principal `reconciliation`, and that line and the ones after it
//   are decided (anything else, and a refused move, queued), one statement for the batch; a move
//   and its line's decision commit together (the decisions themselves: payment-decisions.ts);
// - a reversal puts the credit it reverses back in the queue and takes its money back (no move).
// A batch that fails leaves its lines `pending`; importing the file again finishes them.
import { enqueueCreditsReceived } from './mail-outbox.ts';
import Big from 'big.js';
import { retryAborted } from '../store/errors.ts';
import { findPaymentSettings, type PaymentSettings } from '../store/payment-settings.ts';
import { type DecisionInput, lineAllocations, recordDecision, recordDecisions } from '../store/payment-decisions.ts';
import { dealCurrencies, journeyKey, lockJourneyCredits, lockJourneyPaymentFacts } from '../store/payment-facts.ts';
import { findLine, findReversedCredit, lockPendingLines, type PaymentLine } from '../store/payment-lines.ts';
import { eachConcurrently, letOthersIn } from './concurrency.ts';
import { type Deps, inTransaction } from './deps.ts';
import { engineOf } from './pipeline.ts';
import { applyMoves, type MoveInput } from './apply-moves.ts';
import {
  type CreditInput,
  type CreditPlan,
  creditMove,
  creditMovedDecision,
  defaultSettings,
  type MovedCredit,
  moveCredit,
  planCredit,
  RECONCILIATION,
  refusalOf,
  type Settlement,
  settlePartialLines,
} from './payment-decisions.ts';
import { paymentQueuedEntry, recordPaymentQueued } from './payment-events.ts';

/**
 * Judges the statement's pending credits, then applies its reversals. The credits are grouped by
 * investor, in statement order, and matched in batches of investors, one transaction per batch
 * (several batches at once on PostgreSQL): see matchBatch.
 */
export async function matchPendingLines(deps: Deps, pending: readonly PaymentLine[], options: { concurrency: number; batchSize: number }): Promise<void> {
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
  const context = (group: CreditGroup) => ({
    settings: settings.get(group.dealId) ?? defaultSettings(group.dealId),
    dealCurrency: currencies.get(group.dealId) ?? null,
  });
  const all = [...groups.values()];
  const size = Math.max(1, options.batchSize);
  const batches = Array.from({ length: Math.ceil(all.length / size) }, (_, i) => all.slice(i * size, (i + 1) * size));
  const shared = engineOf(deps).batchConcurrency === 1;
  await eachConcurrently(batches, options.concurrency, async (batch) => {
    await retryAborted(() => matchBatch(deps, batch, context));
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
    const locked = await lockJourneyCredits(
      tx.db,
      batch.map((g) => {
        const { settings } = context(g);
        return {
          dealId: g.dealId,
          investorUserId: g.investorUserId,
          lineIds: g.lines.map((l) => l.id),
          fields: { commitment: settings.commitmentFieldKey, currency: settings.currencyFieldKey },
        };
      }),
      { genericPlans: true },
    );
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
        dealId: group.dealId,
        investorUserId: group.investorUserId,
        settings,
        commitment: facts.commitment,
        commitmentCurrency: facts.commitmentCurrency ?? dealCurrency,
        by: RECONCILIATION.userId,
        action: 'imported',
        staff: false,
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
    await enqueueCreditsReceived(tx, before);
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
      const outcomes =
        asked.length > 0
          ? await applyMoves(
              tx,
              RECONCILIATION,
              dealId,
              asked.map((f) => ({ input: f.move as MoveInput, record: { batch: { kind: 'reconciliation' as const } } })),
            )
          : [];
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
    await enqueueCreditsReceived(tx, after);
    await settlePartialLines(tx, settling);
  });
}

/** A credit whose reference names a journey without events: queued as an unknown reference. */
function noJourneyDecision(tx: Deps, line: PaymentLine): DecisionInput {
  const d = { outcome: 'unknown-reference', detail: 'the journey of this reference has no events' } as const;
  return {
    id: tx.newId(),
    lineId: line.id,
    action: 'imported',
    outcome: d.outcome,
    status: 'queued',
    detail: d.detail,
    by: RECONCILIATION.userId,
    at: tx.clock(),
    outbox: paymentQueuedEntry(tx, { line: { ...line, outcome: d.outcome, status: 'queued', detail: d.detail } }),
  };
}

/** A reversal: the credit it reverses goes back to the queue and its money is taken back. */
async function applyReversal(deps: Deps, reversal: PaymentLine): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const [locked] = await lockPendingLines(tx.db, [reversal.id]);
    if (!locked) return;
    const at = tx.clock();
    const originalId = reversal.direction === 'debit' ? await findReversedCredit(tx.db, reversal) : undefined;
    if (!originalId) {
      await recordDecision(tx.db, {
        id: tx.newId(),
        lineId: reversal.id,
        action: 'imported',
        outcome: 'reversal',
        status: 'ignored',
        detail: 'reverses no credit on file',
        by: RECONCILIATION.userId,
        at,
      });
      return;
    }
    const original = (await findLine(tx.db, originalId))!;
    const held = await lineAllocations(tx.db, original.id);
    for (const a of held) await lockJourneyPaymentFacts(tx.db, a);
    const status = original.status === 'dismissed' ? 'dismissed' : 'queued';
    const detail = `reversed by line ${reversal.id}${original.status === 'matched' ? '; the investor was not moved back' : ''}`;
    await recordDecision(tx.db, {
      id: tx.newId(),
      lineId: original.id,
      action: 'reversed',
      outcome: null,
      status,
      detail,
      reversedByLineId: reversal.id,
      by: RECONCILIATION.userId,
      at,
      allocations: held.map((a) => ({ id: tx.newId(), ...a, amount: new Big(a.amount).neg().toFixed(), valueDate: reversal.valueDate })),
    });
    await recordDecision(tx.db, {
      id: tx.newId(),
      lineId: reversal.id,
      action: 'imported',
      outcome: 'reversal',
      status: 'ignored',
      detail: `reverses line ${original.id}`,
      by: RECONCILIATION.userId,
      at,
    });
    if (status === 'queued') await recordPaymentQueued(tx, { line: { ...original, status, detail, reversedByLineId: reversal.id } });
  });
}
