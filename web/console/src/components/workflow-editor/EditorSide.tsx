// The workflow editor's side panel: the preview graph, the service's verdict, what saving changes
// for investors already on the deal, and the save (with a confirmation when it changes something).
import type { ReactNode } from 'react';
import type { WorkflowCheck } from '../../lib/api.ts';
import { previewSteps, type Doc } from '../../lib/workflow-doc.ts';
import { FormStatus } from '../ui.tsx';
import { WorkflowGraph } from '../WorkflowGraph.tsx';
import './EditorSide.css';

interface Props {
  doc: Doc;
  check: WorkflowCheck | undefined;
  checking: boolean;
  existing: boolean;
  confirming: boolean;
  flagged: Set<string>;
  busy: boolean;
  error: unknown;
  done: ReactNode;
  save: () => void;
  setConfirming: (confirming: boolean) => void;
  dirty: boolean;
  /** Investors on an earlier version, and the way to move them onto this one. */
  migration: ReactNode;
}

export function EditorSide({ doc, check, checking, existing, confirming, flagged, busy, error, done, save, setConfirming, dirty, migration }: Props) {
  const investors = check?.investors ?? 0;
  const preview = previewSteps(doc);
  return (
    <aside className="editor-side" aria-label="Preview and checks">
      <h2>Preview</h2>
      {doc.steps.length > 0 ? (
        <WorkflowGraph steps={preview} label="Preview of the workflow" flagged={flagged} height={720} direction="TB" />
      ) : (
        <p className="muted">Add a step to see the graph.</p>
      )}
      <div className="check-state" role="status" aria-live="polite">
        {checking
          ? 'Checking…'
          : check
            ? check.valid
              ? 'No problems found.'
              : `${check.problems.length} problem${check.problems.length === 1 ? '' : 's'} to fix before saving.`
            : '\u00a0'}
      </div>
      {existing && check && check.changes.length > 0 && investors > 0 && (
        <div className="changes-panel">
          <h3>What saving changes for investors on it</h3>
          <ul>
            {check.changes.map((c, i) => (
              <li key={i} className={c.blocking ? 'change-blocking' : undefined}>
                {c.detail}
              </li>
            ))}
          </ul>
        </div>
      )}
      {confirming && (
        <p className="alert alert-warn" role="alert">
          Saving makes a new version of the workflow: investors who join from now on follow it. The {investors === 1 ? 'investor' : `${investors} investors`}{' '}
          already on this deal stay on the version they started until you move them onto this one (offered after saving, with a dry run first). Save?
        </p>
      )}
      <FormStatus error={error} done={done} />
      {dirty && !busy && <p className="muted small">Unsaved changes.</p>}
      <div className="row-actions">
        <button
          type="button"
          className="button button-primary"
          onClick={save}
          disabled={busy || doc.steps.length === 0 || (check !== undefined && !check.valid)}
        >
          {busy ? 'Saving…' : confirming ? 'Confirm and save' : 'Save workflow'}
        </button>
        {confirming && (
          <button type="button" className="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        )}
      </div>
      {migration}
    </aside>
  );
}
