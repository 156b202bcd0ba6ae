// Move one investor: choose the target step, fill its fields, call jump-to-step. Required fields
// are marked but not enforced here (an earlier event may already hold them; the service judges),
// value kinds are checked before sending, and the service's refusals are shown in plain words.
import { useMemo, useState, type FormEvent } from 'react';
import { ApiError, api, describeError, refusalOf, type Card, type Refusal, type Step, type Workflow, type WorkflowEvent } from '../lib/api.ts';
import { fieldLabel } from '../lib/format.ts';
import { useLoad, useModal } from '../../../kit/hooks.ts';
import { FieldInput } from './FieldInput.tsx';
import { FormStatus } from './ui.tsx';
import { checkValue, describeRequirement, formatFieldValue } from '../lib/field-values.ts';
import { useMovePreview } from '../lib/move-preview.ts';
import './MoveDialog.css';

/** Steps reachable from `from` along the links (forward). */
function reachable(workflow: Workflow, from: string): Set<string> {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length) {
    const id = stack.pop()!;
    for (const link of workflow.steps.find((s) => s.id === id)?.nextStepLinks ?? []) {
      if (!seen.has(link.toStepId)) {
        seen.add(link.toStepId);
        stack.push(link.toStepId);
      }
    }
  }
  return seen;
}

interface Props {
  dealId: string;
  dealCurrency: string | null;
  workflow: Workflow;
  card: Pick<Card, 'investorUserId' | 'fullName' | 'stepId'>;
  initialTargetStepId: string | undefined;
  onClose: () => void;
  onMoved: (target: Step, event: WorkflowEvent) => void;
}

