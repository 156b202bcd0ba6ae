// The writes held for a second person (four-eyes approvals, components/ApprovalsList.tsx), then
// every pending edit request across deals, oldest first: who asks, in which deal, the old → new
// values and the reason; approve or reject after a confirmation, with an optional reason. Live: a
// request filed or decided in any deal, by anyone, shows within a second.
import { useRef, useState } from 'react';
import { api, consoleApi, type PendingRequest } from '../lib/api.ts';
import { fieldLabel, formatAmount, formatMoney, plural } from '../lib/format.ts';
import { announceRequestsChanged, href, useLoad, useModal, useSubmission } from '../../../kit/hooks.ts';
import { useEditRequestFeed } from '../lib/live.ts';
import { ApprovalsList } from '../components/ApprovalsList.tsx';
import { Person } from '../components/Person.tsx';
import { Pager } from '../components/Pager.tsx';
import { Badge, Empty, FormStatus, Pending, When } from '../components/ui.tsx';
import { useRoleGate } from '../lib/who.ts';
import './InboxPage.css';

/** The deals of the requests on a page: their currency and their workflow's field labels and kinds. */
type DealInfo = { currency: string | null; fields: Map<string, { fieldKey: string; label?: string | null; kind?: string | null }> };

/** A value as the field's kind reads: an amount with its currency (the request's, the event's, else the deal's). */
function show(key: string, value: string | undefined, request: PendingRequest, deal: DealInfo | undefined) {
  if (value === undefined || value === '') return '—';
  const field = deal?.fields.get(key);
  const isAmount = field ? field.kind === 'amount' : /amount/.test(key);
  if (!isAmount || !/^\d+(\.\d+)?$/.test(value)) return value;
  const currency = request.newData?.currency ?? request.event.data.currency ?? deal?.currency;
  return currency ? formatMoney(value, currency) : formatAmount(value);
}

