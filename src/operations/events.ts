// Workflow events after the move: editing one (editWorkflowEvent) and listing its revisions.
import { checkEventEdit, dataObject, type EventRevision, type WorkflowEvent } from '../domain/event.ts';
import { forbidden, notFound } from '../domain/errors.ts';
import { actorOf, isStaff, type Principal } from '../domain/principal.ts';
import { loadEditFacts, writeEdit } from '../store/event-edits.ts';
import { findEvent, listRevisions, publicEvent } from '../store/events.ts';
import { chainEntry, journeyChain } from '../domain/audit.ts';
import { type Deps, inTransaction } from './deps.ts';
import { visibleRecord } from './investor-visibility.ts';
import { capturedData } from './journeys.ts';
import { eventEditedEntry } from './outbox-events.ts';

/**
 * editWorkflowEvent: replaces an event's data (rules in domain/event.ts) and keeps the previous version
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
  if (!isStaff(principal)) throw forbidden('Only staff edit events; investors send edit requests');
  return inTransaction(deps, async ({ db, clock, newId }) => {
    // Load: the event, its journey locked, the data before it and its step, in one statement (a
    // second read when the lock waited for a change made after the first one's snapshot).
    let facts = await loadEditFacts(db, eventId);
    if (facts === 'stale') facts = await loadEditFacts(db, eventId);
    if (facts === 'stale') throw new Error(`the journey of event ${eventId} changed under its lock`);
    if (!facts) throw notFound('event', eventId);
    const { event, earlier, step, auditHead, dealCurrency } = facts;
    if (!step) throw notFound('step', event.toStepId);
    const newData = new Map(Object.entries(data));
    checkEventEdit(step, new Map(Object.entries(event.data)), capturedData(earlier.map((d) => ({ data: d }))), newData, dealCurrency);
    const stored = dataObject(newData);
    const at = clock();
    // Write: the revision, the event's data and the outbox entry, committed together.
    const entry = eventEditedEntry(
      { newId, clock },
      {
        dealId: event.dealId,
        investorUserId: event.investorUserId,
        eventId,
        stepId: event.toStepId,
        oldData: event.data,
        newData: stored,
        editedByUserId: actorOf(principal),
        editedAt: at.toISOString(),
      },
    );
    const audit = chainEntry(auditHead, {
      chain: journeyChain(event.dealId, event.investorUserId),
      type: 'event.edited',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: {
        eventId,
        dealId: event.dealId,
        investorUserId: event.investorUserId,
        stepId: event.toStepId,
        oldData: event.data,
        newData: stored,
        reason: options.reason ?? null,
      },
    });
    await writeEdit(db, event, stored, { userId: actorOf(principal), at, reason: options.reason ?? null }, entry, audit);
    return publicEvent({ ...event, data: stored });
  });
}

/** Every version of an event's data, oldest first; staff, or the investor whose event it is. */
export async function getEventRevisions(deps: Deps, principal: Principal, eventId: string): Promise<EventRevision[]> {
  visibleRecord(
    principal,
    await findEvent(deps.db, eventId),
    (e) => e.investorUserId,
    () => notFound('event', eventId),
  );
  return listRevisions(deps.db, eventId);
}
