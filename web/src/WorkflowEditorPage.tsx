// The workflow editor: steps (add, rename, reorder, remove; type; fields; requirements; form;
// webhook triggers) and the links between them, with a live graph preview. Every edit is checked
// by the service (POST /console/deals/{dealId}/workflow/check, which saves nothing): problems
// show beside the step they are about, and what saving changes for investors already on the deal
// is listed before the save (PUT /deals/deal/{dealId}/workflow).
import { useEffect, useMemo, useState } from 'react';
import { ApiError, api, consoleApi, describeError, type Workflow, type WorkflowCheck, type WorkflowDocument } from './api.ts';
import { DealHeader } from './DealHeader.tsx';
import { useDebounced, useLoad, useSubmission } from './hooks.ts';
import { ErrorState, FormStatus, Spinner } from './ui.tsx';
import { WorkflowGraph, type GraphStep } from './WorkflowGraph.tsx';

type Doc = WorkflowDocument;
type DocStep = Doc['steps'][number];

const stepTypes = ['default', 'complete', 'withdrawn'] as const;
const fieldKinds = ['text', 'amount', 'currency', 'date', 'email', 'choice'] as const;
const requirementKinds = ['kyc-level', 'classification', 'no-pending-edit-requests', 'previous-fields-complete'] as const;

const slug = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40) || 'step';

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function toDoc(workflow: Workflow | undefined, dealName: string): Doc {
  if (!workflow || workflow.steps.length === 0) {
    return { label: `${dealName} workflow`, description: '', investorEngagementEnabled: true, steps: [], links: [] };
  }
  return {
    label: workflow.label,
    description: workflow.description,
    investorEngagementEnabled: workflow.investorEngagementEnabled,
    steps: workflow.steps.map((s) => ({
      id: s.id,
      label: s.label,
      type: s.type,
      stepFields: s.stepFields.map((f) => ({ fieldKey: f.fieldKey, required: f.required, kind: f.kind ?? 'text', label: f.label ?? null, options: f.options ?? null })),
      requirements: (s.requirements ?? []).map((r) => ({
        kind: r.kind,
        ...(typeof r.minimumLevel === 'number' ? { minimumLevel: r.minimumLevel } : {}),
        ...(Array.isArray(r.classes) ? { classes: r.classes as string[] } : {}),
      })),
      formId: s.formId ?? null,
      triggers: ((s.workflowCustomStepTriggers ?? []) as { url: string; events?: string[] }[]).map((t) => ({ kind: 'webhook' as const, url: t.url, ...(t.events ? { events: t.events } : {}) })),
    })),
    links: workflow.steps.flatMap((s) => s.nextStepLinks.map((l) => ({ fromStepId: l.fromStepId, toStepId: l.toStepId }))),
  };
}

/** A 400 from the body schema, in the check's shape (`/steps/0/label` → `steps.0.label`). */
function schemaProblems(error: unknown): WorkflowCheck | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const errors = Array.isArray(error.problem.errors) ? (error.problem.errors as { field?: string; detail?: string }[]) : [];
  return {
    valid: false,
    problems: (errors.length ? errors : [{ field: '', detail: error.message }]).map((e) => ({
      in: 'body',
      field: String(e.field ?? '').replace(/^\//, '').replace(/\//g, '.'),
      detail: String(e.detail ?? error.message),
    })),
    changes: [],
  };
}

export function WorkflowEditorPage({ dealId }: { dealId: string }) {
  const [loaded, reload] = useLoad(
    () =>
      Promise.all([
        api.deal(dealId),
        api.workflow(dealId).catch((e) => (e instanceof ApiError && e.status === 404 && /workflow/i.test(e.message) ? undefined : Promise.reject(e))),
      ]),
    [dealId],
  );
  if (loaded.status === 'loading') return <Spinner label="Loading the workflow…" />;
  if (loaded.status === 'error') return <ErrorState error={loaded.error} retry={reload} />;
  const [deal, workflow] = loaded.value;
  return <Editor dealId={dealId} dealName={deal.name} initial={toDoc(workflow, deal.name)} existedBefore={!!workflow && workflow.steps.length > 0} />;
}

