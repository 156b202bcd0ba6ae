// The reconciliation queue: statement lines by status and deal (GET /payments/lines), and the staff
// decisions on a queued line: assign it to an investor, split it across investors, or dismiss it
// with a reason. Amounts stay decimal text end to end (the split's sum is checked with big.js, as
// the service checks it).
import Big from 'big.js';
import { useState, type FormEvent } from 'react';
import { consoleApi, type PaymentLine } from './api.ts';
import { formatMoney } from './format.ts';
import { useDebounced, useLoad, useSubmission } from './hooks.ts';
import { Pager } from './TablePage.tsx';
import { Badge, Empty, FormStatus, Pending, When } from './ui.tsx';

const statuses = [
  { value: 'queued', label: 'Queued' },
  { value: 'matched', label: 'Matched' },
  { value: 'dismissed', label: 'Dismissed' },
  { value: 'ignored', label: 'Not matched' },
  { value: '', label: 'Every line' },
] as const;
const DECIMAL = /^\d{1,15}(\.\d{1,10})?$/;
// after-completion: money for an investor who already completed or withdrew; recorded, the
// investor not moved, for staff to settle (refund, or assign elsewhere).
const outcomeTone = (outcome: string) =>
  outcome === 'matched' ? 'green' : outcome === 'partial' ? 'amber' : outcome === 'overpaid' || outcome === 'wrong-currency' || outcome === 'after-completion' ? 'red' : 'neutral';

