// Moving several investors at once, one result per investor. Uses the bulk route when the service
// has it (POST …/jump-to-step/bulk, non-atomic: each move stands or falls alone); on a service
// without it, one jump-to-step per investor, reporting progress. Either way nothing is half-done
// for an investor: each move is the service's own single transaction.
import { ApiError, api, call, describeError, type WorkflowEvent } from './api.ts';

export interface Move {
  investorUserId: string;
  targetStepId: string;
  data: Record<string, string>;
  expectedCurrentStepId?: string;
}

export type MoveResult = { investorUserId: string; ok: true; event: WorkflowEvent } | { investorUserId: string; ok: false; error: ApiError | Error; message: string };

let bulkRoute: boolean | undefined;

export async function moveMany(dealId: string, moves: Move[], onProgress: (done: number) => void): Promise<MoveResult[]> {
  if (bulkRoute !== false) {
    try {
      type Item = { status: number; event?: WorkflowEvent; problem?: Record<string, unknown> };
      const answer = await call<Item[] | Record<string, Item[] | undefined>>(
        'POST',
        `/deals/deal/${encodeURIComponent(dealId)}/jump-to-step/bulk`,
        { moves, atomic: false },
      );
      bulkRoute = true;
      // The per-move results, in the order of the moves: the answer itself or its one array member.
      const items: Item[] = Array.isArray(answer) ? answer : (answer.results ?? answer.output ?? answer.items ?? []);
      onProgress(moves.length);
      return moves.map((move, i) => {
        const item = items[i];
        if (item && item.status === 201 && item.event) return { investorUserId: move.investorUserId, ok: true, event: item.event };
        const error = new ApiError(item?.status ?? 500, item?.problem ?? { detail: 'No result for this investor' });
        return { investorUserId: move.investorUserId, ok: false, error, message: describeError(error) };
      });
    } catch (error) {
      // 404 "No route" (or 405): this service has no bulk route; anything else is a real refusal.
      if (!(error instanceof ApiError && (error.status === 405 || (error.status === 404 && /route/i.test(error.message))))) throw error;
      bulkRoute = false;
    }
  }
  const results: MoveResult[] = [];
  for (const move of moves) {
    try {
      const event = await api.jump(dealId, { ...move, expectedCurrentStepId: move.expectedCurrentStepId ?? null });
      results.push({ investorUserId: move.investorUserId, ok: true, event });
    } catch (error) {
      results.push({ investorUserId: move.investorUserId, ok: false, error: error as Error, message: describeError(error) });
    }
    onProgress(results.length);
  }
  return results;
}
