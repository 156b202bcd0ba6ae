// `node bench/plan-move.ts`: CPU per call of planMove (domain/move-rules.ts), the move rules alone, on a
// 10-step linear workflow like the bench deal's (bench/fixtures.ts), every call with the same steps
// and links arrays as a cached workflow gives every move, each move one step forward with one field.
import { planMove } from '../src/domain/move-rules.ts';
import type { Link, Step } from '../src/domain/workflow.ts';

const ids = Array.from({ length: 10 }, (_, i) => `bench-step-${i + 1}`);
const steps = ids.map((id, i) => ({
  id,
  label: id,
  type: i === 9 ? 'complete' : 'normal',
  stepFields: [{ fieldKey: `f${i}`, label: 'f', kind: 'text', required: false }],
  requirements: [],
})) as unknown as Step[];
const links: Link[] = ids.slice(1).map((id, i) => ({ fromStepId: ids[i]!, toStepId: id }) as Link);

const run = (n: number) => {
  for (let k = 0; k < n; k++) {
    const at = k % 9;
    planMove(
      {
        steps,
        links,
        currentStepId: ids[at]!,
        visitedStepIds: ids.slice(0, at + 1),
        captured: new Map(),
        investor: { kycCheckLevel: null, classes: [] },
        pendingEditRequests: 0,
      },
      { targetStepId: ids[at + 1]!, data: new Map([[`f${at + 1}`, 'x']]) },
    );
  }
};
const CALLS = 200_000;
run(20_000); // warm-up
const before = process.cpuUsage();
run(CALLS);
const used = process.cpuUsage(before);
console.log(`planMove: ${((used.user + used.system) / CALLS).toFixed(2)} µs of CPU per call (${CALLS} calls)`);