export function InboxPage() {
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  const [inbox, reload] = useLoad(() => consoleApi.inbox(page, 25), [page, version]);
  useEditRequestFeed(reload);
  const [deciding, setDeciding] = useState<{ request: PendingRequest; decision: 'approve' | 'reject' }>();
  const [notice, setNotice] = useState<string>();
  const decideGate = useRoleGate('operator');
  const dealIds = inbox.status === 'ready' ? [...new Set(inbox.value.output.map((r) => r.dealId))].sort() : [];
  const [deals] = useLoad(
    async () =>
      new Map(
        await Promise.all(
          dealIds.map(async (id): Promise<[string, DealInfo]> => {
            const [deal, workflow] = await Promise.all([api.deal(id), api.workflow(id).catch(() => undefined)]);
            return [
              id,
              { currency: deal.currency, fields: new Map((workflow?.steps ?? []).flatMap((s) => s.stepFields.map((f) => [f.fieldKey, f] as const))) },
            ];
          }),
        ),
      ),
    [dealIds.join(' ')],
  );
  const dealInfo = (id: string) => (deals.status === 'ready' ? deals.value.get(id) : undefined);

  return (
    <section aria-labelledby="inbox-title">
      <div className="page-head">
        <div>
          <h1 id="inbox-title">Inbox</h1>
          <p className="muted">Pending edit requests across every deal, oldest first.</p>
        </div>
      </div>
      {notice && (
        <div className="toast" role="status">
          {notice}
        </div>
      )}
      <ApprovalsList />
      <Pending state={inbox} retry={reload} label="Loading requests…" />
      {inbox.status === 'ready' && inbox.value.total === 0 && <Empty title="Nothing waiting">No edit request is pending.</Empty>}
      {inbox.status === 'ready' && inbox.value.total > 0 && (
        <>
          <p className="muted small">{plural(inbox.value.total, 'pending request')}</p>
          <ul className="inbox">
            {inbox.value.output.map((r) => (
              <li key={r.id} className="inbox-item" data-request-id={r.id}>
                <article aria-labelledby={`req-${r.id}`}>
                  <header className="inbox-head">
                    <h2 id={`req-${r.id}`}>
                      <a href={href('deals', r.dealId, 'investors', r.investorUserId)}>{r.investorFullName}</a>
                      <span className="muted"> · {r.dealName}</span>
                    </h2>
                    <Badge tone={r.type === 'Withdraw Investment' ? 'red' : 'blue'}>{r.type}</Badge>
                  </header>
                  <p className="small muted">
                    Received <When iso={r.dateRecieved} /> from <Person id={r.createdByUserId} />, about the move to {r.event.toStepLabel}
                  </p>
                  {r.newData && Object.keys(r.newData).length > 0 ? (
                    <dl className="changes">
                      {Object.entries(r.newData).map(([key, value]) => (
                        <div key={key}>
                          <dt>{fieldLabel(dealInfo(r.dealId)?.fields.get(key) ?? { fieldKey: key })}</dt>
                          <dd>
                            <span className="old">{show(key, r.event.data[key], r, dealInfo(r.dealId))}</span> <span aria-hidden="true">→</span>
                            <span className="visually-hidden">becomes</span> <strong>{show(key, value, r, dealInfo(r.dealId))}</strong>
                          </dd>
                        </div>
                      ))}
                    </dl>
                  ) : (
                    <p className="small">Withdraw from the deal (moves the investor to its withdrawn step).</p>
                  )}
                  <blockquote className="reason">“{r.reason}”</blockquote>
                  <div className="row-actions">
                    <button type="button" className="button button-primary" onClick={() => setDeciding({ request: r, decision: 'approve' })} {...decideGate}>
                      Approve…
                    </button>
                    <button type="button" className="button button-danger" onClick={() => setDeciding({ request: r, decision: 'reject' })} {...decideGate}>
                      Reject…
                    </button>
                  </div>
                </article>
              </li>
            ))}
          </ul>
          <Pager page={page} totalPages={inbox.value.totalPages} onPage={setPage} />
        </>
      )}
      {deciding && (
        <DecisionDialog
          request={deciding.request}
          decision={deciding.decision}
          onClose={(done) => {
            setDeciding(undefined);
            if (done) {
              setNotice(done);
              setVersion((v) => v + 1);
            }
          }}
        />
      )}
    </section>
  );
}

function DecisionDialog({ request, decision, onClose }: { request: PendingRequest; decision: 'approve' | 'reject'; onClose: (done?: string) => void }) {
  const dialog = useModal();
  const [reason, setReason] = useState('');
  const { busy, error, run } = useSubmission();
  const result = useRef<string | undefined>(undefined);
  const verb = decision === 'approve' ? 'Approve' : 'Reject';

  const confirm = () =>
    run(async () => {
      await api.decide(request.id, decision, reason.trim() || undefined);
      announceRequestsChanged();
      result.current = `${request.investorFullName}: ${request.type} ${decision === 'approve' ? 'approved' : 'rejected'}.`;
      dialog.current?.close();
    });

  return (
    <dialog ref={dialog} className="dialog" aria-labelledby="decide-title" onClose={() => onClose(result.current)}>
      <header className="dialog-head">
        <h2 id="decide-title">
          {verb} {request.investorFullName}’s request?
        </h2>
        <p className="muted small">
          {request.type} in {request.dealName}.{' '}
          {decision === 'approve'
            ? request.newData
              ? 'The event’s data is changed; the old version stays in its history.'
              : 'The investor is moved to the withdrawn step.'
            : 'Nothing changes for the investor.'}
        </p>
      </header>
      <div className="dialog-body">
        <label className="field">
          <span className="field-label">Reason (optional, recorded with the decision)</span>
          <textarea rows={3} value={reason} onChange={(e) => setReason(e.target.value)} />
        </label>
        <FormStatus error={error} />
      </div>
      <footer className="dialog-foot">
        <button type="button" className="button" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button type="button" className={decision === 'approve' ? 'button button-primary' : 'button button-danger'} disabled={busy} onClick={confirm}>
          {busy ? 'Saving…' : verb}
        </button>
      </footer>
    </dialog>
  );
}
