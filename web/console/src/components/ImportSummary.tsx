// What an investor import did: counts by outcome, the rows placed in a deal, each refused row with
// the service's reason, and where to go next.
import type { ImportReport } from '../lib/api.ts';
import type { Row } from '../lib/investor-csv.ts';
import { rowErrors } from '../lib/investor-import.ts';
import { FormStatus } from './ui.tsx';

interface Props {
  report: ImportReport;
  /** Rows refused before sending (the file's own problems). */
  invalid: Row[];
  /** Rows sent, in the order of the report's row numbers. */
  valid: Row[];
  placed: { moved: number; refused: { id: string; message: string }[] } | undefined;
  dealId: string;
  onAnother: () => void;
}

export function ImportSummary({ report, invalid, valid, placed, dealId, onAnother }: Props) {
  const refusedRows = report.rows.filter((r) => r.outcome === 'refused');
  return (
    <div className="import-summary" data-testid="import-summary">
      <h2>Imported</h2>
      <p role="status">
        {report.summary.created} created, {report.summary.updated} updated, {report.summary.unchanged} unchanged, {report.summary.refused + invalid.length}{' '}
        refused.
      </p>
      {report.error && <FormStatus error={`The import stopped after row ${report.summary.rows}: ${report.error.detail}`} />}
      {placed && (
        <p role="status">
          {placed.moved} placed in the deal{placed.refused.length > 0 ? `, ${placed.refused.length} not placed` : ''}.
        </p>
      )}
      {placed?.refused.length ? (
        <ul className="results">
          {placed.refused.map((r) => (
            <li key={r.id} className="result-refused">
              {r.id}: {r.message}
            </li>
          ))}
        </ul>
      ) : null}
      {(refusedRows.length > 0 || invalid.length > 0) && (
        <ul className="results">
          {invalid.map((r) => (
            <li key={`i${r.line}`} className="result-refused">
              Line {r.line}: {r.problems.join('; ')}
            </li>
          ))}
          {refusedRows.map((r) => (
            <li key={r.row} className="result-refused">
              Line {valid[r.row - 1]?.line ?? '?'} ({r.id ?? 'no id'}): {rowErrors(r)}
            </li>
          ))}
        </ul>
      )}
      <div className="row-actions">
        {dealId ? (
          <a className="button button-primary" href={`#/deals/${encodeURIComponent(dealId)}`}>
            Open the deal's board
          </a>
        ) : (
          <a className="button button-primary" href="#/investors">
            Open the directory
          </a>
        )}
        <button type="button" className="button" onClick={onAnother}>
          Import another file
        </button>
      </div>
    </div>
  );
}
