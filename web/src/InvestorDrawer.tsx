// One investor in one deal: where they stand, their payment reference, their edit requests (approve
// or reject) and their journey as a timeline, where each event's data can be corrected and its
// earlier versions read.
import { useState, type FormEvent } from 'react';
import { api, type Card, type EditRequest, type Revision, type Workflow, type WorkflowEvent } from './api.ts';
import { daysSince, fieldLabel, formatAmount, formatDays, formatMoney, minorUnits } from './format.ts';
import { useLoad, useModal, useSubmission } from './hooks.ts';
import { FieldInput, checkValue } from './MoveDialog.tsx';
import { Person } from './people.tsx';
import { Badge, ErrorState, FormStatus, NotFound, Pending, Spinner, When, stepTone } from './ui.tsx';
import { ApiError } from './api.ts';

interface Props {
  dealId: string;
  investorUserId: string;
  workflow: Workflow;
  version: number;
  onClose: () => void;
  onChanged: () => void;
  onMove: (card: Card) => void;
}

export function InvestorDrawer({ dealId, investorUserId, workflow, version, onClose, onChanged, onMove }: Props) {
  const [local, setLocal] = useState(0);
  const [investor, reloadInvestor] = useLoad(() => api.investor(dealId, investorUserId), [dealId, investorUserId, version, local]);
  const [journey, reloadJourney] = useLoad(() => api.journey(dealId, investorUserId), [dealId, investorUserId, version, local]);
  const [requests, reloadRequests] = useLoad(() => api.editRequests(dealId, investorUserId), [dealId, investorUserId, version, local]);
  const panel = useModal();
  const changed = () => {
    setLocal((v) => v + 1);
    onChanged();
  };

  const stepLabel = (id: string | null) => (id === null ? 'start' : (workflow.steps.find((s) => s.id === id)?.label ?? id));

  return (
    <>
      <dialog
        className="drawer"
        ref={panel}
        aria-labelledby="drawer-title"
        onCancel={(e) => {
          e.preventDefault();
          onClose();
        }}
        onClick={(e) => {
          // A click on the backdrop (outside the panel's box) closes it.
          if (e.target === e.currentTarget) {
            const r = e.currentTarget.getBoundingClientRect();
            if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) onClose();
          }
        }}
      >
        <header className="drawer-head">
          <div>
            <h2 id="drawer-title">{investor.status === 'ready' ? investor.value.fullName : investorUserId}</h2>
            <p className="muted small">{investor.status === 'ready' ? (investor.value.email ?? investorUserId) : '\u00a0'}</p>
          </div>
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true">
              <path d="M5 5l10 10M15 5L5 15" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            </svg>
          </button>
        </header>
        <div className="drawer-body">
          {investor.status === 'loading' && <Spinner />}
          {investor.status === 'error' &&
            (investor.error instanceof ApiError && investor.error.status === 404 ? (
              <NotFound what={`${investorUserId} has no journey in this deal.`} back={`#/deals/${encodeURIComponent(dealId)}`} backLabel="Back to the board" />
            ) : (
              <ErrorState error={investor.error} retry={reloadInvestor} />
            ))}
          {investor.status === 'ready' && (
            <section className="facts" aria-label="Summary">
              <dl>
                <div>
                  <dt>Step</dt>
                  <dd>
                    <Badge tone={stepTone(workflow.steps.find((s) => s.id === investor.value.stepId)?.type ?? 'default')}>{stepLabel(investor.value.stepId)}</Badge>{' '}
                    <span className="muted small">{daysSince(investor.value.enteredStepAt) === 0 ? 'since today' : `for ${formatDays(daysSince(investor.value.enteredStepAt))}`}</span>
                  </dd>
                </div>
                <div>
                  <dt>Committed</dt>
                  <dd className="money">{formatMoney(investor.value.committedAmount, investor.value.currency)}</dd>
                </div>
                <div>
                  <dt>Payment reference</dt>
                  <dd>{investor.value.paymentReference ? <CopyReference reference={investor.value.paymentReference} /> : <span className="muted">not assigned</span>}</dd>
                </div>
              </dl>
              <button type="button" className="button" onClick={() => onMove(investor.value)}>
                Move…
              </button>
            </section>
          )}

          <section aria-labelledby="requests-title" className="drawer-section">
            <h3 id="requests-title">Edit requests</h3>
            <Pending state={requests} retry={reloadRequests} compact />
            {requests.status === 'ready' && requests.value.length === 0 && <p className="muted">No edit requests.</p>}
            {requests.status === 'ready' &&
              requests.value.map((request) => <EditRequestItem key={request.id} request={request} stepLabel={stepLabel} journey={journey.status === 'ready' ? journey.value.journey : []} onDecided={changed} />)}
          </section>

          <section aria-labelledby="timeline-title" className="drawer-section">
            <h3 id="timeline-title">Journey</h3>
            <Pending state={journey} retry={reloadJourney} compact />
            {journey.status === 'ready' && journey.value.journey.length === 0 && <p className="muted">No moves yet.</p>}
            {journey.status === 'ready' && (
              <ol className="timeline">
                {[...journey.value.journey].reverse().map((event, index) => (
                  <TimelineEvent key={event.id} event={event} latest={index === 0} workflow={workflow} stepLabel={stepLabel} onEdited={changed} />
                ))}
              </ol>
            )}
          </section>
        </div>
      </dialog>
    </>
  );
}

