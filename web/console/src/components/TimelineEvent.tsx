// An event in the drawer's timeline: its data, an editor for it (with a reason), and its revision history.
import { useState, type FormEvent } from 'react';
import { api, type StepField, type Workflow, type WorkflowEvent } from '../lib/api.ts';
import { fieldLabel } from '../lib/format.ts';
import { useLoad, useSubmission } from '../../../kit/hooks.ts';
import { FieldInput } from './FieldInput.tsx';
import { checkValue } from '../lib/field-values.ts';
import { Person } from './Person.tsx';
import { ErrorState, FormStatus, Spinner, When } from './ui.tsx';
import { DataList } from './DataList.tsx';
import './TimelineEvent.css';

export function TimelineEvent({
  event,
  latest,
  undone = false,
  workflow,
  stepLabel,
  onEdited,
}: {
  event: WorkflowEvent;
  latest: boolean;
  /** An undo reversed this move: its data no longer counts as captured. */
  undone?: boolean;
  workflow: Workflow;
  stepLabel: (id: string | null) => string;
  onEdited: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [showHistory, setShowHistory] = useState(false);
  // The fields the data may hold: the event's target step first, so a key several steps use reads by its kind there.
  const fields = [...(workflow.steps.find((s) => s.id === event.toStepId)?.stepFields ?? []), ...workflow.steps.flatMap((s) => s.stepFields)];
  return (
    <li className={`timeline-item${latest ? ' latest' : ''}${undone ? ' undone' : ''}`} data-event-id={event.id}>
      <div className="timeline-head">
        <strong>
          {stepLabel(event.fromStepId)} → {stepLabel(event.toStepId)}
        </strong>
        {undone && (
          <span className="badge badge-amber" title="An undo moved the investor back: what this move captured no longer counts">
            undone
          </span>
        )}
        <span className="muted small">
          <When iso={event.createdAt} /> · by <Person id={event.createdByUserId} />
        </span>
      </div>
      {editing ? (
        <EventEditor event={event} workflow={workflow} onCancel={() => setEditing(false)} onSaved={() => (setEditing(false), onEdited())} />
      ) : (
        <DataList data={event.data} order={workflow.steps.flatMap((s) => s.stepFields.map((f) => f.fieldKey))} fields={fields} />
      )}
      {!editing && (
        <div className="timeline-actions">
          <button type="button" className="link-button" onClick={() => setEditing(true)}>
            Edit data
          </button>
          <button type="button" className="link-button" aria-expanded={showHistory} onClick={() => setShowHistory((s) => !s)}>
            {showHistory ? 'Hide history' : 'History'}
          </button>
        </div>
      )}
      {showHistory && <RevisionHistory eventId={event.id} fields={fields} />}
    </li>
  );
}

function EventEditor({ event, workflow, onCancel, onSaved }: { event: WorkflowEvent; workflow: Workflow; onCancel: () => void; onSaved: () => void }) {
  const step = workflow.steps.find((s) => s.id === event.toStepId);
  const fields = [
    ...(step?.stepFields ?? []),
    ...Object.keys(event.data)
      .filter((k) => !step?.stepFields.some((f) => f.fieldKey === k))
      .map((fieldKey) => ({ fieldKey, required: false, kind: 'text' as const, label: null, options: null })),
  ];
  const [values, setValues] = useState<Record<string, string>>({ ...event.data });
  const [reason, setReason] = useState('');
  const { busy, error, run, refuse } = useSubmission();
  const problems = fields.map((f) => [f.fieldKey, checkValue(f, values[f.fieldKey] ?? '')] as const).filter(([, p]) => p);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (problems.length) return;
    if (!reason.trim()) return refuse('Say why the data changes: the reason is kept with the new version.');
    await run(async () => {
      await api.editEvent(event.id, Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '')), reason.trim());
      onSaved();
    });
  }

  return (
    <form className="event-editor" onSubmit={save} noValidate>
      {fields.map((field) => (
        <div className="field" key={field.fieldKey}>
          <label className="field-label" htmlFor={`edit-${event.id}-${field.fieldKey}`}>
            {fieldLabel(field)}
            {field.required && <span className="required"> *</span>}
          </label>
          <FieldInput
            id={`edit-${event.id}-${field.fieldKey}`}
            field={field}
            value={values[field.fieldKey] ?? ''}
            invalid={problems.some(([k]) => k === field.fieldKey)}
            dealCurrency={null}
            onChange={(v) => setValues((all) => ({ ...all, [field.fieldKey]: v }))}
          />
          {problems.find(([k]) => k === field.fieldKey)?.[1] && <span className="field-error">{problems.find(([k]) => k === field.fieldKey)?.[1]}</span>}
        </div>
      ))}
      <div className="field">
        <label className="field-label" htmlFor={`edit-${event.id}-reason`}>
          Reason for the change<span className="required"> *</span>
        </label>
        <input id={`edit-${event.id}-reason`} type="text" value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
      </div>
      <FormStatus error={error} />
      <div className="row-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

function RevisionHistory({ eventId, fields }: { eventId: string; fields: StepField[] }) {
  const [revisions, reload] = useLoad(() => api.revisions(eventId), [eventId]);
  if (revisions.status === 'loading') return <Spinner label="Loading history…" />;
  if (revisions.status === 'error') return <ErrorState compact error={revisions.error} retry={reload} />;
  return (
    <ol className="revisions" aria-label="Versions, oldest first">
      {revisions.value.map((revision, index) => {
        const who = revision.setByUserId;
        const when = revision.setAt;
        return (
          <li key={index}>
            <div className="muted small">
              Version {revision.revision ?? index + 1}
              {index === revisions.value.length - 1 ? ' (current)' : ''}
              {typeof when === 'string' && (
                <>
                  {' · '}
                  <When iso={when} />
                </>
              )}
              {typeof who === 'string' && (
                <>
                  {' · by '}
                  <Person id={who} />
                </>
              )}
            </div>
            {revision.reason && <div className="small">“{revision.reason}”</div>}
            <DataList data={revision.data} fields={fields} />
          </li>
        );
      })}
    </ol>
  );
}
