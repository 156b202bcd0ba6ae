// Edit requests: an investor (or staff on their behalf) asks to change a captured event; staff
// approve or reject.
//
// POST /deals/request-to-edit                    createEditRequest   201
// GET  /deals/request-to-edit/{requestId}        getEditRequest
// GET  /deals/request-to-edit/filtered           listEditRequests    (listInvestorEditRequests)
// POST /deals/request-to-edit/{requestId}/approve|reject  decideEditRequest
//
// Errors: 400 newData that does not fit the type; 404 unknown event, request, deal or investor
// (another investor's, for an investor token, as an unknown one); 409 a second pending request for one event, a
// decision on a request that is no longer pending, a withdrawal with no reachable withdrawn step;
// 422 an amount change against an event with no amount field. Approval errors of the effect (the
// edit's or the jump's own 400/409/422) leave the request pending: decision and effect are one
// transaction.
import { enqueueEditRequestDecided } from './mail-outbox.ts';
import { amountFieldsOfEvent, checkRequestData, type EditRequest, type EditRequestType, withdrawalTarget } from '../domain/edit-request.ts';
import { conflict, invalid, notFound, unprocessable } from '../domain/errors.ts';
import { actorOf, canActFor, type Principal } from '../domain/principal.ts';
import { findDeal } from '../store/deals.ts';
import * as store from '../store/edit-requests.ts';
import { findEvent } from '../store/events.ts';
import { findInvestor } from '../store/investors.ts';
import { findJourney } from '../store/journeys.ts';
import { findWorkflow } from '../store/workflows.ts';
import { recordEditRequestDecided } from './audit-entries.ts';
import { type Deps, inTransaction } from './deps.ts';
import { editEvent } from './events.ts';
import { moveToStep } from './journeys.ts';
import { dealVisibleTo, visibleRecord } from './investor-visibility.ts';
import { recordEditRequest } from './outbox-events.ts';
import { forReading } from './reads.ts';

export type { EditRequest } from '../domain/edit-request.ts';

export interface CreateEditRequestInput {
  workflowEventId: string;
  type: EditRequestType;
  reason: string;
  newData?: Record<string, string> | null | undefined;
}

/** The record check of createEditRequest alone, for callers that must refuse before anything else (a replay). */
export async function authorizeEditRequest(deps: Deps, principal: Principal, workflowEventId: string): Promise<void> {
  visibleRecord(
    principal,
    await findEvent(deps.db, workflowEventId),
    (e) => e.investorUserId,
    () => notFound('workflow event', workflowEventId),
  );
}

export async function createEditRequest(deps: Deps, principal: Principal, input: CreateEditRequestInput): Promise<EditRequest> {
  return inTransaction(deps, async (tx) => {
    const event = visibleRecord(
      principal,
      await findEvent(tx.db, input.workflowEventId),
      (e) => e.investorUserId,
      () => notFound('workflow event', input.workflowEventId),
    );

    let amountFields = new Set<string>();
    if (input.type === 'Investment Amount') {
      const workflow = await findWorkflow(tx.db, event.dealId);
      amountFields = workflow ? amountFieldsOfEvent(event.data, event.toStepId, workflow) : amountFields;
      if (amountFields.size === 0) {
        throw unprocessable(`Event ${event.id} captures no amount field, so there is no investment amount to change`);
      }
    }
    const errors = checkRequestData(input.type, input.newData, amountFields);
    if (errors.length > 0) throw invalid(errors);

    const created = await store.insertEditRequest(
      tx.db,
      {
        id: tx.newId(),
        workflowEventId: event.id,
        dealId: event.dealId,
        investorUserId: event.investorUserId,
        type: input.type,
        reason: input.reason,
        newData: input.type === 'Investment Amount' ? { ...input.newData } : null,
        createdByUserId: actorOf(principal),
      },
      tx.clock(),
    );
    // The outbox entry commits with the request, or not at all.
    await recordEditRequest(tx, 'edit-request.created', {
      dealId: event.dealId,
      investorUserId: event.investorUserId,
      stepId: event.toStepId,
      editRequest: { ...created },
    });
    return created;
  });
}

