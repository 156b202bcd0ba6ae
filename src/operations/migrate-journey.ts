// A workflow migration's move of one journey onto the current version: not a move of the jump
// rules (the migration decides where the investor goes), but written as a move is, through the
// store's one entry for moves (store/moves.ts moveStatements), beside applyMoves.
import { moveEntry } from '../domain/audit.ts';
import type { WorkflowEvent } from '../domain/event.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import type { Workflow } from '../domain/workflow.ts';
import { publicEvent, type StoredEvent } from '../store/events.ts';
import { moveStatements } from '../store/moves.ts';
import { bookOnCompletion } from './completion-booking.ts';
import type { Deps } from './deps.ts';
import { stepEnteredEntry } from './outbox-events.ts';

/** What a migration sees of a journey under its lock: its position, version and captured data. */
export interface LockedJourney {
  currentStepId: string;
  workflowVersion: number | null;
  captured: Map<string, string>;
}

/**
 * A workflow migration's move of one journey onto the current version (operations/workflow-migration.ts):
 * the journey is locked and read as a move's is, `decide` says where it goes (or nothing), and the
 * event is written as a move's (data empty, the current version), with its outbox entry and, onto a
 * complete step, its booking. The caller holds the workflow row FOR SHARE at `version`.
 */
export async function migrateJourney(
  tx: Deps,
  principal: Principal,
  key: { dealId: string; investorUserId: string },
  target: { workflow: Workflow; decide: (journey: LockedJourney) => string | undefined },
): Promise<WorkflowEvent | undefined> {
  const now = tx.clock();
  const event = await moveStatements(tx.db, key.dealId, [key.investorUserId], { countPendingEditRequests: false }, async (facts) => {
    const journey = facts.journeys.get(key.investorUserId);
    const toStepId =
      journey && journey.currentStepId !== null
        ? target.decide({ currentStepId: journey.currentStepId, workflowVersion: journey.workflowVersion, captured: new Map(Object.entries(journey.captured)) })
        : undefined;
    if (!journey || toStepId === undefined) return { writes: [], result: undefined };
    const moved: StoredEvent = {
      id: tx.newId(),
      fromStepId: journey.currentStepId,
      toStepId,
      data: {},
      createdByUserId: actorOf(principal),
      createdAt: now.toISOString(),
      ...key,
      seq: journey.eventCount + 1,
    };
    // Recorded in the journey's audit chain as any move is, saying it was the migration to this version.
    const audit = moveEntry(
      journey.auditHead,
      moved,
      { principal: actorOf(principal), tokenId: principal.tokenKey },
      { migratedToVersion: target.workflow.version },
    );
    const entry = stepEnteredEntry(tx, { ...key, event: publicEvent(moved) });
    return {
      writes: [{ event: moved, entry, workflowVersion: target.workflow.version, audit, reason: null, batch: null, keepsTimeAtStep: true }],
      result: moved,
    };
  });
  if (event === undefined) return undefined;
  const { toStepId } = event;
  if (toStepId !== event.fromStepId) {
    await bookOnCompletion(tx, principal, { ...key, step: target.workflow.steps.find((s) => s.id === toStepId), eventId: event.id, at: now });
  }
  return publicEvent(event);
}
