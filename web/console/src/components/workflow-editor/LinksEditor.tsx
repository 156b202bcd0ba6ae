// The links leaving a step: each with whether investors may take it themselves in the portal
// (`investorMay`, when the workflow has investor engagement) and a button to remove it; and a
// chosen step to add a link to.
import { useState } from 'react';
import type { Doc, DocStep } from '../../lib/workflow-doc.ts';
import './LinksEditor.css';

export function LinksEditor({ step, doc, onLinks }: { step: DocStep; doc: Doc; onLinks: (links: Doc['links']) => void }) {
  const outgoing = doc.links.filter((l) => l.fromStepId === step.id);
  const candidates = doc.steps.filter((s) => s.id !== step.id && !outgoing.some((l) => l.toStepId === s.id));
  // Chosen, then added with the button: a select that acted on change would add a link for every
  // arrow key pressed on it.
  const [linkTo, setLinkTo] = useState('');
  const target = candidates.some((s) => s.id === linkTo) ? linkTo : '';
  const label = (stepId: string) => doc.steps.find((s) => s.id === stepId)?.label ?? stepId;
  return (
    <fieldset className="sub">
      <legend>Leads to</legend>
      <ul className="link-list" aria-label={`Steps after ${step.label}`}>
        {outgoing.map((l) => (
          <li key={l.toStepId} className="link-item">
            <span className="chip">
              {label(l.toStepId)}
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove the link from ${step.label} to ${label(l.toStepId)}`}
                onClick={() => onLinks(doc.links.filter((x) => x !== l))}
              >
                ×
              </button>
            </span>
            <label
              className="check small"
              title={doc.investorEngagementEnabled ? undefined : 'Takes effect when investors may act on this workflow (engagement enabled)'}
            >
              <input
                type="checkbox"
                checked={l.investorMay === true}
                onChange={(e) => onLinks(doc.links.map((x) => (x === l ? { ...x, investorMay: e.target.checked } : x)))}
                aria-label={`Investors may take this step themselves: ${step.label} to ${label(l.toStepId)}`}
              />
              Investors may take this step themselves
            </label>
          </li>
        ))}
        {outgoing.length === 0 && <li className="muted small">No next step: investors end here.</li>}
      </ul>
      {outgoing.some((l) => l.investorMay) && !doc.investorEngagementEnabled && (
        <p className="muted small">Investors act only when the workflow lets them (engagement enabled, above).</p>
      )}
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
  );
}
