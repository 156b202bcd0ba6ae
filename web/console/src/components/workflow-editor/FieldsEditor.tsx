// A step's fields in the workflow editor: key, label, kind (with a choice's options), required.
import { fieldKindLabels, fieldKinds, oneOf } from '../../lib/api.ts';
import { list, type DocStep } from '../../lib/workflow-doc.ts';

export function FieldsEditor({ fields, onChange }: { fields: DocStep['stepFields']; onChange: (patch: Partial<DocStep>) => void }) {
  return (
    <fieldset className="sub">
      <legend>Fields</legend>
      {fields.length === 0 && <p className="muted small">This step captures no data.</p>}
      {fields.map((f, j) => (
        <div className="field-row" key={j}>
          <label className="field">
            <span className="field-label">Key</span>
            <input
              value={f.fieldKey}
              onChange={(e) => onChange({ stepFields: fields.map((x, k) => (k === j ? { ...x, fieldKey: e.target.value.trim() } : x)) })}
            />
          </label>
          <label className="field">
            <span className="field-label">Label</span>
            <input
              value={f.label ?? ''}
              onChange={(e) => onChange({ stepFields: fields.map((x, k) => (k === j ? { ...x, label: e.target.value || null } : x)) })}
            />
          </label>
          <label className="field">
            <span className="field-label">Kind</span>
            <select
              value={f.kind ?? 'text'}
              onChange={(e) =>
                onChange({
                  stepFields: fields.map((x, k) =>
                    k === j ? { ...x, kind: oneOf(fieldKinds, e.target.value), options: e.target.value === 'choice' ? (x.options ?? []) : null } : x,
                  ),
                })
              }
            >
              {fieldKinds.map((kind) => (
                <option key={kind} value={kind}>
                  {fieldKindLabels[kind]}
                </option>
              ))}
            </select>
          </label>
          {f.kind === 'choice' && (
            <label className="field">
              <span className="field-label">Options (comma-separated)</span>
              <input
                value={(f.options ?? []).join(', ')}
                onChange={(e) => onChange({ stepFields: fields.map((x, k) => (k === j ? { ...x, options: list(e.target.value) } : x)) })}
              />
            </label>
          )}
          <label className="check">
            <input
              type="checkbox"
              checked={f.required}
              onChange={(e) => onChange({ stepFields: fields.map((x, k) => (k === j ? { ...x, required: e.target.checked } : x)) })}
            />
            Required
          </label>
          <button
            type="button"
            className="link-button"
            onClick={() => onChange({ stepFields: fields.filter((_, k) => k !== j) })}
            aria-label={`Remove field ${f.fieldKey || j + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        className="button button-small"
        onClick={() => onChange({ stepFields: [...fields, { fieldKey: '', required: false, kind: 'text', label: null, options: null }] })}
      >
        Add field
      </button>
    </fieldset>
  );
}
