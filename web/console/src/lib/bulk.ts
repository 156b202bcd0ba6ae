// Moving several investors at once, one result per investor, through POST …/jump-to-step/bulk.
// Nothing is half-done for an investor: each move is the service's own single transaction.
import { ApiError, call, describeError, type WorkflowEvent } from './api.ts';

export interface Move {
  investorUserId: string;
  targetStepId: string;
  data: Record<string, string>;
  expectedCurrentStepId?: string;
}

export type MoveResult =
  | { investorUserId: string; ok: true; event: WorkflowEvent }
  | { investorUserId: string; ok: false; error: ApiError | Error; message: string };

const BULK_LIMIT = 1000;

/** Moves investors together through the bulk route (non-atomic: each move stands or falls alone). */
export async function moveMany(dealId: string, moves: Move[], onProgress: (done: number) => void): Promise<MoveResult[]> {
  type Item = { status: number; event?: WorkflowEvent; problem?: Record<string, unknown> };
  const results: Item[] = [];
  // The route takes at most BULK_LIMIT moves a request.
  for (let start = 0; start < moves.length; start += BULK_LIMIT) {
    const batch = moves.slice(start, start + BULK_LIMIT);
    const answer = await call<{ results: Item[] }>('POST', `/deals/deal/${encodeURIComponent(dealId)}/jump-to-step/bulk`, { moves: batch, atomic: false });
    results.push(...answer.results);
    onProgress(results.length);
  }
  // One result per move, in the order of the moves.
  return moves.map((move, i) => {
    const item = results[i];
    if (item && item.status === 201 && item.event) return { investorUserId: move.investorUserId, ok: true, event: item.event };
    const error = new ApiError(item?.status ?? 500, item?.problem ?? { detail: 'No result for this investor' });
    return { investorUserId: move.investorUserId, ok: false, error, message: describeError(error) };
  });
}
