// One edit request in the investor drawer: what it asks, and approve or reject with a reason.
import { useState } from 'react';
import { api, type EditRequest, type WorkflowEvent } from '../lib/api.ts';
import { announceRequestsChanged, useSubmission } from '../../../kit/hooks.ts';
import { Person } from './Person.tsx';
import { Badge, FormStatus, When } from './ui.tsx';
import { DataList } from './DataList.tsx';
import { useRoleGate } from '../lib/who.ts';
import './EditRequestItem.css';

export function EditRequestItem({
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
  const decideGate = useRoleGate('operator');
  const [reason, setReason] = useState('');
  const { busy, error, run } = useSubmission();
  const status = request.status ?? 'pending';
  const event = journey.find((e) => e.id === request.workflowEventId);

  const decide = (decision: 'approve' | 'reject') =>
    run(async () => {
      await api.decide(request.id, decision, reason.trim() || undefined);
      announceRequestsChanged();
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
          <button type="button" className="button button-primary button-small" disabled={busy} onClick={() => decide('approve')} {...decideGate}>
            Approve
          </button>
          <button type="button" className="button button-danger button-small" disabled={busy} onClick={() => decide('reject')} {...decideGate}>
            Reject
          </button>
        </div>
      )}
      <FormStatus error={error} />
    </article>
  );
}