function CopyReference({ reference }: { reference: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(reference);
    } catch {
      // Clipboard refused (insecure context): select the text so Ctrl+C works.
      const range = document.createRange();
      const node = document.getElementById('payment-reference');
      if (node) {
        range.selectNodeContents(node);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
      }
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <span className="reference">
      <code id="payment-reference">{reference.replace(/(.{4})(?=.)/g, '$1 ')}</code>
      <button type="button" className="button button-small" onClick={copy} aria-label="Copy payment reference">
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  );
}

function DataList({ data, order = [] }: { data: Record<string, unknown>; order?: string[] }) {
  // jsonb does not keep key order: show the step's fields in the workflow's order, others after.
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  const entries = Object.entries(data).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
  const currency = Object.values(data).find((v): v is string => typeof v === 'string' && /^[A-Z]{3}$/.test(v));
  if (entries.length === 0) return <p className="muted small">No data captured.</p>;
  return (
    <dl className="data-list">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{fieldLabel({ fieldKey: key })}</dt>
          <dd>{typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) && key.includes('amount') ? formatAmount(value, minorUnits(currency)) : String(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function TimelineEvent({
  event,
  latest,
  workflow,
  stepLabel,
  onEdited,
}: {
  event: WorkflowEvent;
  latest: boolean;
  workflow: Workflow;
  stepLabel: (id: string | null) => string;
  onEdited: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [showHistory, setShowHistory] = useState(false);
  return (
    <li className={latest ? 'timeline-item latest' : 'timeline-item'} data-event-id={event.id}>
      <div className="timeline-head">
        <strong>
          {stepLabel(event.fromStepId)} → {stepLabel(event.toStepId)}
        </strong>
        <span className="muted small">
          <When iso={event.createdAt} /> · by <Person id={event.createdByUserId} />
        </span>
      </div>
      {editing ? (
        <EventEditor event={event} workflow={workflow} onCancel={() => setEditing(false)} onSaved={() => (setEditing(false), onEdited())} />
      ) : (
        <DataList data={event.data} order={workflow.steps.flatMap((s) => s.stepFields.map((f) => f.fieldKey))} />
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
      {showHistory && <RevisionHistory eventId={event.id} />}
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

function RevisionHistory({ eventId }: { eventId: string }) {
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
            <DataList data={revision.data} />
          </li>
        );
      })}
    </ol>
  );
}

function EditRequestItem({
  request,
  journey,
  stepLabel,
  onDecided,
}: {
  request: EditRequest;
  journey: WorkflowEvent[];
  stepLabel: (id: string | null) => string;
  onDecided: () => void;
}) {
  const [reason, setReason] = useState('');
  const { busy, error, run } = useSubmission();
  const status = request.status ?? 'pending';
  const event = journey.find((e) => e.id === request.workflowEventId);

  const decide = (decision: 'approve' | 'reject') =>
    run(async () => {
      await api.decide(request.id, decision, reason.trim() || undefined);
      onDecided();
    });

  return (
    <article className="request" data-request-id={request.id} aria-label={`${request.type} request`}>
      <div className="request-head">
        <strong>{request.type}</strong>
        <Badge tone={status === 'pending' ? 'amber' : status === 'approved' ? 'green' : 'red'}>{status}</Badge>
      </div>
      <p className="small">
        “{request.reason}”
        <span className="muted">
          {' · received '}
          <When iso={request.dateRecieved} />
        </span>
      </p>
      {event && <p className="muted small">On the move to {stepLabel(event.toStepId)}</p>}
      {request.newData && Object.keys(request.newData).length > 0 && (
        <div className="small">
          New values: <DataList data={request.newData} />
        </div>
      )}
      {status !== 'pending' && request.decidedByUserId && (
        <p className="muted small">
          Decided by <Person id={request.decidedByUserId} />
          {request.decidedAt && (
            <>
              {' · '}
              <When iso={request.decidedAt} />
            </>
          )}
          {request.decisionReason ? `: “${request.decisionReason}”` : ''}
        </p>
      )}
      {status === 'pending' && (
        <div className="request-actions">
          <input type="text" placeholder="Reason (optional)" value={reason} onChange={(e) => setReason(e.target.value)} aria-label="Reason for the decision" />
          <button type="button" className="button button-primary button-small" disabled={busy} onClick={() => decide('approve')}>
            Approve
          </button>
          <button type="button" className="button button-danger button-small" disabled={busy} onClick={() => decide('reject')}>
            Reject
          </button>
        </div>
      )}
      <FormStatus error={error} />
    </article>
  );
}

export type { Revision };
