// The reconciliation queue: statement lines by status and deal (GET /payments/lines), and the staff
// decisions on a queued line: assign it to an investor, split it across investors, or dismiss it
// with a reason. Amounts stay decimal text end to end (the split's sum is checked with big.js, as
// the service checks it).
import { useEffect, useState } from 'react';
import { consoleApi, type PaymentLine, type Query } from '../lib/api.ts';
import { formatMoney } from '../lib/format.ts';
import { useDebounced, useLoad } from '../lib/hooks.ts';
import { Pager } from '../components/Pager.tsx';
import { Badge, Empty, Pending, When } from '../components/ui.tsx';
import { DecisionForm } from '../components/DecisionForm.tsx';
import { StatementDrop, StatementSummary, type StatementOutcome } from '../components/StatementDrop.tsx';
import { useHashQuery } from '../lib/hooks.ts';

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
  outcome === 'matched' ? 'green' : outcome === 'partial' ? 'amber' : outcome === 'overpaid' || outcome === 'wrong-currency' || outcome === 'after-completion' ? 'red' : 'neutral';

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
