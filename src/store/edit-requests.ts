// Edit requests. One pending request per event is the partial unique index edit_requests_one_pending
// (migration 0004); a decision locks the request row first (FOR UPDATE), so two concurrent
// decisions are serialized and the second sees the first's outcome.
import type { Kysely, Selectable } from 'kysely';
import type { EditRequest, EditRequestStatus, EditRequestType } from '../domain/edit-request.ts';
import { conflict } from '../domain/errors.ts';
import { isUniqueViolation } from './errors.ts';
import type { DB, EditRequestsTable } from './schema.ts';

export const ONE_PENDING_CONSTRAINT = 'edit_requests_one_pending';

const toEditRequest = (row: Selectable<EditRequestsTable>): EditRequest => ({
  id: row.id,
  workflowEventId: row.workflow_event_id,
  dealId: row.deal_id,
  investorUserId: row.investor_user_id,
  type: row.type as EditRequestType,
  reason: row.reason,
  newData: row.new_data ?? null,
  status: row.status as EditRequestStatus,
  createdByUserId: row.created_by_user_id,
  dateRecieved: row.created_at.toISOString(),
  decidedAt: row.decided_at?.toISOString() ?? null,
  decidedByUserId: row.decided_by_user_id,
  decisionReason: row.decision_reason,
});

/** A conflict (409) when the event already has a pending request (the partial unique index edit_requests_one_pending). */
export async function insertEditRequest(
  db: Kysely<DB>,
  request: Omit<EditRequest, 'status' | 'dateRecieved' | 'decidedAt' | 'decidedByUserId' | 'decisionReason'>,
  now: Date,
): Promise<EditRequest> {
  const insert = db
    .insertInto('edit_requests')
    .values({
      id: request.id,
      workflow_event_id: request.workflowEventId,
      deal_id: request.dealId,
      investor_user_id: request.investorUserId,
      type: request.type,
      reason: request.reason,
      new_data: request.newData === null ? null : JSON.stringify(request.newData),
      status: 'pending',
      created_by_user_id: request.createdByUserId,
      created_at: now,
    })
    .returningAll();
  try {
    return toEditRequest(await insert.executeTakeFirstOrThrow());
  } catch (err) {
    if (isUniqueViolation(err, ONE_PENDING_CONSTRAINT)) {
      throw conflict('There is already a pending edit request about this answer; wait for its decision');
    }
    throw err;
  }
}

export async function findEditRequest(db: Kysely<DB>, id: string, options: { forUpdate?: boolean } = {}): Promise<EditRequest | undefined> {
  let query = db.selectFrom('edit_requests').selectAll().where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? toEditRequest(row) : undefined;
}

/** Records the decision on a pending request; the caller holds the row lock. */
export async function decideEditRequest(
  db: Kysely<DB>,
  id: string,
  decision: { status: Exclude<EditRequestStatus, 'pending'>; decidedByUserId: string; reason: string | null },
  now: Date,
): Promise<EditRequest> {
  const row = await db
    .updateTable('edit_requests')
    .set({ status: decision.status, decided_at: now, decided_by_user_id: decision.decidedByUserId, decision_reason: decision.reason })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirstOrThrow();
  return toEditRequest(row);
}

/** An investor's requests in a deal, newest first (by arrival order, not by the millisecond). */
export async function listEditRequests(db: Kysely<DB>, dealId: string, investorUserId: string): Promise<EditRequest[]> {
  const rows = await db
    .selectFrom('edit_requests')
    .selectAll()
    .where('deal_id', '=', dealId)
    .where('investor_user_id', '=', investorUserId)
    .orderBy('seq', 'desc')
    .execute();
  return rows.map(toEditRequest);
}
