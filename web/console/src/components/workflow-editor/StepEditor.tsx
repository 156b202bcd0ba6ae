// One step in the workflow editor: its name, type and place in the list, the check's problems about
// it, and its fields, requirements, form and triggers, and links.
import { oneOf, stepTypes, type WorkflowCheck } from '../../lib/api.ts';
import { describeProblem, type Doc, type DocStep } from '../../lib/workflow-doc.ts';
import { FieldsEditor } from './FieldsEditor.tsx';
import { LinksEditor } from './LinksEditor.tsx';
import { RequirementsEditor } from './RequirementsEditor.tsx';
import { TriggersEditor } from './TriggersEditor.tsx';
import './StepEditor.css';

interface StepEditorProps {
  step: DocStep;
  index: number;
  count: number;
  doc: Doc;
  problems: WorkflowCheck['problems'];
  onChange: (patch: Partial<DocStep>) => void;
  onMove: (by: number) => void;
  onRemove: () => void;
  onLinks: (links: Doc['links']) => void;
}

export function StepEditor({ step, index, count, doc, problems, onChange, onMove, onRemove, onLinks }: StepEditorProps) {
  const id = (what: string) => `step-${index}-${what}`;
  return (
    <li className={problems.length ? 'step-editor step-editor-invalid' : 'step-editor'} data-step-id={step.id} aria-label={`Step ${index + 1}: ${step.label}`}>
      <div className="step-editor-head">
        <span className="step-number" aria-hidden="true">
          {index + 1}
        </span>
        <label className="field grow">
          <span className="field-label">Step name</span>
          <input id={id('label')} value={step.label} onChange={(e) => onChange({ label: e.target.value })} />
        </label>
        <label className="field">
          <span className="field-label">Type</span>
          <select value={step.type} onChange={(e) => onChange({ type: oneOf(stepTypes, e.target.value) })}>
            {stepTypes.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <div className="step-editor-actions">
          <button type="button" className="button button-small" disabled={index === 0} onClick={() => onMove(-1)} aria-label={`Move ${step.label} up`}>
            ↑
          </button>
          <button type="button" className="button button-small" disabled={index === count - 1} onClick={() => onMove(1)} aria-label={`Move ${step.label} down`}>
            ↓
          </button>
          <button type="button" className="button button-small button-danger" onClick={onRemove} aria-label={`Remove ${step.label}`}>
            Remove
          </button>
        </div>
      </div>
      <p className="muted small">
        Id <code>{step.id}</code>
      </p>
      {problems.length > 0 && (
        <ul className="alert alert-error problems" aria-label={`Problems with ${step.label}`}>
          {problems.map((p, i) => (
            <li key={i}>{describeProblem(p, doc)}</li>
          ))}
        </ul>
      )}
      <FieldsEditor fields={step.stepFields} onChange={onChange} />
      <RequirementsEditor requirements={step.requirements ?? []} onChange={onChange} />
      <TriggersEditor step={step} triggers={step.triggers ?? []} onChange={onChange} />
      <LinksEditor step={step} doc={doc} onLinks={onLinks} />
    </li>
  );
}