export function PaymentsPage() {
  const [status, setStatus] = useState('queued');
  const [deal, setDeal] = useState('');
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState<PaymentLine>();
  const dealId = useDebounced(deal.trim());
  const [list, reload] = useLoad(
    () => consoleApi.paymentLines({ ...(status ? { status } : {}), ...(dealId ? { dealId } : {}), page }),
    [status, dealId, page, version],
  );

  return (
    <section aria-labelledby="payments-title">
      <div className="page-head">
        <div>
          <h1 id="payments-title">Bank payments</h1>
          <p className="muted">Lines of imported bank statements. Matched credits moved their investor; the others wait here for a decision.</p>
        </div>
      </div>
      <div className="toolbar">
        <label className="inline-field">
          <span>Status</span>
          <select value={status} onChange={(e) => (setStatus(e.target.value), setPage(1), setSelected(undefined))}>
            {statuses.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <label className="inline-field">
          <span>Deal id</span>
          <input value={deal} onChange={(e) => (setDeal(e.target.value), setPage(1))} />
        </label>
      </div>
      {selected && (
        <DecisionForm
          key={selected.id}
          line={selected}
          onClose={() => setSelected(undefined)}
          onDecided={() => setVersion((v) => v + 1)}
        />
      )}
      <Pending state={list} retry={reload} />
      {list.status === 'ready' && list.value.output.length === 0 && <Empty title={status === 'queued' ? 'Nothing waits for a decision' : 'No lines'} />}
      {list.status === 'ready' && list.value.output.length > 0 && (
        <>
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Statement lines">
            <table className="table payments-table">
              <thead>
                <tr>
                  <th scope="col">From</th>
                  <th scope="col" className="num">
                    Amount
                  </th>
                  <th scope="col">Reference</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Investor</th>
                  <th scope="col">
                    <span className="visually-hidden">Decision</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.value.output.map((line) => (
                  <tr key={line.id}>
                    <td data-label="From">
                      {line.debtorName ?? 'Unknown payer'}
                      <div className="muted small">
                        {line.valueDate ?? line.bookingDate ?? ''} {line.entryReference ? `· ${line.entryReference}` : ''} · imported <When iso={line.createdAt} />
                      </div>
                    </td>
                    <td className="num money" data-label="Amount">
                      {line.direction === 'debit' ? '−' : ''}
                      {formatMoney(line.amount, line.currency)}
                    </td>
                    <td data-label="Reference">{line.reference ?? line.structuredReference ?? line.remittance ?? '—'}</td>
                    <td data-label="Outcome">
                      <Badge tone={outcomeTone(line.outcome)}>{line.outcome.replace(/-/g, ' ')}</Badge>
                      {line.detail && <div className="muted small">{line.detail}</div>}
                    </td>
                    <td data-label="Investor">
                      {line.investorUserId ? (
                        <a href={`#/deals/${encodeURIComponent(line.dealId ?? '')}/investors/${encodeURIComponent(line.investorUserId)}`}>{line.investorUserId}</a>
                      ) : (
                        '—'
                      )}
                      {line.dealId && <div className="muted small">{line.dealId}</div>}
                    </td>
                    <td data-label="Decision">
                      {line.status === 'queued' ? (
                        <button type="button" className="button" aria-expanded={selected?.id === line.id} onClick={() => setSelected(line)}>
                          Decide<span className="visually-hidden"> on {formatMoney(line.amount, line.currency)} from {line.debtorName ?? 'an unknown payer'}</span>
                        </button>
                      ) : (
                        <span className="muted small">{line.status}</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} totalPages={list.value.totalPages} onPage={setPage} />
        </>
      )}
    </section>
  );
}

type Share = { dealId: string; investorUserId: string; amount: string };

function DecisionForm({ line, onClose, onDecided }: { line: PaymentLine; onClose: () => void; onDecided: () => void }) {
  const [action, setAction] = useState<'assign' | 'split' | 'dismiss'>('assign');
  const [dealId, setDealId] = useState(line.dealId ?? '');
  const [investorUserId, setInvestorUserId] = useState(line.investorUserId ?? '');
  const [shares, setShares] = useState<Share[]>([
    { dealId: line.dealId ?? '', investorUserId: line.investorUserId ?? '', amount: '' },
    { dealId: line.dealId ?? '', investorUserId: '', amount: '' },
  ]);
  const [reason, setReason] = useState('');
  const { busy, error, done, run, refuse } = useSubmission();
  const amountText = formatMoney(line.amount, line.currency);
  const sum = shares.every((s) => DECIMAL.test(s.amount)) ? shares.reduce((total, s) => total.plus(s.amount), new Big(0)) : undefined;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (action === 'assign' && (!dealId.trim() || !investorUserId.trim())) return refuse('Enter the deal id and the investor id.');
    if (action === 'split') {
      if (shares.some((s) => !s.dealId.trim() || !s.investorUserId.trim())) return refuse('Enter a deal id and an investor id for every share.');
      if (!sum) return refuse('Enter every share as a decimal amount, e.g. 2500.00.');
      if (!sum.eq(line.amount)) return refuse(`The shares add up to ${formatMoney(sum.toFixed(), line.currency)}; they must add up to ${amountText}.`);
    }
    if (action === 'dismiss' && !reason.trim()) return refuse('Say why the line is dismissed.');
    await run(async () => {
      const decided =
        action === 'assign'
          ? await consoleApi.assignLine(line.id, { dealId: dealId.trim(), investorUserId: investorUserId.trim() })
          : action === 'split'
            ? await consoleApi.splitLine(line.id, shares.map((s) => ({ dealId: s.dealId.trim(), investorUserId: s.investorUserId.trim(), amount: s.amount })))
            : await consoleApi.dismissLine(line.id, reason.trim());
      onDecided();
      return `Done: the line is now ${decided.status}${decided.detail ? ` (${decided.detail})` : ''}.`;
    });
  }

  const setShare = (index: number, patch: Partial<Share>) => setShares(shares.map((s, i) => (i === index ? { ...s, ...patch } : s)));

  return (
    <form className="form-card" onSubmit={submit} noValidate aria-labelledby="decision-title">
      <h2 id="decision-title">
        {amountText} from {line.debtorName ?? 'an unknown payer'}
      </h2>
      <p className="muted small">
        {line.outcome.replace(/-/g, ' ')}
        {line.detail ? `: ${line.detail}` : ''}
      </p>
      {line.outcome === 'after-completion' && (
        <p className="small">The investor had already completed or withdrawn. The money is recorded for them; they were not moved.</p>
      )}
      <fieldset className="sub">
        <legend>Decision</legend>
        {(
          [
            ['assign', 'Assign to an investor'],
            ['split', 'Split across investors'],
            ['dismiss', 'Dismiss with a reason'],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className="radio">
            <input type="radio" name="decision" value={value} checked={action === value} onChange={() => (setAction(value), refuse(undefined))} /> {label}
          </label>
        ))}
      </fieldset>
      {action === 'assign' && (
        <div className="field-pair">
          <label className="field">
            <span className="field-label">Deal id</span>
            <input name="dealId" value={dealId} onChange={(e) => setDealId(e.target.value)} />
          </label>
          <label className="field">
            <span className="field-label">Investor id</span>
            <input name="investorUserId" value={investorUserId} onChange={(e) => setInvestorUserId(e.target.value)} />
          </label>
        </div>
      )}
      {action === 'split' && (
        <>
          {shares.map((share, i) => (
            <fieldset key={i} className="sub">
              <legend>Share {i + 1}</legend>
              <div className="field-row">
                <label className="field">
                  <span className="field-label">Deal id</span>
                  <input value={share.dealId} onChange={(e) => setShare(i, { dealId: e.target.value })} />
                </label>
                <label className="field">
                  <span className="field-label">Investor id</span>
                  <input value={share.investorUserId} onChange={(e) => setShare(i, { investorUserId: e.target.value })} />
                </label>
                <label className="field">
                  <span className="field-label">Amount ({line.currency})</span>
                  <input inputMode="decimal" value={share.amount} onChange={(e) => setShare(i, { amount: e.target.value.trim() })} />
                </label>
                {shares.length > 1 && (
                  <button type="button" className="button" onClick={() => setShares(shares.filter((_, j) => j !== i))}>
                    Remove share {i + 1}
                  </button>
                )}
              </div>
            </fieldset>
          ))}
          <p className="small" aria-live="polite">
            Shares: {sum ? formatMoney(sum.toFixed(), line.currency) : '—'} of {amountText}
          </p>
          <button type="button" className="button" onClick={() => setShares([...shares, { dealId: line.dealId ?? '', investorUserId: '', amount: '' }])}>
            Add a share
          </button>
        </>
      )}
      {action === 'dismiss' && (
        <label className="field">
          <span className="field-label">Reason</span>
          <textarea name="reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={2000} />
        </label>
      )}
      <FormStatus error={error} done={done} />
      <div className="row-actions">
        <button type="submit" className="button button-primary" disabled={busy || done !== undefined}>
          {busy ? 'Saving…' : action === 'assign' ? 'Assign' : action === 'split' ? 'Split' : 'Dismiss'}
        </button>
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}
