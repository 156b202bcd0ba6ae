// What a CRM import did, in the words of its preview: the counts (created, updated, unchanged,
// refused, placed in the step), each refused row with its name and why, with the value at fault
// (a row whose placement was refused was not created either), and where to go next.
import { countsOf, type Report, refusalOf } from '../lib/crm-import.ts';
import { plural } from '../lib/format.ts';
import { FormStatus } from './ui.tsx';
import './CrmImportSummary.css';

interface Props {
  report: Report;
  dealId: string;
  /** The step the rows were placed in; undefined for the directory only. */
  stepLabel: string | undefined;
  /** The name a row of the file gives. */
  nameOfRow: (row: number) => string;
  onAnother: () => void;
}

export function CrmImportSummary({ report, dealId, stepLabel, nameOfRow, onAnother }: Props) {
  const refused = report.rows.filter((r) => r.outcome === 'refused');
  const unlisted = report.summary.refused - refused.length;
  return (
    <div className="import-summary" data-testid="import-summary">
      <h2>Imported</h2>
      <p role="status">{countsOf(report, stepLabel, false)}.</p>
      {report.error && <FormStatus error={`The import stopped after row ${report.summary.rows}: ${report.error.detail}`} />}
      {(report.summary.duplicates ?? 0) > 0 && (
        <p className="muted">
          {plural(report.summary.duplicates ?? 0, 'row')} shared an e-mail with another row: one investor each, as chosen before the import.
        </p>
      )}
      {refused.length > 0 && (
        <section className="refused-rows" aria-label="Rows not imported">
          <h3>Not imported</h3>
          <p className="muted small">
            Nothing of these rows was written: neither the investor nor the placement. Mend them and import the file again; the rows already imported stay
            unchanged.
          </p>
          <ul className="results">
            {refused.map((r) => (
              <li key={`i${r.row}`} className="result-refused">
                Line {r.row + 1}
                {nameOfRow(r.row) ? ` (${nameOfRow(r.row)})` : ''}: {refusalOf(r)}
              </li>
            ))}
            {unlisted > 0 && <li className="result-refused">{plural(unlisted, 'more row')} refused, not listed: an import job names the first 1,000.</li>}
          </ul>
        </section>
      )}
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
