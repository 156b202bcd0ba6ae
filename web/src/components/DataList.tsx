// Captured data as a definition list: known fields in the workflow's order, then the rest.
import { fieldLabel, formatAmount, minorUnits } from '../lib/format.ts';
import './DataList.css';

export function DataList({ data, order = [] }: { data: Record<string, unknown>; order?: string[] }) {
  // jsonb does not keep key order: show the step's fields in the workflow's order, others after.
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  const entries = Object.entries(data).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
  const currency = Object.values(data).find((v): v is string => typeof v === 'string' && /^[A-Z]{3}$/.test(v));
  if (entries.length === 0) return <p className="muted small">No data captured.</p>;
  return (
    <dl className="data-list">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{fieldLabel({ fieldKey: key })}</dt>
          <dd>{typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) && key.includes('amount') ? formatAmount(value, minorUnits(currency)) : String(value)}</dd>
        </div>
      ))}
    </dl>
  );
}
