// The steps a forward move passes over: after the step the investor stands on and before the
// target, along the links. The service's jump rules do not check those steps' requirements (a KYC
// level, say) and ask their fields only when the move gives some, so a move that passes over them
// says so before it is made.
import type { Workflow } from './api.ts';

function follow(workflow: Workflow, from: string, next: (stepId: string) => string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length > 0) {
    for (const id of next(todo.pop()!)) if (!seen.has(id)) seen.add(id), todo.push(id);
  }
  return seen;
}

/** Steps between `fromStepId` and `targetStepId` (neither included), in the workflow's order; none for a move back or to another branch. */
export function passedOver(workflow: Workflow, fromStepId: string, targetStepId: string): Workflow['steps'] {
  const after = follow(workflow, fromStepId, (id) => workflow.steps.find((s) => s.id === id)?.nextStepLinks.map((l) => l.toStepId) ?? []);
  if (!after.has(targetStepId)) return [];
  const before = follow(workflow, targetStepId, (id) => workflow.steps.filter((s) => s.nextStepLinks.some((l) => l.toStepId === id)).map((s) => s.id));
  return workflow.steps.filter((s) => s.id !== targetStepId && s.id !== fromStepId && after.has(s.id) && before.has(s.id));
}
