// Checks before money: the sanctions lists investors are screened against, the review queue of hits,
// the KYC documents to review, and the investors' category statements and KYC levels to renew. Someone
// with the approver role (or an admin) confirms a hit, which keeps the investor out of the steps that
// take money, or dismisses it as a false positive with a reason; a decision is final. Others see
// the queue and who decided what.
import { type FormEvent, useState } from 'react';
import { useLoad } from '../../../kit/hooks.ts';
import { CategoryRenewals } from '../components/CategoryRenewals.tsx';
import { KycRenewals } from '../components/KycRenewals.tsx';
import { KycReviews } from '../components/KycReviews.tsx';
import { PagedTable } from '../components/PagedTable.tsx';
import { Person } from '../components/Person.tsx';
import { Badge, FormStatus, When } from '../components/ui.tsx';
import { consoleApi, describeError, type SanctionsHit } from '../lib/api.ts';
import { useMay } from '../lib/who.ts';
import './ChecksPage.css';

const sourceNames = { eu: 'EU', uk: 'UK', ofac: 'OFAC', un: 'UN' } as const;
const statusTone = { open: 'amber', confirmed: 'red', dismissed: 'neutral' } as const;

export function ChecksPage() {
  const mayDecide = useMay('approver');
  const [status, setStatus] = useState('open');
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  const [lists] = useLoad(() => consoleApi.sanctionsLists(), [version]);
  const [hits, reload] = useLoad(() => consoleApi.sanctionsHits(status, page), [status, page, version]);
  const [dismissing, setDismissing] = useState<string>();
  const [notice, setNotice] = useState<string>();

  async function decide(hit: SanctionsHit, decision: 'confirm' | 'dismiss', reason?: string) {
    try {
      await consoleApi.decideHit(hit.id, decision, reason);
      setNotice(decision === 'confirm' ? `${hit.investorName} stays blocked from steps that take money.` : `The hit on ${hit.investorName} is dismissed.`);
      setDismissing(undefined);
      setVersion((v) => v + 1);
    } catch (error) {
      setNotice(`Not decided: ${describeError(error)}`);
    }
  }

  const current = lists.status === 'ready' ? lists.value.filter((l) => l.current) : [];
  return (
    <section aria-labelledby="checks-title">
      <div className="page-head">
        <div>
          <h1 id="checks-title">Sanctions checks</h1>
          <p className="muted" data-testid="lists-screened">
            {lists.status !== 'ready'
              ? '\u00a0'
              : current.length === 0
                ? 'No list loaded yet: an admin loads one with dealflow sanctions load FILE, or POST /sanctions/lists.'
                : `Screened against ${current.map((l) => `${sourceNames[l.source]} (${l.entryCount.toLocaleString('en-GB')} entries)`).join(', ')}.`}
          </p>
        </div>
      </div>
      <div className="toolbar">
        <label className="inline-field">
          <span>Hits</span>
          <select value={status} onChange={(e) => (setStatus(e.target.value), setPage(1))}>
            <option value="open">Open</option>
            <option value="confirmed">Confirmed</option>
            <option value="dismissed">Dismissed</option>
            <option value="all">All</option>
          </select>
        </label>
      </div>
      {notice && (
        <div className="toast" role="status">
          {notice}
        </div>
      )}
      <PagedTable
        list={hits}
        retry={reload}
        empty={{ title: status === 'open' ? 'No hit waits for a decision' : 'No hits' }}
        label="Sanctions hits"
        className="checks-table"
        page={page}
        onPage={setPage}
        head={
          <tr>
            <th scope="col">Investor</th>
            <th scope="col">Listed as</th>
            <th scope="col" className="num">
              Score
            </th>
            <th scope="col">Decision</th>
          </tr>
        }
        row={(hit) => (
          <tr key={hit.id} data-hit-id={hit.id}>
            <td data-label="Investor">
              <a href={`#/investors/${encodeURIComponent(hit.investorId)}`}>{hit.investorName}</a>
              <div className="muted small">
                found <When iso={hit.createdAt} />
              </div>
            </td>
            <td data-label="Listed as">
              {hit.matchedName}
              <div className="muted small">
                {sourceNames[hit.source]} entry {hit.sourceId}
                {!hit.listed && ' · no longer listed'}
              </div>
            </td>
            <td className="num" data-label="Score">
              {hit.score}
            </td>
            <td data-label="Decision">
              {hit.status !== 'open' ? (
                <>
                  <Badge tone={statusTone[hit.status]}>{hit.status}</Badge>
                  <div className="muted small">
                    {hit.decidedBy && (
                      <>
                        by <Person id={hit.decidedBy} />
                      </>
                    )}{' '}
                    {hit.decidedAt && <When iso={hit.decidedAt} />}
                    {hit.reason && <div>“{hit.reason}”</div>}
                  </div>
                </>
              ) : !mayDecide ? (
                <span className="muted small">An approver decides</span>
              ) : dismissing === hit.id ? (
                <DismissForm hit={hit} onDismiss={(reason) => decide(hit, 'dismiss', reason)} onCancel={() => setDismissing(undefined)} />
              ) : (
                <div className="decision-buttons">
                  <button type="button" className="button" onClick={() => void decide(hit, 'confirm')}>
                    Confirm<span className="visually-hidden"> the hit on {hit.investorName}</span>
                  </button>
                  <button type="button" className="button" onClick={() => setDismissing(hit.id)}>
                    Dismiss<span className="visually-hidden"> the hit on {hit.investorName}</span>
                  </button>
                </div>
              )}
            </td>
          </tr>
        )}
      />
      <KycReviews />
      <CategoryRenewals />
      <KycRenewals />
    </section>
  );
}

function DismissForm({ hit, onDismiss, onCancel }: { hit: SanctionsHit; onDismiss: (reason: string) => Promise<void>; onCancel: () => void }) {
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (reason.trim() === '') return setProblem('Say why this is not the listed person.');
    void onDismiss(reason.trim());
  };
  return (
    <form className="dismiss-form" onSubmit={submit} noValidate>
      <label className="field">
        <span className="field-label">Why is {hit.investorName} not the listed person?</span>
        <textarea rows={2} value={reason} onChange={(e) => setReason(e.target.value)} aria-invalid={problem ? true : undefined} />
      </label>
      <FormStatus error={problem} />
      <div className="decision-buttons">
        <button type="submit" className="button button-primary">
          Dismiss as a false positive
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
