// Move the selected investors to one step with the same field values. Each investor gets its own
// result (moved, or refused with the service's reason), shown in a summary; progress is shown
// while moves run one by one.
import { useState, type FormEvent } from 'react';
import type { Card, Workflow } from '../lib/api.ts';
import { moveMany, type MoveResult } from '../lib/bulk.ts';
import { fieldLabel, plural } from '../lib/format.ts';
import { useModal, useSubmission } from '../lib/hooks.ts';
import { FieldInput } from './FieldInput.tsx';
import { checkValue } from '../lib/field-values.ts';
import { FormStatus } from './ui.tsx';
import './BulkMoveDialog.css';

interface Props {
  dealId: string;
  dealCurrency: string | null;
  workflow: Workflow;
  cards: Pick<Card, 'investorUserId' | 'fullName' | 'stepId'>[];
  onClose: (moved: boolean) => void;
}

export function BulkMoveDialog({ dealId, dealCurrency, workflow, cards, onClose }: Props) {
  const dialog = useModal();
  const [targetId, setTargetId] = useState(workflow.steps[0]?.id ?? '');
  const [values, setValues] = useState<Record<string, string>>({});
  const [progress, setProgress] = useState<number>();
  const [results, setResults] = useState<MoveResult[]>();
  const { error, run } = useSubmission();
  const target = workflow.steps.find((s) => s.id === targetId);

  const problems = Object.fromEntries((target?.stepFields ?? []).map((f) => [f.fieldKey, checkValue(f, values[f.fieldKey] ?? '')]).filter(([, p]) => p)) as Record<string, string>;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!target || Object.keys(problems).length > 0) return;
    const data = Object.fromEntries(target.stepFields.map((f) => [f.fieldKey, values[f.fieldKey] ?? '']).filter(([, v]) => v !== ''));
    setProgress(0);
    await run(async () => {
      const moves = cards.map((c) => ({ investorUserId: c.investorUserId, targetStepId: target.id, data, expectedCurrentStepId: c.stepId }));
      setResults(await moveMany(dealId, moves, setProgress));
    });
    setProgress(undefined);
  }

  const name = (id: string) => cards.find((c) => c.investorUserId === id)?.fullName ?? id;
  const moved = results?.filter((r) => r.ok).length ?? 0;
  const close = () => onClose(moved > 0);

  return (
    <dialog ref={dialog} className="dialog" aria-labelledby="bulk-title" onCancel={close} onClose={close}>
      {results ? (
        <div>
          <header className="dialog-head">
            <h2 id="bulk-title">
              Moved {moved} of {plural(cards.length, 'investor')}
            </h2>
          </header>
          <div className="dialog-body">
            <ul className="results" aria-label="Result per investor" data-testid="bulk-results">
              {results.map((r) => (
                <li key={r.investorUserId} className={r.ok ? 'result-ok' : 'result-refused'}>
                  <strong>{name(r.investorUserId)}</strong>: {r.ok ? `moved to ${target?.label}` : `not moved. ${r.message}`}
                </li>
              ))}
            </ul>
          </div>
          <footer className="dialog-foot">
            <button type="button" className="button button-primary" onClick={() => dialog.current?.close()}>
              Done
            </button>
          </footer>
        </div>
      ) : (
        <form onSubmit={submit} noValidate>
          <header className="dialog-head">
            <h2 id="bulk-title">Move {plural(cards.length, 'investor')}</h2>
            <p className="muted small">Each investor is moved on their own: a refusal for one leaves the others unaffected.</p>
          </header>
          <div className="dialog-body">
            <label className="field">
              <span className="field-label">Target step</span>
              <select name="targetStepId" value={targetId} onChange={(e) => setTargetId(e.target.value)}>
                {workflow.steps.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.label}
                  </option>
                ))}
              </select>
            </label>
            {target?.stepFields.map((field) => {
              const id = `bulk-field-${field.fieldKey}`;
              return (
                <div className="field" key={field.fieldKey}>
                  <label className="field-label" htmlFor={id}>
                    {fieldLabel(field)}
                    {field.required && <span className="required"> *</span>}
                  </label>
                  <FieldInput
                    id={id}
                    field={field}
                    value={values[field.fieldKey] ?? ''}
                    invalid={!!problems[field.fieldKey]}
                    dealCurrency={dealCurrency}
                    onChange={(v) => setValues((all) => ({ ...all, [field.fieldKey]: v }))}
                  />
                  {problems[field.fieldKey] && <span className="field-error">{problems[field.fieldKey]}</span>}
                </div>
              );
            })}
            <p className="muted small">The same values are sent for every investor; leave a field empty to keep what each has captured.</p>
            {progress !== undefined && (
              <div className="progress" role="status">
                <progress max={cards.length} value={progress} aria-label="Moves done" /> {progress} of {cards.length}
              </div>
            )}
            <FormStatus error={error} />
          </div>
          <footer className="dialog-foot">
            <button type="button" className="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" className="button button-primary" disabled={progress !== undefined || !target}>
              Move {plural(cards.length, 'investor')} to {target?.label ?? '…'}
            </button>
          </footer>
        </form>
      )}
    </dialog>
  );
}
