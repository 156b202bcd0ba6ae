// Workflow events after the move: editing one (endpoint 4) and listing its revisions.
import { checkEventEdit, dataObject, type EventRevision, type WorkflowEvent } from '../domain/event.ts';
import { forbidden, notFound } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import { findEvent, listJourneyEvents, listRevisions, publicEvent, reviseEvent } from '../store/events.ts';
import { selectForUpdate } from '../store/journeys.ts';
import { findStep } from '../store/workflows.ts';
import { type Deps, inTransaction } from './deps.ts';
import { visibleRecord } from './investor-visibility.ts';
import { capturedData } from './journeys.ts';
import { recordEventEdited } from './outbox-events.ts';

/**
 * Endpoint 4: replaces an event's data (rules in domain/event.ts) and keeps the previous version
 * as a revision with who changed it and when. Runs under the journey row lock, so it is ordered
 * with the investor's moves. Joins the caller's transaction (an approved edit request).
 */
export async function editEvent(
  deps: Deps,
  principal: Principal,
  eventId: string,
  data: Record<string, string>,
  options: { reason?: string } = {},
): Promise<WorkflowEvent> {
  if (principal.role !== 'admin') throw forbidden('Only staff edit events; investors send edit requests');
  return inTransaction(deps, async ({ db, clock, newId }) => {
    const found = await findEvent(db, eventId);
    if (!found) throw notFound('event', eventId);
    await selectForUpdate(db, { dealId: found.dealId, investorUserId: found.investorUserId });
    const journey = await listJourneyEvents(db, found.dealId, found.investorUserId);
    const event = journey.find((e) => e.id === eventId)!;
    const step = await findStep(db, event.toStepId);
    if (!step) throw notFound('step', event.toStepId);
    const newData = new Map(Object.entries(data));
    checkEventEdit(step, new Map(Object.entries(event.data)), capturedData(journey.filter((e) => e.seq < event.seq)), newData);
    const stored = dataObject(newData);
    const at = clock();
    await reviseEvent(db, eventId, stored, { userId: principal.userId, at, reason: options.reason ?? null });
    // Issue #6: the outbox entry commits with the edit, or not at all.
    await recordEventEdited(
      { db, clock, newId },
      {
        dealId: found.dealId,
        investorUserId: found.investorUserId,
        eventId,
        stepId: event.toStepId,
        oldData: event.data,
        newData: stored,
        editedByUserId: principal.userId,
        editedAt: at.toISOString(),
      },
    );
    return publicEvent({ ...event, data: stored });
  });
}

/** Every version of an event's data, oldest first; staff, or the investor whose event it is. */
export async function getEventRevisions(deps: Deps, principal: Principal, eventId: string): Promise<EventRevision[]> {
  visibleRecord(principal, await findEvent(deps.db, eventId), (e) => e.investorUserId, () => notFound('event', eventId));
  return listRevisions(deps.db, eventId);
}
