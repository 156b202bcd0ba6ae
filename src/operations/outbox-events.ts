// The writers of domain events. Each one is called by the operation that causes the
// event, INSIDE that operation's transaction (`tx` is the Deps that inTransaction handed it), after
// its own writes: the outbox entry and its webhook deliveries then commit or roll back with the
// cause. Called outside a transaction they throw.
//
//   journey.step-entered   jump-to-step, an approved withdrawal      recordStepEntered
//   event.edited           event edit, an approved amount change     recordEventEdited
//   edit-request.*         create / approve / reject an edit request recordEditRequest
//   subscription.created   create a subscription transaction         recordSubscriptionCreated
import { appendOutbox, type OutboxEntryInput } from '../store/outbox.ts';
import type { Deps } from './deps.ts';

/** A workflow event as the interface shows it (getInvestorJourney's journey entries). */
export interface WorkflowEventSnapshot {
  id: string;
  fromStepId: string | null;
  toStepId: string;
  data: Record<string, unknown>;
  createdByUserId: string;
  createdAt: string;
}

/**
 * The `journey.step-entered` entry of a move, for the move's own write statement (a move writes
 * its event and its entry in one round trip: store/moves.ts).
 */
export function stepEnteredEntry(tx: Pick<Deps, 'newId'>, input: { dealId: string; investorUserId: string; event: WorkflowEventSnapshot }): OutboxEntryInput {
  return {
    id: tx.newId(),
    type: 'journey.step-entered',
    occurredAt: new Date(input.event.createdAt),
    dealId: input.dealId,
    investorUserId: input.investorUserId,
    stepIds: [input.event.toStepId],
    data: {
      dealId: input.dealId,
      investorUserId: input.investorUserId,
      fromStepId: input.event.fromStepId,
      toStepId: input.event.toStepId,
      event: input.event,
    },
  };
}

/** `journey.step-entered`: fires the triggers of the step entered (`toStepId`). */
export async function recordStepEntered(tx: Deps, input: { dealId: string; investorUserId: string; event: WorkflowEventSnapshot }): Promise<string> {
  const entry = stepEnteredEntry(tx, input);
  await appendOutbox(tx.db, entry);
  return entry.id;
}

/** `event.edited`: fires the triggers of the event's step (its `toStepId`), with old and new data. */
export async function recordEventEdited(tx: Deps, input: EventEditedInput): Promise<string> {
  const entry = eventEditedEntry(tx, input);
  await appendOutbox(tx.db, entry);
  return entry.id;
}

export interface EventEditedInput {
  dealId: string;
  investorUserId: string;
  eventId: string;
  stepId: string;
  oldData: Record<string, unknown>;
  newData: Record<string, unknown>;
  editedByUserId: string;
  editedAt?: string;
}

/** The `event.edited` entry, for an edit's own write statement (store/events.ts). */
export function eventEditedEntry(tx: Pick<Deps, 'newId' | 'clock'>, input: EventEditedInput): OutboxEntryInput {
  const editedAt = input.editedAt ?? tx.clock().toISOString();
  return {
    id: tx.newId(),
    type: 'event.edited',
    occurredAt: new Date(editedAt),
    dealId: input.dealId,
    investorUserId: input.investorUserId,
    stepIds: [input.stepId],
    data: {
      dealId: input.dealId,
      investorUserId: input.investorUserId,
      eventId: input.eventId,
      stepId: input.stepId,
      oldData: input.oldData,
      newData: input.newData,
      editedByUserId: input.editedByUserId,
      editedAt,
    },
  };
}

export type EditRequestEventType = 'edit-request.created' | 'edit-request.approved' | 'edit-request.rejected';

/**
 * `edit-request.created|approved|rejected`: fires the triggers of the step of the event the request
 * is against. `editRequest` is the request as the API shows it (workflowEventId, type, reason, …).
 */
export async function recordEditRequest(
  tx: Deps,
  type: EditRequestEventType,
  input: { dealId: string; investorUserId: string; stepId: string; editRequest: Record<string, unknown>; decidedByUserId?: string },
): Promise<string> {
  const id = tx.newId();
  await appendOutbox(tx.db, {
    id,
    type,
    occurredAt: tx.clock(),
    dealId: input.dealId,
    investorUserId: input.investorUserId,
    stepIds: [input.stepId],
    data: {
      dealId: input.dealId,
      investorUserId: input.investorUserId,
      stepId: input.stepId,
      editRequest: input.editRequest,
      ...(input.decidedByUserId !== undefined ? { decidedByUserId: input.decidedByUserId } : {}),
    },
  });
  return id;
}

/**
 * `kyc-check.decided`: a KYC provider's result, recorded. In the feed of the deal the check was
 * started for, else in the platform stream; no step trigger matches it (it concerns no step).
 */
export async function recordKycCheckDecided(
  tx: Deps,
  input: { checkId: string; investorUserId: string; dealId: string | null; outcome: string; level: number | null; kycCheckLevel: number | null },
): Promise<string> {
  const id = tx.newId();
  await appendOutbox(tx.db, { id, type: 'kyc-check.decided', occurredAt: tx.clock(), dealId: input.dealId, stepIds: [], data: { ...input } });
  return id;
}

/**
 * `subscription.created`. A subscription belongs to no deal: without `dealId` the entry is
 * sequenced in the platform stream and no step trigger matches it. When the caller knows the deal
 * (and the investor's step in it), it passes them, and the entry joins that deal's feed and fires
 * the triggers of those steps that list `subscription.created`.
 */
export async function recordSubscriptionCreated(
  tx: Deps,
  input: { subscription: Record<string, unknown>; dealId?: string | null; stepIds?: string[] },
): Promise<string> {
  const id = tx.newId();
  await appendOutbox(tx.db, {
    id,
    type: 'subscription.created',
    occurredAt: tx.clock(),
    dealId: input.dealId ?? null,
    stepIds: input.stepIds ?? [],
    data: { subscription: input.subscription },
  });
  return id;
}
