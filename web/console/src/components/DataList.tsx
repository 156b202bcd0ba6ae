// Captured data as a definition list: known fields in the workflow's order, then the rest.
import type { StepField } from '../lib/api.ts';
import { formatFieldValue } from '../lib/field-values.ts';
import { fieldLabel, formatAmount, minorUnits } from '../lib/format.ts';
import './DataList.css';

/** `fields` (first of a key wins) gives a value its kind: a number reads grouped, never as money. */
export function DataList({ data, order = [], fields = [] }: { data: Record<string, unknown>; order?: string[]; fields?: StepField[] }) {
  // jsonb does not keep key order: show the step's fields in the workflow's order, others after.
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  const entries = Object.entries(data).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
  const currency = Object.values(data).find((v): v is string => typeof v === 'string' && /^[A-Z]{3}$/.test(v));
  const fieldOf = (key: string) => fields.find((f) => f.fieldKey === key);
  const show = (key: string, value: unknown) => {
    const field = fieldOf(key);
    if (typeof value === 'string' && field?.kind === 'number') return formatFieldValue(field, value);
    return typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) && key.includes('amount') ? formatAmount(value, minorUnits(currency)) : String(value);
  };
  if (entries.length === 0) return <p className="muted small">No data captured.</p>;
  return (
    <dl className="data-list">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{fieldLabel({ fieldKey: key })}</dt>
          <dd>{show(key, value)}</dd>
        </div>
      ))}
    </dl>
  );
}