function Editor({ dealId, dealName, initial, existedBefore }: { dealId: string; dealName: string; initial: Doc; existedBefore: boolean }) {
  const [doc, setDoc] = useState<Doc>(initial);
  // Once saved, the deal has a workflow: later saves are compared with it.
  const [existing, setExisting] = useState(existedBefore);
  const [check, setCheck] = useState<WorkflowCheck>();
  const [checking, setChecking] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const { busy, error, done, run, clear } = useSubmission();
  const [newStep, setNewStep] = useState('');
  const settled = useDebounced(doc, 400);

  useEffect(() => {
    if (settled.steps.length === 0) {
      setCheck(undefined);
      return;
    }
    let stale = false;
    setChecking(true);
    consoleApi.checkWorkflow(dealId, settled).then(
      (result) => !stale && setCheck(result),
      (error) => !stale && setCheck(schemaProblems(error) ?? { valid: false, problems: [{ in: 'body', field: '', detail: describeError(error) }], changes: [] }),
    ).finally(() => !stale && setChecking(false));
    return () => {
      stale = true;
    };
  }, [dealId, settled]);

  const change = (next: Doc) => {
    setDoc(next);
    setConfirming(false);
    if (!busy) clear();
  };
  const setStep = (index: number, patch: Partial<DocStep>) => change({ ...doc, steps: doc.steps.map((s, i) => (i === index ? { ...s, ...patch } : s)) });
  const moveStep = (index: number, by: number) => {
    const steps = [...doc.steps];
    const [step] = steps.splice(index, 1);
    steps.splice(index + by, 0, step!);
    change({ ...doc, steps });
  };
  const removeStep = (index: number) => {
    const id = doc.steps[index]!.id;
    change({ ...doc, steps: doc.steps.filter((_, i) => i !== index), links: doc.links.filter((l) => l.fromStepId !== id && l.toStepId !== id) });
  };
  const addStep = () => {
    const label = newStep.trim();
    if (!label) return;
    const taken = new Set(doc.steps.map((s) => s.id));
    let id = `${dealId}:${slug(label)}`.slice(0, 64);
    for (let n = 2; taken.has(id); n++) id = `${dealId}:${slug(label)}-${n}`.slice(0, 64);
    const previous = doc.steps.at(-1);
    change({
      ...doc,
      steps: [...doc.steps, { id, label, type: 'default', stepFields: [], requirements: [], formId: null, triggers: [] }],
      // A new step follows the last one, as most workflows are mostly a line; the link can be removed.
      links: previous && previous.type === 'default' ? [...doc.links, { fromStepId: previous.id, toStepId: id }] : doc.links,
    });
    setNewStep('');
  };

  const problemsOf = (index: number) => {
    const id = doc.steps[index]?.id;
    return (check?.problems ?? []).filter((p) => {
      if (p.field === `steps.${index}` || p.field.startsWith(`steps.${index}.`)) return true;
      const link = /^links\.(\d+)/.exec(p.field);
      return link ? doc.links[Number(link[1])]?.fromStepId === id : false;
    });
  };
  const generalProblems = (check?.problems ?? []).filter((p) => !/^steps\.\d+/.test(p.field) && !/^links\.\d+/.test(p.field));
  const flagged = new Set(doc.steps.filter((_, i) => problemsOf(i).length > 0).map((s) => s.id));

  const preview: GraphStep[] = useMemo(
    () =>
      doc.steps.map((s) => ({
        id: s.id,
        label: s.label || '(no name)',
        type: s.type,
        stepFields: s.stepFields.map((f) => ({ fieldKey: f.fieldKey || '?', required: f.required, kind: f.kind ?? 'text', label: f.label ?? null })),
        requirements: s.requirements ?? [],
        formId: s.formId ?? null,
        workflowCustomStepTriggers: s.triggers ?? [],
        nextStepLinks: doc.links.filter((l) => l.fromStepId === s.id),
      })),
    [doc],
  );

  async function save() {
    if (existing && (check?.changes.length ?? 0) > 0 && !confirming) {
      setConfirming(true);
      return;
    }
    await run(async () => {
      await consoleApi.putWorkflow(dealId, doc).catch((error: unknown) => {
        const problems = schemaProblems(error);
        if (problems) setCheck(problems);
        throw error;
      });
      setConfirming(false);
      setExisting(true);
      // The check compared with the workflow as it was; compare with what is saved now.
      void consoleApi.checkWorkflow(dealId, doc).then(setCheck, () => setCheck(undefined));
      return (
        <>
          Saved. <a href={`#/deals/${encodeURIComponent(dealId)}`}>Open the board</a>
        </>
      );
    });
  }

  return (
    <section aria-labelledby="editor-title">
      <DealHeader dealId={dealId} name={dealName} view="workflow" />
      <div className="editor">
        <div className="editor-main">
          <h2 id="editor-title">Workflow</h2>
          <div className="form-card">
            <label className="field">
              <span className="field-label">Workflow name</span>
              <input name="workflowLabel" value={doc.label} onChange={(e) => change({ ...doc, label: e.target.value })} />
            </label>
            <label className="field">
              <span className="field-label">Description</span>
              <textarea rows={2} value={doc.description} onChange={(e) => change({ ...doc, description: e.target.value })} />
            </label>
            <label className="check">
              <input type="checkbox" checked={doc.investorEngagementEnabled} onChange={(e) => change({ ...doc, investorEngagementEnabled: e.target.checked })} />
              Investors may act on this workflow (engagement enabled)
            </label>
          </div>
          {generalProblems.length > 0 && (
            <ul className="alert alert-error problems" aria-label="Problems with the workflow">
              {generalProblems.map((p, i) => (
                <li key={i}>{p.detail}</li>
              ))}
            </ul>
          )}
          <ol className="step-editors">
            {doc.steps.map((step, index) => (
              <StepEditor
                key={step.id}
                step={step}
                index={index}
                count={doc.steps.length}
                doc={doc}
                problems={problemsOf(index)}
                onChange={(patch) => setStep(index, patch)}
                onMove={(by) => moveStep(index, by)}
                onRemove={() => removeStep(index)}
                onLinks={(links) => change({ ...doc, links })}
              />
            ))}
          </ol>
          <div className="add-step form-card">
            <label className="field">
              <span className="field-label">New step</span>
              <input
                name="newStep"
                placeholder="e.g. Commitment"
                value={newStep}
                onChange={(e) => setNewStep(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault();
                    addStep();
                  }
                }}
              />
            </label>
            <button type="button" className="button" onClick={addStep} disabled={!newStep.trim()}>
              Add step
            </button>
          </div>
        </div>
        <aside className="editor-side" aria-label="Preview and checks">
          <h2>Preview</h2>
          {doc.steps.length > 0 ? <WorkflowGraph steps={preview} label="Preview of the workflow" flagged={flagged} height={360} /> : <p className="muted">Add a step to see the graph.</p>}
          <div className="check-state" role="status" aria-live="polite">
            {checking ? 'Checking…' : check ? (check.valid ? 'No problems found.' : `${check.problems.length} problem${check.problems.length === 1 ? '' : 's'} to fix before saving.`) : '\u00a0'}
          </div>
          {existing && check && check.changes.length > 0 && (
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
              These changes apply to the investors already on this deal. Save anyway?
            </p>
          )}
          <FormStatus error={error} done={done} />
          <div className="row-actions">
            <button type="button" className="button button-primary" onClick={save} disabled={busy || doc.steps.length === 0 || (check !== undefined && !check.valid)}>
              {busy ? 'Saving…' : confirming ? 'Confirm and save' : 'Save workflow'}
            </button>
            {confirming && (
              <button type="button" className="button" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            )}
          </div>
        </aside>
      </div>
    </section>
  );
}

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

