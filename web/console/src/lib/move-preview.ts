// The move dialog's preview: the same move as a dry run (POST jump-to-step?dryRun=true), asked
// again a moment after the user stops typing, so the dialog shows before submit which fields and
// requirements the move still lacks. The service evaluates every rule and writes nothing.
import { useEffect, useState } from 'react';
import { ApiError, call, type WorkflowEvent } from './api.ts';

export type MovePreview =
  | { state: 'idle' }
  | { state: 'ready'; intermediaryStepIds: string[] }
  | { state: 'lacking'; missingFields: string[]; failedRequirements: string[]; message: string };

export function useMovePreview(
  dealId: string,
  body: { investorUserId: string; targetStepId: string; data: Record<string, string>; expectedCurrentStepId?: string | null } | undefined,
): MovePreview {
  const [preview, setPreview] = useState<MovePreview>({ state: 'idle' });
  const key = body ? JSON.stringify(body) : '';
  useEffect(() => {
    if (!body) {
      setPreview({ state: 'idle' });
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      call<{ event: WorkflowEvent; intermediaryStepIds: string[] }>('POST', `/deals/deal/${encodeURIComponent(dealId)}/jump-to-step?dryRun=true`, body).then(
        (result) => live && setPreview({ state: 'ready', intermediaryStepIds: result.intermediaryStepIds }),
        (err: unknown) => {
          if (!live) return;
          if (!(err instanceof ApiError) || err.status >= 500 || err.status === 401) return setPreview({ state: 'idle' });
          const missing = err.problem.missingFields;
          const failed = err.problem.failedRequirements;
          setPreview({
            state: 'lacking',
            missingFields: Array.isArray(missing) ? missing.filter((k): k is string => typeof k === 'string') : [],
            failedRequirements: Array.isArray(failed) ? failed.map((f) => String((f as { detail?: unknown }).detail ?? (f as { kind?: unknown }).kind)) : [],
            message: err.message,
          });
        },
      );
    }, 400);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // `key` stands for `body`: a new object with the same content must not ask again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [dealId, key]);
  return preview;
}
