// What a CRM import did: the investor import's counts and refused rows, then the placement in a
// step (while it runs, its progress; then how many were placed and, grouped by reason, why the
// others were not), and where to go next.
import type { Placement, Report } from '../lib/crm-import.ts';
import { refusalsOf } from '../lib/crm-import.ts';
import { plural } from '../lib/format.ts';
import { rowErrors } from '../lib/investor-import.ts';
import { FormStatus } from './ui.tsx';
import './CrmImportSummary.css';

/** The placement as it stands: being sent (rows handled so far), done (the move import's report), or failed. */
export type Placed = { placement: Placement; handled?: number; moves?: Report; failed?: string };

interface Props {
  report: Report;
  placed: Placed | undefined;
  dealId: string;
  stepLabel: string;
  /** The name a row of the file gives (for the investors not placed). */
  nameOfRow: (row: number) => string;
  onAnother: () => void;
}

const n = (count: number) => count.toLocaleString('en-GB');

/** Names of the first few investors, and how many more. */
function names(ids: string[], nameOf: (id: string) => string) {
  const shown = ids.slice(0, 3).map(nameOf).join(', ');
  return ids.length > 3 ? `${shown} and ${plural(ids.length - 3, 'more', 'more')}` : shown;
}

function PlacementSummary({ placed, stepLabel, nameOfRow }: { placed: Placed; stepLabel: string; nameOfRow: (row: number) => string }) {
  const { placement, moves } = placed;
  const investors = placement.rowOf.size;
  const nameOf = (id: string) => {
    const row = placement.rowOf.get(id);
    return (row !== undefined && nameOfRow(row)) || id;
  };
  if (!moves && !placed.failed && investors > 0) {
    return (
      <div className="progress" role="status" data-testid="placement-progress">
        {placed.handled === undefined ? <progress aria-label="Placing" /> : <progress max={investors} value={placed.handled} aria-label="Placing" />} Placing{' '}
        {plural(investors, 'investor')} in {stepLabel}
        {placed.handled === undefined ? '…' : `: ${n(placed.handled)} handled`}
      </div>
    );
  }
  const done = moves ? moves.summary.created + moves.summary.unchanged : 0;
  const refusals = moves ? refusalsOf(moves) : [];
  const unlisted = moves ? moves.summary.refused - moves.rows.filter((r) => r.outcome === 'refused').length : 0;
  const unreached = moves?.error ? investors - moves.summary.rows : 0;
  const notPlaced = (moves?.summary.refused ?? 0) + unreached + placement.skipped.reduce((n, s) => n + s.rows, 0);
  return (
    <section className="placement-summary" data-testid="placement-summary" aria-label="Placement">
      <p role="status">
        {n(done)} placed in {stepLabel}
        {notPlaced > 0 ? `, ${n(notPlaced)} not placed` : ''}.
      </p>
      {placed.failed && <FormStatus error={`Placing them in the deal failed: ${placed.failed}`} />}
      {moves?.error && <FormStatus error={`The placement stopped after ${plural(moves.summary.rows, 'investor')}: ${moves.error.detail}`} />}
      <ul className="results placement-reasons">
        {placement.merged > 0 && <li>{plural(placement.merged, 'row')} merged with an earlier line of the same e-mail: placed once, with the later line's values.</li>}
        {placement.skipped.map((s) => (
          <li key={s.reason} className="result-refused">
            {plural(s.rows, 'row')} not placed: {s.reason}.
          </li>
        ))}
        {refusals.map((g) => (
          <li key={g.reason} className="result-refused">
            {plural(g.ids.length, 'investor')} not placed ({names(g.ids, nameOf)}): {g.reason}
          </li>
        ))}
        {unlisted > 0 && <li className="result-refused">{plural(unlisted, 'more investor')} not placed, not listed: the move job names the first 1,000 refused.</li>}
        {unreached > 0 && <li className="result-refused">{plural(unreached, 'investor')} not reached by the placement, which stopped.</li>}
      </ul>
    </section>
  );
}

export function CrmImportSummary({ report, placed, dealId, stepLabel, nameOfRow, onAnother }: Props) {
  const refused = report.rows.filter((r) => r.outcome === 'refused');
  return (
    <div className="import-summary" data-testid="import-summary">
      <h2>Imported</h2>
      <p role="status">
        {n(report.summary.created)} created, {n(report.summary.updated)} updated, {n(report.summary.unchanged)} unchanged, {n(report.summary.refused)} refused.
      </p>
      {report.error && <FormStatus error={`The import stopped after row ${report.summary.rows}: ${report.error.detail}`} />}
      {refused.length > 0 && (
        <ul className="results">
          {refused.map((r) => (
            <li key={`i${r.row}`} className="result-refused">
              Line {r.row + 1}: {rowErrors(r)}
            </li>
          ))}
        </ul>
      )}
      {placed && <PlacementSummary placed={placed} stepLabel={stepLabel} nameOfRow={nameOfRow} />}
      <div className="row-actions">
        <a className="button button-primary" href={dealId ? `#/deals/${encodeURIComponent(dealId)}` : '#/investors'}>
          {dealId ? "Open the deal's board" : 'Open the directory'}
        </a>
        <button type="button" className="button" onClick={onAnother}>
          Import another file
        </button>
      </div>
    </div>
  );
}