function StepEditor({ step, index, count, doc, problems, onChange, onMove, onRemove, onLinks }: StepEditorProps) {
  const id = (what: string) => `step-${index}-${what}`;
  const outgoing = doc.links.filter((l) => l.fromStepId === step.id);
  const candidates = doc.steps.filter((s) => s.id !== step.id && !outgoing.some((l) => l.toStepId === s.id));
  // Chosen, then added with the button: a select that acted on change would add a link for every
  // arrow key pressed on it.
  const [linkTo, setLinkTo] = useState('');
  const target = candidates.some((s) => s.id === linkTo) ? linkTo : '';
  const fields = step.stepFields;
  const requirements = step.requirements ?? [];
  const triggers = step.triggers ?? [];
  const label = (stepId: string) => doc.steps.find((s) => s.id === stepId)?.label ?? stepId;

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
          <select value={step.type} onChange={(e) => onChange({ type: e.target.value })}>
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

      <fieldset className="sub">
        <legend>Fields</legend>
        {fields.length === 0 && <p className="muted small">This step captures no data.</p>}
        {fields.map((f, j) => (
          <div className="field-row" key={j}>
            <label className="field">
              <span className="field-label">Key</span>
              <input value={f.fieldKey} onChange={(e) => onChange({ stepFields: fields.map((x, k) => (k === j ? { ...x, fieldKey: e.target.value.trim() } : x)) })} />
            </label>
            <label className="field">
              <span className="field-label">Label</span>
              <input value={f.label ?? ''} onChange={(e) => onChange({ stepFields: fields.map((x, k) => (k === j ? { ...x, label: e.target.value || null } : x)) })} />
            </label>
            <label className="field">
              <span className="field-label">Kind</span>
              <select
                value={f.kind ?? 'text'}
                onChange={(e) => onChange({ stepFields: fields.map((x, k) => (k === j ? { ...x, kind: e.target.value, options: e.target.value === 'choice' ? (x.options ?? []) : null } : x)) })}
              >
                {fieldKinds.map((kind) => (
                  <option key={kind} value={kind}>
                    {kind}
                  </option>
                ))}
              </select>
            </label>
            {f.kind === 'choice' && (
              <label className="field">
                <span className="field-label">Options (comma-separated)</span>
                <input value={(f.options ?? []).join(', ')} onChange={(e) => onChange({ stepFields: fields.map((x, k) => (k === j ? { ...x, options: list(e.target.value) } : x)) })} />
              </label>
            )}
            <label className="check">
              <input type="checkbox" checked={f.required} onChange={(e) => onChange({ stepFields: fields.map((x, k) => (k === j ? { ...x, required: e.target.checked } : x)) })} />
              Required
            </label>
            <button type="button" className="link-button" onClick={() => onChange({ stepFields: fields.filter((_, k) => k !== j) })} aria-label={`Remove field ${f.fieldKey || j + 1}`}>
              Remove
            </button>
          </div>
        ))}
        <button type="button" className="button button-small" onClick={() => onChange({ stepFields: [...fields, { fieldKey: '', required: false, kind: 'text', label: null, options: null }] })}>
          Add field
        </button>
      </fieldset>

      <fieldset className="sub">
        <legend>Requirements to enter</legend>
        {requirements.map((r, j) => (
          <div className="field-row" key={j}>
            <label className="field">
              <span className="field-label">Kind</span>
              <select
                value={r.kind}
                onChange={(e) =>
                  onChange({
                    requirements: requirements.map((x, k) =>
                      k === j ? { kind: e.target.value, ...(e.target.value === 'kyc-level' ? { minimumLevel: 1 } : {}), ...(e.target.value === 'classification' ? { classes: [] } : {}) } : x,
                    ),
                  })
                }
              >
                {requirementKinds.map((kind) => (
                  <option key={kind} value={kind}>
                    {kind}
                  </option>
                ))}
              </select>
            </label>
            {r.kind === 'kyc-level' && (
              <label className="field">
                <span className="field-label">Minimum level</span>
                <input
                  inputMode="numeric"
                  value={String(r.minimumLevel ?? '')}
                  onChange={(e) => onChange({ requirements: requirements.map((x, k) => (k === j ? { ...x, minimumLevel: Number(e.target.value) || 0 } : x)) })}
                />
              </label>
            )}
            {r.kind === 'classification' && (
              <label className="field">
                <span className="field-label">Classes (comma-separated)</span>
                <input value={(r.classes ?? []).join(', ')} onChange={(e) => onChange({ requirements: requirements.map((x, k) => (k === j ? { ...x, classes: list(e.target.value) } : x)) })} />
              </label>
            )}
            <button type="button" className="link-button" onClick={() => onChange({ requirements: requirements.filter((_, k) => k !== j) })}>
              Remove
            </button>
          </div>
        ))}
        <button type="button" className="button button-small" onClick={() => onChange({ requirements: [...requirements, { kind: 'kyc-level', minimumLevel: 1 }] })}>
          Add requirement
        </button>
      </fieldset>

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
              <input type="url" value={t.url} onChange={(e) => onChange({ triggers: triggers.map((x, k) => (k === j ? { ...x, url: e.target.value.trim() } : x)) })} />
            </label>
            <label className="field">
              <span className="field-label">Events (comma-separated; empty: step entered)</span>
              <input
                value={(t.events ?? []).join(', ')}
                onChange={(e) => {
                  const events = list(e.target.value);
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

      <fieldset className="sub">
        <legend>Leads to</legend>
        <ul className="chips" aria-label={`Steps after ${step.label}`}>
          {outgoing.map((l) => (
            <li key={l.toStepId} className="chip">
              {label(l.toStepId)}
              <button type="button" className="chip-remove" aria-label={`Remove the link from ${step.label} to ${label(l.toStepId)}`} onClick={() => onLinks(doc.links.filter((x) => x !== l))}>
                ×
              </button>
            </li>
          ))}
          {outgoing.length === 0 && <li className="muted small">No next step: investors end here.</li>}
        </ul>
        {candidates.length > 0 && (
          <div className="link-adder">
            <label className="field">
              <span className="field-label">Add a link to</span>
              <select value={target} aria-label={`Add a link from ${step.label} to`} onChange={(e) => setLinkTo(e.target.value)}>
                <option value="">Choose a step…</option>
                {candidates.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.label}
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              className="button"
              disabled={!target}
              aria-label={target ? `Add the link from ${step.label} to ${label(target)}` : `Add the link from ${step.label}`}
              onClick={() => {
                onLinks([...doc.links, { fromStepId: step.id, toStepId: target }]);
                setLinkTo('');
              }}
            >
              Add link
            </button>
          </div>
        )}
      </fieldset>
    </li>
  );
}

/** A check problem in the editor's words (links named by their steps rather than their index). */
function describeProblem(problem: { field: string; detail: string }, doc: Doc) {
  const link = /^links\.(\d+)/.exec(problem.field);
  if (link) {
    const l = doc.links[Number(link[1])];
    const name = (id: string | undefined) => doc.steps.find((s) => s.id === id)?.label ?? id;
    if (l) return `Link to ${name(l.toStepId)}: ${problem.detail}`;
  }
  const field = /^steps\.\d+\.stepFields\.(\d+)/.exec(problem.field);
  if (field) return `Field ${Number(field[1]) + 1}: ${problem.detail}`;
  const requirement = /^steps\.\d+\.requirements\.(\d+)/.exec(problem.field);
  if (requirement) return `Requirement ${Number(requirement[1]) + 1}: ${problem.detail}`;
  const trigger = /^steps\.\d+\.triggers\.(\d+)/.exec(problem.field);
  if (trigger) return `Trigger ${Number(trigger[1]) + 1}: ${problem.detail}`;
  return problem.detail;
}
