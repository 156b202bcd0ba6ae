// The workflow editor: steps (add, rename, reorder, remove; type; fields; requirements; form;
// webhook triggers) and the links between them, with a live graph preview. Every edit is checked
// by the service (POST /console/deals/{dealId}/workflow/check, which saves nothing): problems
// show beside the step they are about, and what saving changes for investors already on the deal
// is listed before the save (PUT /deals/deal/{dealId}/workflow), with a confirmation only when the
// deal has investors. A save makes a new version: investors already on the deal follow it once
// moved onto it (MigrationPanel: the dry run, then the move). Leaving with unsaved changes asks first.
import { useEffect, useState } from 'react';
import { DealHeader } from '../components/DealHeader.tsx';
import { ErrorState, Spinner } from '../components/ui.tsx';
import { EditorSide } from '../components/workflow-editor/EditorSide.tsx';
import { MigrationPanel } from '../components/workflow-editor/MigrationPanel.tsx';
import { StepEditor } from '../components/workflow-editor/StepEditor.tsx';
import { ApiError, api, consoleApi, describeError, isHeld, type WorkflowCheck } from '../lib/api.ts';
import { useDebounced, useLoad, useSubmission } from '../../../kit/hooks.ts';
import { useLeaveGuard } from '../lib/leave-guard.ts';
import { inferStepType, problemsOf, schemaProblems, slug, subscriptionTemplate, toBody, toDoc, type Doc, type DocStep } from '../lib/workflow-doc.ts';
import './WorkflowEditorPage.css';

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
  // What the service holds: unsaved changes are the difference from it.
  const [saved, setSaved] = useState(() => JSON.stringify(toBody(initial)));
  const [saves, setSaves] = useState(0);
  const dirty = JSON.stringify(toBody(doc)) !== saved;
  useLeaveGuard(dirty, 'The workflow has unsaved changes. Leave without saving them?');

  useEffect(() => {
    if (settled.steps.length === 0) {
      setCheck(undefined);
      return;
    }
    let stale = false;
    setChecking(true);
    consoleApi
      .checkWorkflow(dealId, toBody(settled))
      .then(
        (result) => !stale && setCheck(result),
        (error) =>
          !stale &&
          setCheck(schemaProblems(error) ?? { valid: false, investors: 0, problems: [{ in: 'body', field: '', detail: describeError(error) }], changes: [] }),
      )
      .finally(() => !stale && setChecking(false));
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
    // No link is added: which steps lead here is the author's choice (an automatic link from the
    // previous step joined Complete to Withdrawn). The type is guessed from the name and editable.
    change({
      ...doc,
      steps: [...doc.steps, { id, label, type: inferStepType(label), stepFields: [], requirements: [], formId: null, triggers: [] }],
    });
    setNewStep('');
  };

  const generalProblems = (check?.problems ?? []).filter((p) => !/^steps\.\d+/.test(p.field) && !/^links\.\d+/.test(p.field));
  const flagged = new Set(doc.steps.filter((_, i) => problemsOf(doc, check, i).length > 0).map((s) => s.id));

  async function save() {
    // Asked only when the changes concern someone: a deal without investors saves at once.
    if (existing && (check?.changes.length ?? 0) > 0 && (check?.investors ?? 0) > 0 && !confirming) {
      setConfirming(true);
      return;
    }
    await run(async () => {
      const answer = await consoleApi.putWorkflow(dealId, toBody(doc)).catch((error: unknown) => {
        const problems = schemaProblems(error);
        if (problems) setCheck(problems);
        throw error;
      });
      setConfirming(false);
      // Four-eyes: the change waits for another admin; nothing is saved until they approve it.
      if (isHeld(answer)) return 'The workflow change is held for a second person: nothing is saved until another admin approves it in the Inbox.';
      setExisting(true);
      setSaved(JSON.stringify(toBody(doc)));
      setSaves((n) => n + 1);
      // The check compared with the workflow as it was; compare with what is saved now.
      void consoleApi.checkWorkflow(dealId, toBody(doc)).then(setCheck, () => setCheck(undefined));
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
              <input
                type="checkbox"
                checked={doc.investorEngagementEnabled}
                onChange={(e) => change({ ...doc, investorEngagementEnabled: e.target.checked })}
              />
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
          {doc.steps.length === 0 && (
            <div className="form-card">
              <p>Start from a template and adapt it, or add steps one by one below.</p>
              <button type="button" className="button" onClick={() => change(subscriptionTemplate(dealId, dealName))}>
                Use the subscription template
              </button>
            </div>
          )}
          <ol className="step-editors">
            {doc.steps.map((step, index) => (
              <StepEditor
                key={step.id}
                step={step}
                index={index}
                count={doc.steps.length}
                doc={doc}
                problems={problemsOf(doc, check, index)}
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
        <EditorSide
          doc={doc}
          check={check}
          checking={checking}
          existing={existing}
          confirming={confirming}
          flagged={flagged}
          busy={busy}
          error={error}
          done={done}
          save={save}
          setConfirming={setConfirming}
          dirty={dirty}
          migration={existing ? <MigrationPanel dealId={dealId} version={saves} /> : null}
        />
      </div>
    </section>
  );
}
