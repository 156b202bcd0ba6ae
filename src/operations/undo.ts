// POST /console/batches/{batchId}/undo: undoes one write that moved investors (a move, a bulk move,
// an import, a payment decision; migration 0025 tags their events with the batch) as one action.
//
// - History is never rewritten: each investor of the batch is moved back to the step they came from
//   by a new event (through applyMoves, the one path of every move), with the reason on its first
//   revision, and those events form a batch of their own (kind `undo`, naming the batch it undoes),
//   which can itself be undone.
// - Only when nothing has happened since to the same investors: under their journey locks, each
//   one's latest event must still be the batch's; otherwise 409 naming who changed and where they
//   stand now. Every move back is also guarded like an `expectedCurrentStepId` move. All or none:
//   one transaction, a refusal rolls all back.
// - What the undone events captured no longer counts as captured (store/journeys.ts
//   recaptureJourneys, migration 0029): a required field must be given again. An undo of an undo
//   carries that data again on its own events.
// - Within UNDO_WINDOW_MS of the batch (after that, 409); a batch is undone at most once (409 naming
//   the undo); an investor who entered the workflow in the batch has no step to go back to (409).
import { AppError, conflict, forbidden, notFound } from '../domain/errors.ts';
import type { WorkflowEvent } from '../domain/event.ts';
import { isStaff, type Principal } from '../domain/principal.ts';
import { recaptureJourneys } from '../store/journeys.ts';
import { findUndoOf, latestEvents, listBatchEvents, lockJourneys, reversedData } from '../store/move-batches.ts';
import { type Deps, inTransaction } from './deps.ts';
import { applyMoves } from './apply-moves.ts';

/** How long a batch can be undone: a working day, so a mistake seen in the afternoon is still undone. */
export const UNDO_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface UndoResult {
  batchId: string;
  undoes: string;
  dealId: string;
  events: WorkflowEvent[];
}

export interface ChangedSince {
  investorUserId: string;
  reason: 'moved-since' | 'entered-with-batch';
  currentStepId: string | null;
  eventId: string | null;
  at: string | null;
}

export async function undoBatch(deps: Deps, principal: Principal, batchId: string, input: { reason?: string | undefined } = {}): Promise<UndoResult> {
  if (!isStaff(principal)) throw forbidden('Only staff undo moves');
  return inTransaction(deps, async (tx) => {
    const rows = await listBatchEvents(tx.db, batchId);
    if (rows.length === 0) throw notFound('batch', batchId);
    const dealId = rows[0]!.dealId;
    const investors = rows.map((r) => r.investorUserId);
    await lockJourneys(tx.db, dealId, investors);
    const undoneBy = await findUndoOf(tx.db, batchId);
    if (undoneBy) throw conflict(`Batch ${batchId} was already undone (by batch ${undoneBy})`, { undoneByBatchId: undoneBy });
    const now = tx.clock();
    const madeAt = rows[0]!.createdAt;
    if (now.getTime() - madeAt.getTime() > UNDO_WINDOW_MS) {
      throw conflict(
        `Batch ${batchId} was made at ${madeAt.toISOString()}; a batch can be undone for ${UNDO_WINDOW_MS / 3_600_000} hours only. Move the investors back one by one instead`,
        { undoWindowSeconds: UNDO_WINDOW_MS / 1000, batchCreatedAt: madeAt.toISOString() },
      );
    }
    const latest = await latestEvents(tx.db, dealId, investors);
    const changed: ChangedSince[] = [];
    for (const row of rows) {
      const last = latest.get(row.investorUserId);
      if (last && last.eventId !== row.eventId) {
        changed.push({
          investorUserId: row.investorUserId,
          reason: 'moved-since',
          currentStepId: last.toStepId,
          eventId: last.eventId,
          at: last.createdAt.toISOString(),
        });
      } else if (row.fromStepId === null) {
        changed.push({
          investorUserId: row.investorUserId,
          reason: 'entered-with-batch',
          currentStepId: row.toStepId,
          eventId: row.eventId,
          at: row.createdAt.toISOString(),
        });
      }
    }
    if (changed.length > 0) {
      const moved = changed.filter((c) => c.reason === 'moved-since');
      const entered = changed.filter((c) => c.reason === 'entered-with-batch');
      const parts = [
        ...(moved.length > 0 ? [`moved since: ${moved.map((c) => `${c.investorUserId} (now at ${c.currentStepId}, ${c.at})`).join(', ')}`] : []),
        ...(entered.length > 0
          ? [`entered the workflow with this batch, so there is no step to go back to: ${entered.map((c) => c.investorUserId).join(', ')}`]
          : []),
      ];
      throw conflict(`Batch ${batchId} cannot be undone: ${parts.join('; ')}. Nothing was changed`, { changedSince: changed });
    }
    const undoId = tx.newId();
    const reason = `undo of batch ${batchId}${input.reason ? `: ${input.reason}` : ''}`;
    // The undone batch's data stops counting as captured (recaptureJourneys below); undoing an undo
    // moves the investors forward again with the data the reversed events held.
    const again = rows[0]!.undoes === null ? new Map<string, Record<string, string>>() : await reversedData(tx.db, batchId);
    const outcomes = await applyMoves(
      tx,
      principal,
      dealId,
      rows.map((row) => ({
        input: {
          investorUserId: row.investorUserId,
          targetStepId: row.fromStepId!,
          data: again.get(row.investorUserId) ?? {},
          expectedCurrentStepId: row.toStepId,
        },
        record: { reason, batch: { id: undoId, kind: 'undo' as const, undoes: batchId } },
      })),
    );
    const refused = outcomes.flatMap((o, i) => (o.ok ? [] : [{ investorUserId: rows[i]!.investorUserId, error: o.error }]));
    if (refused.length > 0) {
      throw new AppError(
        'conflict',
        `Batch ${batchId} cannot be undone: ${refused.map((r) => `${r.investorUserId}: ${r.error.message}`).join('; ')}. Nothing was changed`,
        {
          extensions: { refusedInvestorUserIds: refused.map((r) => r.investorUserId) },
        },
      );
    }
    await recaptureJourneys(tx.db, dealId, investors);
    return { batchId: undoId, undoes: batchId, dealId, events: outcomes.map((o) => (o as Extract<typeof o, { ok: true }>).event) };
  });
}
