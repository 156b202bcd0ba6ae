// Request an edit: a different amount or withdrawal, with a reason (POST …/deals/request-to-edit
// about the commitment's event); then the requests with their status and decision, and the
// commitment's history (who changed it, when).
import { useState, type FormEvent } from 'react';
import { useSubmission } from '../../../kit/hooks.ts';
import { portalApi, type EditRequestType, type InvestorDeal } from '../lib/api.ts';
import { formatDateTime, formatMoneyForReader } from '../../../kit/format.ts';
import { m } from '../messages.ts';
import { FormStatus } from './ui.tsx';
import './EditRequest.css';

const AMOUNT = /^\d{1,15}(\.\d{1,10})?$/;

export function EditRequest({ deal, onFiled }: { deal: InvestorDeal; onFiled: () => void }) {
  const [type, setType] = useState<EditRequestType>('Investment Amount');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const { busy, error, done, run, refuse, clear } = useSubmission();
  const commitment = deal.commitment;
  const currency = commitment?.currency ?? deal.payment?.currency ?? '';
  // One request at a time: while one waits for a decision the form is shown but closed.
  const pending = deal.editRequests.find((r) => r.status === 'pending');

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!commitment) return refuse(m.editNoCommitment);
    if (type === 'Investment Amount' && !AMOUNT.test(amount.trim())) return refuse(m.invalidAmount);
    if (!reason.trim()) return refuse(m.missingField(m.reason));
    await run(async () => {
      const newData = type === 'Investment Amount' ? { [commitment.fieldKey]: amount.trim() } : undefined;
      await portalApi.requestEdit({ workflowEventId: commitment.eventId, type, reason: reason.trim(), ...(newData ? { newData } : {}) });
      setAmount('');
      setReason('');
      onFiled();
      return m.editSent;
    });
  }

  return (
    <section className="card change" aria-labelledby="change-title">
      <h2 id="change-title">{m.editTitle}</h2>
      {!commitment ? (
        <p className="muted">{m.editNoCommitment}</p>
      ) : (
        <form onSubmit={submit} noValidate>
          <p className="muted">{m.editExplain}</p>
          {pending && (
            <p className="alert alert-info" data-testid="change-pending">
              {m.editPending} {pending.newAmount !== null ? m.requestAmount(formatMoneyForReader(pending.newAmount, currency)) : m.requestWithdraw} (
              {m.requestAsked(formatDateTime(pending.createdAt))}). {m.editPendingWait}
            </p>
          )}
          <fieldset className="change-fields" disabled={pending !== undefined}>
            <fieldset className="choices">
              <legend className="field-label">{m.editKind}</legend>
              <label className="choice">
                <input
                  type="radio"
                  name="change-type"
                  value="Investment Amount"
                  checked={type === 'Investment Amount'}
                  onChange={() => (clear(), setType('Investment Amount'))}
                />
                {m.editAmount}
              </label>
              <label className="choice">
                <input
                  type="radio"
                  name="change-type"
                  value="Withdraw Investment"
                  checked={type === 'Withdraw Investment'}
                  onChange={() => (clear(), setType('Withdraw Investment'))}
                />
                {m.editWithdraw}
              </label>
            </fieldset>
            {type === 'Investment Amount' && (
              <div className="field">
                <label className="field-label" htmlFor="change-amount">
                  {m.newAmount(currency)}
                </label>
                <input
                  id="change-amount"
                  name="newAmount"
                  inputMode="decimal"
                  autoComplete="off"
                  value={amount}
                  aria-describedby="change-amount-hint"
                  onChange={(e) => (clear(), setAmount(e.target.value))}
                />
                <span id="change-amount-hint" className="muted small">
                  {m.amountHint}
                </span>
              </div>
            )}
            <div className="field">
              <label className="field-label" htmlFor="change-reason">
                {m.reason}
              </label>
              <textarea
                id="change-reason"
                name="reason"
                rows={3}
                maxLength={2000}
                value={reason}
                aria-describedby="change-reason-hint"
                onChange={(e) => (clear(), setReason(e.target.value))}
              />
              <span id="change-reason-hint" className="muted small">
                {m.reasonHint}
              </span>
            </div>
          </fieldset>
          <FormStatus error={error} done={done} persistent />
          <button type="submit" className="button button-primary button-wide" disabled={busy || pending !== undefined}>
            {busy ? m.formSending : m.editSubmit}
          </button>
        </form>
      )}
      <Requests deal={deal} currency={currency} />
      <History deal={deal} />
    </section>
  );
}

const statusWords: Record<string, string> = { pending: m.statusPending, approved: m.statusApproved, rejected: m.statusRejected };

function Requests({ deal, currency }: { deal: InvestorDeal; currency: string }) {
  return (
    <>
      <h3 id="requests-title">{m.requestsTitle}</h3>
      {deal.editRequests.length === 0 ? (
        <p className="muted">{m.requestsEmpty}</p>
      ) : (
        <ul className="requests" aria-labelledby="requests-title">
          {[...deal.editRequests].reverse().map((r) => (
            <li key={r.requestId} className="request">
              <div className="request-head">
                <strong>{r.type === 'Withdraw Investment' ? m.requestWithdraw : m.requestAmount(formatMoneyForReader(r.newAmount, currency))}</strong>
                <span className={`badge badge-${r.status}`}>{statusWords[r.status] ?? r.status}</span>
              </div>
              <p className="small">“{r.reason}”</p>
              <p className="muted small">
                {m.requestAsked(formatDateTime(r.createdAt))}
                {r.decidedAt && ` · ${m.requestDecided(formatDateTime(r.decidedAt))}`}
              </p>
              {r.decisionNote && <p className="small">{m.decisionNote(r.decisionNote)}</p>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function History({ deal }: { deal: InvestorDeal }) {
  return (
    <>
      <h3 id="history-title">{m.historyTitle}</h3>
      {deal.commitmentHistory.length === 0 ? (
        <p className="muted">{m.historyEmpty}</p>
      ) : (
        <ol className="history" aria-labelledby="history-title">
          {[...deal.commitmentHistory].reverse().map((h) => (
            <li key={`${h.revision}-${h.at}`}>
              <span className="money">{formatMoneyForReader(h.amount, h.currency)}</span>
              <span className="muted small">{m.historyBy(h.changedBy === 'investor' ? m.byYou : m.byStaff, formatDateTime(h.at))}</span>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
