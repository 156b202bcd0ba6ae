// Options of the console's selects: the deals, once they have loaded (the imports' and the payments
// page's deal pickers), and a workflow's steps (the bulk move's target, the table's step filter).
import type { Loadable } from '../../../kit/hooks.ts';

export function DealOptions({ deals }: { deals: Loadable<readonly { id: string; name: string }[]> }) {
  if (deals.status !== 'ready') return null;
  return deals.value.map((d) => (
    <option key={d.id} value={d.id}>
      {d.name}
    </option>
  ));
}

export function StepOptions({ steps }: { steps: readonly { id: string; label: string }[] }) {
  return steps.map((s) => (
    <option key={s.id} value={s.id}>
      {s.label}
    </option>
  ));
}
