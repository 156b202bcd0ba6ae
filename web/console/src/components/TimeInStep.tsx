// The time investors spend at a step, from the deal's funnel (one request per deal, shared by the columns).
import { useEffect, useState } from 'react';
import { api, type Funnel } from '../lib/api.ts';
import { formatDuration } from '../lib/format.ts';

// One funnel request per deal for all of a board's columns (they mount together), kept 10 s.
const shared = new Map<string, { at: number; value: Promise<Funnel> }>();
function sharedFunnel(dealId: string): Promise<Funnel> {
  const hit = shared.get(dealId);
  if (hit && Date.now() - hit.at < 10_000) return hit.value;
  const value = api.funnel(dealId);
  shared.set(dealId, { at: Date.now(), value });
  value.catch(() => shared.delete(dealId));
  return value;
}

/** The median time investors spent at a step before leaving it, for a board column's header. */
export function TimeInStep({ dealId, stepId }: { dealId: string; stepId: string }) {
  const [text, setText] = useState<string>();
  useEffect(() => {
    let live = true;
    sharedFunnel(dealId).then(
      (funnel) => {
        const step = funnel.steps.find((s) => s.stepId === stepId);
        if (live && step && step.timeInStep.medianMs !== null) {
          setText(`median ${formatDuration(step.timeInStep.medianMs)} here · 90% within ${formatDuration(step.timeInStep.p90Ms)}`);
        }
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [dealId, stepId]);
  return text ? <div className="column-time muted small">{text}</div> : null;
}