/** Admin, or the investor the request is about. */
export async function getEditRequest(deps: Deps, principal: Principal, requestId: string): Promise<EditRequest> {
  return visibleRecord(
    principal,
    await store.findEditRequest(deps.db, requestId),
    (r) => r.investorUserId,
    () => notFound('edit request', requestId),
  );
}

/** listInvestorEditRequests: the investor's requests in the deal, newest first. */
export async function listEditRequests(deps: Deps, principal: Principal, dealId: string, investorUserId: string): Promise<EditRequest[]> {
  if (!canActFor(principal, investorUserId)) throw notFound('investor', investorUserId);
  const { db } = forReading(deps);
  if (!(await dealVisibleTo(db, principal, dealId)) || !(await findDeal(db, dealId))) throw notFound('deal', dealId);
  if (!(await findInvestor(db, investorUserId))) throw notFound('investor', investorUserId);
  return store.listEditRequests(db, dealId, investorUserId);
}

export type Decision = 'approve' | 'reject';

/**
 * Approves or rejects a pending request, atomically with its effect. The request row is locked
 * first (FOR UPDATE): of two concurrent decisions the second waits, then finds it decided (409).
 * The status is recorded before the effect runs, so the jump's `no-pending-edit-requests`
 * requirement does not count the very request being approved.
 */
export async function decideEditRequest(deps: Deps, principal: Principal, requestId: string, decision: Decision, reason: string | null): Promise<EditRequest> {
  return inTransaction(deps, async (tx) => {
    const request = await store.findEditRequest(tx.db, requestId, { forUpdate: true });
    if (!request) throw notFound('edit request', requestId);
    if (request.status !== 'pending') {
      throw conflict(`Edit request ${requestId} was already ${request.status}`, { status: request.status });
    }
    const decided = await store.decideEditRequest(
      tx.db,
      requestId,
      { status: decision === 'approve' ? 'approved' : 'rejected', decidedByUserId: actorOf(principal), reason },
      tx.clock(),
    );
    // The decision's outbox entry, then the effect's own (event.edited or
    // journey.step-entered); all commit together with the decision, or none does.
    const event = await findEvent(tx.db, request.workflowEventId);
    await recordEditRequest(tx, decision === 'approve' ? 'edit-request.approved' : 'edit-request.rejected', {
      dealId: request.dealId,
      investorUserId: request.investorUserId,
      stepId: event?.toStepId ?? '',
      editRequest: { ...decided },
      decidedByUserId: actorOf(principal),
    });
    await recordEditRequestDecided(tx.db, principal, request, { status: decided.status, reason }, tx.clock());
    await enqueueEditRequestDecided(tx, request, { status: decision === 'approve' ? 'approved' : 'rejected', reason });
    if (decision === 'approve') await applyApproval(tx, principal, request, reason);
    return decided;
  });
}

async function applyApproval(tx: Deps, principal: Principal, request: EditRequest, reason: string | null) {
  const note = `edit request ${request.id} (${request.type}) approved${reason ? `: ${reason}` : ''}`;
  switch (request.type) {
    case 'Investment Amount': {
      const event = await findEvent(tx.db, request.workflowEventId);
      if (!event) throw notFound('workflow event', request.workflowEventId);
      // The edit operation (editWorkflowEvent) checks the merged data like any edit and keeps the
      // previous version, recording the approver as who set the new one.
      await editEvent(tx, principal, event.id, { ...event.data, ...request.newData }, { reason: note });
      return;
    }
    case 'Withdraw Investment': {
      const workflow = await findWorkflow(tx.db, request.dealId);
      const current = (await findJourney(tx.db, request.dealId, request.investorUserId))?.currentStepId;
      if (!workflow || current == null) throw conflict('The investor has no position in this deal to withdraw from');
      const target = withdrawalTarget(workflow, current);
      if (!target.ok) throw conflict(target.detail);
      // The jump operation (moveToStep) checks its rules as for any move; expectedCurrentStepId
      // makes it fail (409) rather than apply if the investor moved since we looked.
      await moveToStep(
        tx,
        principal,
        request.dealId,
        {
          investorUserId: request.investorUserId,
          targetStepId: target.step.id,
          data: {},
          expectedCurrentStepId: current,
        },
        {},
        { reason: note },
      );
      return;
    }
  }
}
