// A step's form id and its webhook triggers.
import { list, triggerEvents, type DocStep } from '../../lib/workflow-doc.ts';

export function TriggersEditor({
  step,
  triggers,
  onChange,
}: {
  step: DocStep;
  triggers: NonNullable<DocStep['triggers']>;
  onChange: (patch: Partial<DocStep>) => void;
}) {
  return (
    <fieldset className="sub">
      <legend>Form and triggers</legend>
      <label className="field">
        <span className="field-label">Form id (investors fill this form at the step)</span>
        <input value={step.formId ?? ''} onChange={(e) => onChange({ formId: e.target.value.trim() || null })} />
      </label>
      {triggers.map((t, j) => (
        <div className="field-row" key={j}>
          <label className="field grow">
            <span className="field-label">Webhook URL</span>
            <input
              type="url"
              value={t.url}
              onChange={(e) => onChange({ triggers: triggers.map((x, k) => (k === j ? { ...x, url: e.target.value.trim() } : x)) })}
            />
          </label>
          <label className="field">
            <span className="field-label">Events (comma-separated; empty: step entered)</span>
            <input
              value={(t.events ?? []).join(', ')}
              onChange={(e) => {
                const events = triggerEvents(list(e.target.value));
                onChange({ triggers: triggers.map((x, k) => (k === j ? { kind: 'webhook' as const, url: x.url, ...(events.length ? { events } : {}) } : x)) });
              }}
            />
          </label>
          <button type="button" className="link-button" onClick={() => onChange({ triggers: triggers.filter((_, k) => k !== j) })}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" className="button button-small" onClick={() => onChange({ triggers: [...triggers, { kind: 'webhook', url: '' }] })}>
        Add webhook trigger
      </button>
    </fieldset>
  );
}
