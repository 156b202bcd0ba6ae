// The reconciliation queue: statement lines by status and deal (GET /payments/lines), with the
// names of the investor and deal a line points at, why a matched line still waits, and the likely
// investor of each queued credit (one click assigns it); and the staff decisions on a queued line:
// assign it to an investor chosen by name, split it across investors, or dismiss it with a reason.
// Amounts stay decimal text end to end (the split's sum is checked with big.js, as the service
// checks it).
import { PagedTable } from '../components/PagedTable.tsx';
import { DealOptions } from '../components/SelectOptions.tsx';
import { useEffect, useState } from 'react';
import { api, consoleApi, describeError, isHeld, type PaymentLine, type Query } from '../lib/api.ts';
import { formatMoney } from '../lib/format.ts';
import { useLoad } from '../../../kit/hooks.ts';
import { investorHref, lineDetail, reasonsShort } from '../lib/payment-lines.ts';
import { Badge, When } from '../components/ui.tsx';
import { DecisionForm } from '../components/DecisionForm.tsx';
import { StatementDrop, StatementSummary, type StatementOutcome } from '../components/StatementDrop.tsx';
import { useHashQuery } from '../../../kit/hooks.ts';
import { useRoleGate } from '../lib/who.ts';
import './PaymentsPage.css';

type LineStatus = NonNullable<Query<'listPaymentLines'>['status']>;

const statuses = [
  { value: 'queued', label: 'Queued' },
  { value: 'matched', label: 'Matched' },
  { value: 'dismissed', label: 'Dismissed' },
  { value: 'ignored', label: 'Not matched' },
  { value: '', label: 'Every line' },
] as const;
// after-completion: money for an investor who already completed or withdrew; recorded, the
// investor not moved, for staff to settle (refund, or assign elsewhere).
const outcomeTone = (outcome: string) =>
  outcome === 'matched'
    ? 'green'
    : outcome === 'partial'
      ? 'amber'
      : outcome === 'overpaid' || outcome === 'wrong-currency' || outcome === 'after-completion'
        ? 'red'
        : 'neutral';

export function PaymentsPage() {
  const [status, setStatus] = useState<LineStatus | ''>('queued');
  const [query] = useHashQuery();
  const [deal, setDeal] = useState(query.get('deal') ?? '');
  const [imported, setImported] = useState<StatementOutcome>();
  // A link from a deal (#/payments?deal=…) sets the deal filter; the address without one clears it.
  const linkedDeal = query.get('deal') ?? '';
  useEffect(() => {
    setDeal(linkedDeal);
    setPage(1);
  }, [linkedDeal]);
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState<PaymentLine>();
  const dealId = deal.trim();
  const [deals] = useLoad(() => api.deals(), []);
  const [oneClick, setOneClick] = useState<{ busy?: string; said?: string; error?: string }>({});
  // Payment decisions are the approver's (the service refuses them below it).
  const decideGate = useRoleGate('approver');
  async function assignFirst(line: PaymentLine) {
    const p = line.proposals![0]!;
    setOneClick({ busy: line.id });
    try {
      const decided = await consoleApi.assignLine(line.id, { dealId: p.dealId, investorUserId: p.investorUserId });
      setOneClick({
        said: isHeld(decided)
          ? `Assigning ${formatMoney(line.amount, line.currency)} to ${p.fullName} waits for a second approver (Inbox).`
          : decided.status === 'queued' && decided.advice
            ? `${formatMoney(line.amount, line.currency)} given to ${p.fullName}, still waiting: ${decided.advice.summary} ${decided.advice.action}`
            : `${formatMoney(line.amount, line.currency)} from ${line.debtorName ?? 'an unknown payer'} assigned to ${p.fullName}: ${decided.status}.`,
      });
      setVersion((v) => v + 1);
    } catch (error) {
      setOneClick({ error: describeError(error) });
    }
  }
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
      <StatementDrop
        onImported={(outcome) => {
          setImported(outcome);
          setStatus('queued');
          setPage(1);
          setVersion((v) => v + 1);
        }}
      />
      {imported && <StatementSummary outcome={imported} />}
      <div className="toolbar">
        <label className="inline-field">
          <span>Status</span>
          <select value={status} onChange={(e) => (setStatus(e.target.value as LineStatus | ''), setPage(1), setSelected(undefined))}>
            {statuses.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <label className="inline-field">
          <span>Deal</span>
          <select value={deal} onChange={(e) => (setDeal(e.target.value), setPage(1), setSelected(undefined))}>
            <option value="">Every deal</option>
            {deal && !(deals.status === 'ready' && deals.value.some((d) => d.id === deal)) && <option value={deal}>{deal}</option>}
            <DealOptions deals={deals} />
          </select>
        </label>
      </div>
      <div role="status" aria-live="polite" className="small">
        {oneClick.said && <p className="alert alert-ok">{oneClick.said}</p>}
        {oneClick.error && <p className="alert alert-error">{oneClick.error}</p>}
      </div>
      {selected && <DecisionForm key={selected.id} line={selected} onClose={() => setSelected(undefined)} onDecided={() => setVersion((v) => v + 1)} />}
      <PagedTable
        list={list}
        retry={reload}
        empty={{ title: status === 'queued' ? 'Nothing waits for a decision' : 'No lines' }}
        label="Statement lines"
        className="payments-table"
        page={page}
        onPage={setPage}
        head={
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
        }
        row={(line) => (
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
              {/* One block: on a phone the cell is its label and this, side by side. */}
              <div className="line-outcome">
                <Badge tone={outcomeTone(line.outcome)}>{line.outcome.replace(/-/g, ' ')}</Badge>
                {line.detail && <div className="muted small">{lineDetail(line)}</div>}
                {line.status === 'queued' && line.advice && (
                  <div className="small line-advice">
                    {line.advice.summary} <strong>{line.advice.action}</strong>
                  </div>
                )}
              </div>
            </td>
            <td data-label="Investor">
              {line.investorUserId ? (
                <a href={investorHref(line.dealId ?? '', line.investorUserId)}>{line.investorName ?? line.investorUserId}</a>
              ) : line.proposals?.[0] ? (
                <span>
                  Likely {line.proposals[0].fullName}
                  <span className="muted small"> ({reasonsShort(line.proposals[0])})</span>
                </span>
              ) : (
                <span className="muted">No investor yet</span>
              )}
              {line.dealId ? (
                <div className="muted small">{line.dealName ?? line.dealId}</div>
              ) : (
                !line.investorUserId && line.proposals?.[0] && <div className="muted small">{line.proposals[0].dealName}</div>
              )}
            </td>
            <td data-label="Decision">
              {line.status === 'queued' ? (
                <div className="decision-buttons">
                  {!line.investorUserId && line.proposals?.[0] && (
                    <button
                      type="button"
                      className="button button-primary"
                      disabled={oneClick.busy === line.id}
                      onClick={() => void assignFirst(line)}
                      {...decideGate}
                    >
                      Assign to {line.proposals[0].fullName}
                      <span className="visually-hidden">
                        {' '}
                        {formatMoney(line.amount, line.currency)} from {line.debtorName ?? 'an unknown payer'}
                      </span>
                    </button>
                  )}
                  <button type="button" className="button" aria-expanded={selected?.id === line.id} onClick={() => setSelected(line)} {...decideGate}>
                    Decide
                    <span className="visually-hidden">
                      {' '}
                      on {formatMoney(line.amount, line.currency)} from {line.debtorName ?? 'an unknown payer'}
                    </span>
                  </button>
                </div>
              ) : (
                <span className="muted small">{line.status}</span>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
