// What the bulk move says before it is sent and after: the steps the move passes over (whose
// requirements are not checked), the values still missing, and the service's dry run: how many
// would move and why the others would not; then the result for each investor.
import type { Workflow } from '../lib/api.ts';
import type { Preview } from '../lib/bulk-move-form.ts';
import type { MoveResult } from '../lib/bulk.ts';
import { describeRequirement } from '../lib/field-values.ts';
import { plural } from '../lib/format.ts';

interface Props {
  skipped: Workflow['steps'];
  problems: string[];
  preview: Preview;
  count: number;
  targetLabel: string | undefined;
  missing: boolean;
}

export function BulkCheck({ skipped, problems, preview, count, targetLabel, missing }: Props) {
  return (
    <div className="bulk-check" role="status" aria-live="polite" data-testid="bulk-check">
      {skipped.length > 0 && (
        <p className="bulk-skips" data-testid="bulk-skips">
          This move skips {skipped.map((s) => s.label).join(', ')}
          {skipped.some((s) => s.requirements.length > 0)
            ? `: ${skipped
                .filter((s) => s.requirements.length > 0)
                .map((s) => `${s.label}’s requirements (${s.requirements.map(describeRequirement).join(', ')})`)
                .join('; ')} are not checked, and its fields are not asked.`
            : ': its fields are not asked.'}
        </p>
      )}
      {problems.length > 0 ? (
        <ul className="field-error">
          {problems.slice(0, 5).map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : preview.state === 'checking' ? (
        <span className="muted">Checking {plural(count, 'move')}…</span>
      ) : preview.state === 'ready' ? (
        <>
          <strong>
            {preview.ok} of {plural(count, 'investor')} will move to {targetLabel}
          </strong>
          {preview.reasons.length > 0 && (
            <ul className="bulk-reasons">
              {preview.reasons.map((r) => (
                <li key={r.reason} className={r.missing ? 'field-error' : ''}>
                  {plural(r.names.length, 'investor')} won’t: {r.reason} ({r.names.slice(0, 4).join(', ')}
                  {r.names.length > 4 ? ` and ${r.names.length - 4} more` : ''})
                </li>
              ))}
            </ul>
          )}
          {missing && <p className="field-error">Give the required values (per investor if they differ) before moving.</p>}
        </>
      ) : null}
    </div>
  );
}

/** The outcome of each investor's move, and the way to undo. */
export function BulkMoveResults(props: {
  results: MoveResult[];
  count: number;
  targetLabel: string | undefined;
  nameOf: (investorUserId: string) => string;
  explain: (message: string) => string;
  onDone: () => void;
}) {
  const { results, count, targetLabel, nameOf, explain, onDone } = props;
  const moved = results.filter((r) => r.ok).length;
  return (
    <div>
      <header className="dialog-head">
        <h2 id="bulk-title">
          Moved {moved} of {plural(count, 'investor')}
        </h2>
      </header>
      <div className="dialog-body">
        <ul className="results" aria-label="Result per investor" data-testid="bulk-results">
          {results.map((r) => (
            <li key={r.investorUserId} className={r.ok ? 'result-ok' : 'result-refused'}>
              <strong>{nameOf(r.investorUserId)}</strong>: {r.ok ? `moved to ${targetLabel}` : `not moved. ${explain(r.message)}`}
            </li>
          ))}
        </ul>
        {moved > 0 && <p className="muted small">Undo it from the deal’s Activity page while nothing else has moved these investors (24 hours).</p>}
      </div>
      <footer className="dialog-foot">
        <button type="button" className="button button-primary" onClick={onDone}>
          Done
        </button>
      </footer>
    </div>
  );
}
