// One investor in one deal: where they stand, their payment reference, their edit requests (approve
// or reject) and their journey as a timeline, where each event's data can be corrected and its
// earlier versions read.
import { useState } from 'react';
import { api, type Card, type Revision, type Workflow } from '../lib/api.ts';
import { daysSince, formatDays, formatMoney } from '../lib/format.ts';
import { useLoad, useModal } from '../../../kit/hooks.ts';
import { Badge, ErrorState, FormStatus, NotFound, Pending, Spinner, stepTone } from './ui.tsx';
import { ApiError } from '../lib/api.ts';
import { EditRequestItem } from './EditRequestItem.tsx';
import { StaffRequestForm } from './StaffRequestForm.tsx';
import { TimelineEvent } from './TimelineEvent.tsx';
import { PortalInviteDialog } from './PortalInviteDialog.tsx';
import { useRoleGate } from '../lib/who.ts';
import './InvestorDrawer.css';

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
  const [filed, setFiled] = useState<string>();
  const [inviting, setInviting] = useState(false);
  const [investor, reloadInvestor] = useLoad(() => api.investor(dealId, investorUserId), [dealId, investorUserId, version, local]);
  const [journey, reloadJourney] = useLoad(() => api.journey(dealId, investorUserId), [dealId, investorUserId, version, local]);
  const [requests, reloadRequests] = useLoad(() => api.editRequests(dealId, investorUserId), [dealId, investorUserId, version, local]);
  const panel = useModal();
  const writeGate = useRoleGate('operator');
  const changed = () => {
    setLocal((v) => v + 1);
    onChanged();
  };

  const stepLabel = (id: string | null) => (id === null ? 'start' : (workflow.steps.find((s) => s.id === id)?.label ?? id));

  return (
    <>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop closes the drawer; the keyboard closes it with Escape (the dialog's cancel event, onCancel) */}
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
                    <Badge tone={stepTone(workflow.steps.find((s) => s.id === investor.value.stepId)?.type ?? 'default')}>
                      {stepLabel(investor.value.stepId)}
                    </Badge>{' '}
                    <span className="muted small">
                      {daysSince(investor.value.enteredStepAt) === 0 ? 'since today' : `for ${formatDays(daysSince(investor.value.enteredStepAt))}`}
                    </span>
                  </dd>
                </div>
                <div>
                  <dt>Committed</dt>
                  <dd className="money">{formatMoney(investor.value.committedAmount, investor.value.currency)}</dd>
                </div>
                {investor.value.receivedAmount !== null && (
                  <>
                    <div>
                      <dt>Received</dt>
                      <dd className="money">{formatMoney(investor.value.receivedAmount, investor.value.currency)}</dd>
                    </div>
                    <div>
                      <dt>Still due</dt>
                      <dd className="money">{formatMoney(investor.value.remainingAmount, investor.value.currency)}</dd>
                    </div>
                  </>
                )}
                <div>
                  <dt>Payment reference</dt>
                  <dd>
                    {investor.value.paymentReference ? (
                      <CopyReference reference={investor.value.paymentReference} />
                    ) : (
                      <span className="muted">not assigned</span>
                    )}
                  </dd>
                </div>
              </dl>
              <div className="drawer-actions">
                <button type="button" className="button" onClick={() => onMove(investor.value)} {...writeGate}>
                  Move…
                </button>
                <button type="button" className="button" onClick={() => setInviting(true)} {...writeGate}>
                  Invite to the portal…
                </button>
              </div>
            </section>
          )}

          <section aria-labelledby="requests-title" className="drawer-section">
            <h3 id="requests-title">Edit requests</h3>
            <Pending state={requests} retry={reloadRequests} compact />
            {requests.status === 'ready' && requests.value.length === 0 && <p className="muted">No edit requests.</p>}
            {requests.status === 'ready' &&
              requests.value.map((request) => (
                <EditRequestItem
                  key={request.id}
                  request={request}
                  stepLabel={stepLabel}
                  journey={journey.status === 'ready' ? journey.value.journey : []}
                  onDecided={changed}
                />
              ))}
            {journey.status === 'ready' && investor.status === 'ready' && (
              <StaffRequestForm
                journey={journey.value.journey}
                workflow={workflow}
                dealCurrency={investor.value.currency ?? null}
                stepLabel={stepLabel}
                onFiled={() => (setFiled('Request filed; it waits in the Inbox for a decision.'), changed())}
              />
            )}
            <FormStatus done={filed} />
          </section>

          <section aria-labelledby="timeline-title" className="drawer-section">
            <h3 id="timeline-title">Journey</h3>
            <Pending state={journey} retry={reloadJourney} compact />
            {journey.status === 'ready' && journey.value.journey.length === 0 && <p className="muted">No moves yet.</p>}
            {journey.status === 'ready' && (
              <ol className="timeline">
                {[...journey.value.journey].reverse().map((event, index) => (
                  <TimelineEvent
                    key={event.id}
                    event={event}
                    latest={index === 0}
                    undone={investor.status === 'ready' && investor.value.undoneEventIds.includes(event.id)}
                    workflow={workflow}
                    stepLabel={stepLabel}
                    onEdited={changed}
                  />
                ))}
              </ol>
            )}
          </section>
        </div>
      </dialog>
      {inviting && investor.status === 'ready' && (
        <PortalInviteDialog investors={[{ investorUserId, fullName: investor.value.fullName }]} onClose={() => setInviting(false)} />
      )}
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

export type { Revision };
