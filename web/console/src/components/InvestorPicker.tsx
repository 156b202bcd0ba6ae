// Choosing the investor a bank line goes to, by name: the line's proposals first (each with the
// reasons), and a search by name, e-mail or company (GET /payments/lines/{lineId}/candidates).
// Radio buttons in a fieldset: one choice, readable by every screen reader, no id to type.
import { useEffect, useState } from 'react';
import { consoleApi, describeError, type PaymentProposal } from '../lib/api.ts';
import { useDebounced } from '../../../kit/hooks.ts';
import { proposalLabel } from '../lib/payment-lines.ts';
import './InvestorPicker.css';

export type Chosen = Pick<PaymentProposal, 'dealId' | 'investorUserId' | 'fullName' | 'dealName'>;

interface Props {
  lineId: string;
  legend: string;
  proposals: readonly PaymentProposal[];
  value: Chosen | undefined;
  onChange: (chosen: Chosen) => void;
  /** Distinguishes the radio groups of several pickers in one form. */
  name: string;
}

const keyOf = (c: Pick<Chosen, 'dealId' | 'investorUserId'>) => `${c.dealId}\u0000${c.investorUserId}`;

export function InvestorPicker({ lineId, legend, proposals, value, onChange, name }: Props) {
  const [query, setQuery] = useState('');
  const settled = useDebounced(query.trim(), 250);
  const [found, setFound] = useState<{ query: string; output: PaymentProposal[] } | { query: string; error: string }>();
  useEffect(() => {
    if (!settled) return setFound(undefined);
    let stale = false;
    consoleApi.lineCandidates(lineId, settled).then(
      (r) => !stale && setFound({ query: settled, output: r.output }),
      (e) => !stale && setFound({ query: settled, error: describeError(e) }),
    );
    return () => {
      stale = true;
    };
  }, [lineId, settled]);

  const option = (p: PaymentProposal, withReasons: boolean) => (
    <li key={keyOf(p)}>
      <label className="radio picker-option">
        <input type="radio" name={name} checked={value !== undefined && keyOf(value) === keyOf(p)} onChange={() => onChange(p)} />
        <span>
          <strong>{p.fullName}</strong>
          <span className="muted small"> {proposalLabel(p).slice(p.fullName.length)}</span>
          {withReasons && p.reasons.length > 0 && <span className="picker-reasons small">{p.reasons.map((r) => r.detail).join('; ')}</span>}
        </span>
      </label>
    </li>
  );
  // While a search is typed its results replace the proposals (one list of choices at a time).
  const searching = query.trim() !== '';
  const results = found && 'output' in found && found.query === settled ? found.output : [];
  const listed = searching ? results : proposals;
  return (
    <fieldset className="sub picker">
      <legend>{legend}</legend>
      {searching ? null : proposals.length > 0 ? (
        <>
          <p className="small picker-head">Likely investors</p>
          <ul className="picker-list">{proposals.map((p) => option(p, true))}</ul>
        </>
      ) : (
        <p className="muted small">No investor stands out for this line: search below.</p>
      )}
      <label className="field">
        <span className="field-label">Find an investor by name, e-mail or company</span>
        <input type="search" name={`${name}-search`} autoComplete="off" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="e.g. Hopper" />
      </label>
      <div aria-live="polite" className="small">
        {found && 'error' in found && <p className="field-error">{found.error}</p>}
        {searching && found && 'output' in found && found.query === settled && found.output.length === 0 && (
          <p className="muted">No investor matches “{found.query}”.</p>
        )}
      </div>
      {searching && results.length > 0 && (
        <ul className="picker-list" aria-label={`Investors matching ${settled}`}>
          {results.map((p) => option(p, true))}
        </ul>
      )}
      {value && !listed.some((p) => keyOf(p) === keyOf(value)) && (
        <p className="small">
          Chosen: <strong>{value.fullName}</strong>, {value.dealName}
        </p>
      )}
    </fieldset>
  );
}