export function MoveDialog({ dealId, dealCurrency, workflow, card, initialTargetStepId, onClose, onMoved }: Props) {
  const dialog = useModal();
  const current = workflow.steps.find((s) => s.id === card.stepId);
  const targets = workflow.steps.filter((s) => s.id !== card.stepId);
  const [targetId, setTargetId] = useState(initialTargetStepId ?? current?.nextStepLinks[0]?.toStepId ?? targets[0]?.id ?? '');
  const [values, setValues] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<Refusal & { keys: string[] }>();
  const [busy, setBusy] = useState(false);
  // What counts as captured is the service's (what an undo reversed does not), never a fold of the events here.
  const [summary] = useLoad(() => api.investor(dealId, card.investorUserId), [dealId, card.investorUserId]);

  const target = workflow.steps.find((s) => s.id === targetId);
  const forward = useMemo(() => reachable(workflow, card.stepId), [workflow, card.stepId]);
  const direction = (step: Step) => (forward.has(step.id) ? 'forward' : reachable(workflow, step.id).has(card.stepId) ? 'back' : 'other branch');

  const captured: Record<string, string> = summary.status === 'ready' ? summary.value.captured : {};

  const problems = Object.fromEntries(
    (target?.stepFields ?? []).map((f) => [f.fieldKey, checkValue(f, values[f.fieldKey] ?? '')]).filter(([, p]) => p),
  ) as Record<string, string>;

  const data = Object.fromEntries((target?.stepFields ?? []).map((f) => [f.fieldKey, values[f.fieldKey] ?? '']).filter(([, v]) => v !== ''));
  const preview = useMovePreview(
    dealId,
    target && Object.keys(problems).length === 0
      ? { investorUserId: card.investorUserId, targetStepId: target.id, data, expectedCurrentStepId: card.stepId }
      : undefined,
  );
  const labelOf = (key: string) => {
    const field = workflow.steps.flatMap((s) => s.stepFields).find((f) => f.fieldKey === key);
    return field ? fieldLabel(field) : key;
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!target || Object.keys(problems).length > 0) return;
    setBusy(true);
    setRefusal(undefined);
    const data = Object.fromEntries(target.stepFields.map((f) => [f.fieldKey, values[f.fieldKey] ?? '']).filter(([, v]) => v !== ''));
    try {
      const moved = await api.jump(dealId, { investorUserId: card.investorUserId, targetStepId: target.id, data, expectedCurrentStepId: card.stepId });
      onMoved(target, moved);
    } catch (err) {
      const keys = err instanceof ApiError ? err.fieldKeys() : [];
      const labels = keys.map((k) => {
        const field = workflow.steps.flatMap((s) => s.stepFields).find((f) => f.fieldKey === k);
        return field ? fieldLabel(field) : k;
      });
      let message = describeError(err);
      let detail: string | undefined;
      const failed =
        err instanceof ApiError && Array.isArray(err.problem.failedRequirements) ? (err.problem.failedRequirements as { kind: string; detail: string }[]) : [];
      if (err instanceof ApiError && err.status === 422 && failed.length > 0 && labels.length === 0) {
        // The service states each unmet requirement with the investor's facts (e.g. "the investor's
        // KYC check level is 1; at least 2 is required"): show them as they are.
        message = `Not moved to ${target.label}: ${failed.map((f) => f.detail).join('; ')}.`;
        detail = err.message;
      } else if (err instanceof ApiError && err.status === 422) {
        const list = labels.length > 1 ? `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}` : labels[0];
        message = list
          ? `Not moved: ${list} ${labels.length > 1 ? 'are' : 'is'} still needed for ${target.label}. Fill ${labels.length > 1 ? 'them' : 'it'} in and try again.`
          : `Not moved: ${target.label} has requirements ${card.fullName} does not meet yet.`;
        detail = err.message;
      } else if (err instanceof ApiError && err.status === 409) {
        message = `Not moved: ${card.fullName} cannot go to ${target.label} from ${current?.label ?? 'where they stand'}.`;
        detail = err.message;
      } else if (err instanceof ApiError && err.status === 400) {
        message = `Not moved: some values were not accepted. ${err.message}`;
      }
      setRefusal({ ...refusalOf(err), message, detail, keys });
    } finally {
      setBusy(false);
    }
  }

  return (
    <dialog ref={dialog} className="dialog" aria-labelledby="move-title" onClose={onClose} onCancel={onClose}>
      <form onSubmit={submit} noValidate>
        <header className="dialog-head">
          <h2 id="move-title">Move {card.fullName}</h2>
          <p className="muted small">Now at {current?.label ?? 'no step'}</p>
        </header>
        <div className="dialog-body">
          <label className="field">
            <span className="field-label">Target step</span>
            <select
              name="targetStepId"
              value={targetId}
              onChange={(e) => {
                setTargetId(e.target.value);
                setRefusal(undefined);
              }}
            >
              {targets.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.label} ({direction(s)})
                </option>
              ))}
            </select>
          </label>
          {target && direction(target) === 'other branch' && (
            <p className="alert alert-warn">
              {target.label} is on another branch than {current?.label ?? 'the current step'}; the service will most likely refuse this move.
            </p>
          )}
          {target && target.stepFields.length === 0 && <p className="muted">{target.label} captures no fields.</p>}
          {target?.stepFields.map((field) => {
            const id = `move-field-${field.fieldKey}`;
            const value = values[field.fieldKey] ?? '';
            const invalid = !!problems[field.fieldKey] || !!refusal?.keys.includes(field.fieldKey);
            return (
              <div className="field" key={field.fieldKey}>
                <label className="field-label" htmlFor={id}>
                  {fieldLabel(field)}
                  {field.required && (
                    <span className="required" title="required">
                      {' '}
                      *
                    </span>
                  )}
                  {field.kind && field.kind !== 'text' && <span className="field-kind">{field.kind}</span>}
                </label>
                <FieldInput
                  id={id}
                  field={field}
                  value={value}
                  invalid={invalid}
                  dealCurrency={dealCurrency}
                  onChange={(v) => {
                    setValues((all) => ({ ...all, [field.fieldKey]: v }));
                    // An earlier refusal no longer describes what would be sent.
                    setRefusal(undefined);
                  }}
                />
                {problems[field.fieldKey] && <span className="field-error">{problems[field.fieldKey]}</span>}
                {!problems[field.fieldKey] && refusal?.keys.includes(field.fieldKey) && <span className="field-error">The service needs this field.</span>}
                {captured[field.fieldKey] !== undefined && value === '' && (
                  <span className="field-hint">Captured earlier: {formatFieldValue(field, captured[field.fieldKey]!)}</span>
                )}
              </div>
            );
          })}
          {target?.requirements && target.requirements.length > 0 && (
            <p className="muted small">Requirements to enter: {target.requirements.map(describeRequirement).join('; ')}.</p>
          )}
          <p className="muted small">
            <span className="required">*</span> required (unless captured by an earlier move)
          </p>
          {!refusal && preview.state !== 'idle' && (
            <p className={preview.state === 'ready' ? 'muted small' : 'alert alert-warn'} data-testid="move-preview" aria-live="polite">
              {preview.state === 'ready'
                ? 'Checked with the service: this move is allowed.'
                : preview.missingFields.length > 0 || preview.failedRequirements.length > 0
                  ? [
                      ...(preview.missingFields.length > 0 ? [`Still needed: ${preview.missingFields.map(labelOf).join(', ')}.`] : []),
                      ...(preview.failedRequirements.length > 0 ? [`Not met: ${preview.failedRequirements.join('; ')}.`] : []),
                    ].join(' ')
                  : `The service would refuse this move: ${preview.message}`}
            </p>
          )}
          <FormStatus error={refusal} testId="move-refusal" />
        </div>
        <footer className="dialog-foot">
          <button type="button" className="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy || !target}>
            {busy ? 'Moving…' : `Move to ${target?.label ?? '…'}`}
          </button>
        </footer>
      </form>
    </dialog>
  );
}
