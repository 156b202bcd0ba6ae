// The writers of domain events (issue #6). Each one is called by the operation that causes the
// event, INSIDE that operation's transaction (`tx` is the Deps that inTransaction handed it), after
// its own writes: the outbox entry and its webhook deliveries then commit or roll back with the
// cause. Called outside a transaction they throw.
//
//   journey.step-entered   jump-to-step, an approved withdrawal      recordStepEntered
//   event.edited           event edit, an approved amount change     recordEventEdited
//   edit-request.*         create / approve / reject an edit request recordEditRequest
//   subscription.created   create a subscription transaction         recordSubscriptionCreated
import { appendOutbox } from '../store/outbox.ts';
import type { Deps } from './deps.ts';

/** A workflow event as the interface shows it (endpoint 3's journey entries). */
export interface WorkflowEventSnapshot {
  id: string;
  fromStepId: string | null;
  toStepId: string;
  data: Record<string, unknown>;
  createdByUserId: string;
  createdAt: string;
}

/** `journey.step-entered`: fires the triggers of the step entered (`toStepId`). */
export async function recordStepEntered(
  tx: Deps,
  input: { dealId: string; investorUserId: string; event: WorkflowEventSnapshot },
): Promise<string> {
  const id = tx.newId();
  await appendOutbox(tx.db, {
    id,
    type: 'journey.step-entered',
    occurredAt: new Date(input.event.createdAt),
    dealId: input.dealId,
    stepIds: [input.event.toStepId],
    data: {
      dealId: input.dealId,
      investorUserId: input.investorUserId,
      fromStepId: input.event.fromStepId,
      toStepId: input.event.toStepId,
      event: input.event,
    },
  });
  return id;
}

/** `event.edited`: fires the triggers of the event's step (its `toStepId`), with old and new data. */
export async function recordEventEdited(
  tx: Deps,
  input: {
    dealId: string;
    investorUserId: string;
    eventId: string;
    stepId: string;
    oldData: Record<string, unknown>;
    newData: Record<string, unknown>;
    editedByUserId: string;
    editedAt?: string;
  },
): Promise<string> {
  const id = tx.newId();
  const editedAt = input.editedAt ?? tx.clock().toISOString();
  await appendOutbox(tx.db, {
    id,
    type: 'event.edited',
    occurredAt: new Date(editedAt),
    dealId: input.dealId,
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
  });
  return id;
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
