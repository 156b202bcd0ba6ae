// The Inbox's approvals: writes held for a second person (four-eyes), newest first, with what each
// would do; approve it (the write is applied then, or refused if what it was checked against moved)
// or reject it with a reason. The service refuses the proposer and a role too low, and says so. The
// list follows the approvals of every deal live (lib/live.ts).
import { useState } from 'react';
import { consoleApi, type Approval } from '../lib/api.ts';
import { useApprovalFeed } from '../lib/live.ts';
import { useRoleGate, useWho } from '../lib/who.ts';
import { plural } from '../lib/format.ts';
import { useLoad, useSubmission } from '../../../kit/hooks.ts';
import { Person } from './Person.tsx';
import { Badge, FormStatus, Pending, When } from './ui.tsx';

const actionLabel: Record<Approval['action'], string> = {
  'payee-change': 'Payee IBAN change',
  'payment-assign': 'Payment assignment',
  'payment-split': 'Payment split',
  'payment-dismiss': 'Payment dismissal',
  'bulk-move': 'Bulk move',
  'workflow-change': 'Workflow change',
  'workflow-migration': 'Workflow migration',
  erasure: 'Erasure of personal data',
};

/** What the held write would do, in a line. */
function summary(a: Approval): string {
  const input = a.input as Record<string, any>;
  switch (a.action) {
    case 'payee-change':
      return `IBAN ${a.basis.iban ?? 'none'} → ${input.iban ?? 'none'}`;
    case 'payment-assign':
      return `line ${input.lineId} to ${input.investorUserId}`;
    case 'payment-split':
      return `line ${input.lineId} across ${plural((input.shares ?? []).length, 'investor')}`;
    case 'payment-dismiss':
      return `line ${input.lineId}: “${input.reason}”`;
    case 'bulk-move':
      return plural((input.moves ?? []).length, 'investor') + ' moved';
    case 'workflow-change':
      return `version ${a.basis.version} replaced by “${input.workflow?.label ?? ''}” (${plural((input.workflow?.steps ?? []).length, 'step')})`;
    case 'workflow-migration':
      return `investors on earlier versions moved onto version ${a.basis.version}`;
    case 'erasure':
      return `investor ${input.investorUserId}${input.overrideRetention ? `, before the end of retention: “${input.reason}”` : ''}`;
  }
}

export function ApprovalsList() {
  const [page] = useState(1);
  const [version, setVersion] = useState(0);
  const [list, reload] = useLoad(() => consoleApi.approvals(page), [page, version]);
  // Held or decided by anyone, in any deal: the list follows within a second.
  useApprovalFeed(() => setVersion((v) => v + 1));
  const [notice, setNotice] = useState<string>();
  if (list.status === 'ready' && list.value.output.length === 0 && !notice) return null;
  return (
    <section aria-labelledby="approvals-title" className="approvals">
      <h2 id="approvals-title">Approvals</h2>
      {notice && (
        <div className="toast" role="status">
          {notice}
        </div>
      )}
      <Pending state={list} retry={reload} label="Loading approvals…" compact />
      {list.status === 'ready' && (
        <>
          <p className="muted small">{plural(list.value.output.length, 'write')} waiting for a second person.</p>
          <ul className="inbox">
            {list.value.output.map((a) => (
              <ApprovalItem
                key={a.id}
                approval={a}
                onDecided={(said) => {
                  setNotice(said);
                  setVersion((v) => v + 1);
                }}
              />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function ApprovalItem({ approval: a, onDecided }: { approval: Approval; onDecided: (said: string) => void }) {
  const { busy, error, run } = useSubmission();
  const who = useWho();
  const roleGate = useRoleGate(a.neededRole);
  // The service refuses the proposer; the page says so before they try.
  const gate = who?.userId === a.proposedBy ? { disabled: true as const, title: 'You proposed this: a second person decides it' } : roleGate;
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const decide = (decision: 'approve' | 'reject') =>
    run(async () => {
      await consoleApi.decideApproval(a.id, decision, decision === 'reject' ? reason.trim() : undefined);
      onDecided(`${actionLabel[a.action]} in ${a.dealId} ${decision === 'approve' ? 'approved and applied' : 'rejected'}.`);
    });
  return (
    <li className="inbox-item" data-proposal-id={a.id}>
      <article aria-labelledby={`approval-${a.id}`}>
        <header className="inbox-head">
          <h3 id={`approval-${a.id}`}>
            {actionLabel[a.action]} <span className="muted">· {a.dealId}</span>
          </h3>
          <Badge tone="amber">needs {a.neededRole}</Badge>
        </header>
        <p className="small muted">
          Proposed <When iso={a.proposedAt} /> by {a.proposedByName ?? <Person id={a.proposedBy} />}
        </p>
        <p className="small">{summary(a)}</p>
        {rejecting && (
          <label className="field">
            <span className="field-label">Reason (recorded with the decision)</span>
            <textarea rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
          </label>
        )}
        <div className="row-actions">
          <button type="button" className="button button-primary" disabled={busy || gate.disabled} title={gate.title} onClick={() => decide('approve')}>
            Approve
          </button>
          {rejecting ? (
            <button type="button" className="button button-danger" disabled={busy || !reason.trim()} onClick={() => decide('reject')}>
              Reject
            </button>
          ) : (
            <button type="button" className="button button-danger" disabled={gate.disabled} title={gate.title} onClick={() => setRejecting(true)}>
              Reject…
            </button>
          )}
          {gate.title && <span className="muted small">{gate.title}</span>}
        </div>
        <FormStatus error={error} />
      </article>
    </li>
  );
}
