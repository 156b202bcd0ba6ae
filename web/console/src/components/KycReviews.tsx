// KYC documents waiting for a decision, oldest first: staff (operator or above) open the file, accept
// it, or ask the investor for another with a reason the investor reads in the portal. Accepting the
// last of a deal's required documents gives the investor the deal's KYC level.
import { type FormEvent, useState } from 'react';
import { useLoad } from '../../../kit/hooks.ts';
import { consoleApi, describeError, type KycReview } from '../lib/api.ts';
import { useMay } from '../lib/who.ts';
import { PagedTable } from './PagedTable.tsx';
import { FormStatus, When } from './ui.tsx';

export const kycKindNames: Record<string, string> = {
  identity: 'Identity document',
  'proof-of-address': 'Proof of address',
  'register-extract': 'Register extract',
  'beneficial-owners': 'Beneficial owners',
  'category-evidence': 'Category certificate',
};

export function KycReviews() {
  const mayDecide = useMay('operator');
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  const [list, reload] = useLoad(() => consoleApi.kycReviews(page), [page, version]);
  const [rejecting, setRejecting] = useState<string>();
  const [notice, setNotice] = useState<string>();

  async function decide(doc: KycReview, decision: 'accept' | 'reject', reason?: string) {
    try {
      await consoleApi.decideKycDocument(doc, decision, reason);
      setNotice(
        decision === 'accept'
          ? `${kycKindNames[doc.kind]} of ${doc.investorName} accepted.`
          : `${doc.investorName} is asked for another ${kycKindNames[doc.kind]?.toLowerCase()}.`,
      );
      setRejecting(undefined);
      setVersion((v) => v + 1);
    } catch (error) {
      setNotice(`Not decided: ${describeError(error)}`);
    }
  }

  return (
    <section aria-labelledby="kyc-reviews-title" className="renewals">
      <h2 id="kyc-reviews-title">KYC documents to review</h2>
      <p className="muted">Uploaded by investors in the portal. Accept each, or ask for another with a reason the investor reads.</p>
      {notice && (
        <div className="toast" role="status">
          {notice}
        </div>
      )}
      <PagedTable
        list={list}
        retry={reload}
        empty={{ title: 'No KYC document waits for a decision' }}
        label="KYC documents to review, oldest first"
        className="kyc-reviews-table"
        page={page}
        onPage={setPage}
        head={
          <tr>
            <th scope="col">Investor</th>
            <th scope="col">Document</th>
            <th scope="col">Decision</th>
          </tr>
        }
        row={(doc) => (
          <tr key={doc.id} data-kyc-document={doc.id}>
            <td data-label="Investor">
              <a href={`#/investors/${encodeURIComponent(doc.investorUserId)}`}>{doc.investorName}</a>
              <div className="muted small">deal {doc.dealId}</div>
            </td>
            <td data-label="Document">
              <button type="button" className="link-button" onClick={() => void consoleApi.downloadKycDocument(doc)}>
                {kycKindNames[doc.kind] ?? doc.kind}
              </button>
              <div className="muted small">
                {doc.fileName}, uploaded <When iso={doc.uploadedAt} />
              </div>
            </td>
            <td data-label="Decision">
              {!mayDecide ? (
                <span className="muted small">An operator decides</span>
              ) : rejecting === doc.id ? (
                <RejectForm doc={doc} onReject={(reason) => decide(doc, 'reject', reason)} onCancel={() => setRejecting(undefined)} />
              ) : (
                <div className="decision-buttons">
                  <button type="button" className="button" onClick={() => void decide(doc, 'accept')}>
                    Accept
                    <span className="visually-hidden">
                      {' '}
                      the {kycKindNames[doc.kind]?.toLowerCase()} of {doc.investorName}
                    </span>
                  </button>
                  <button type="button" className="button" onClick={() => setRejecting(doc.id)}>
                    Ask for another
                    <span className="visually-hidden">
                      {' '}
                      {kycKindNames[doc.kind]?.toLowerCase()} of {doc.investorName}
                    </span>
                  </button>
                </div>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}

function RejectForm({ doc, onReject, onCancel }: { doc: KycReview; onReject: (reason: string) => Promise<void>; onCancel: () => void }) {
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (reason.trim() === '') return setProblem('Say what is wrong: the investor reads it.');
    void onReject(reason.trim());
  };
  return (
    <form className="dismiss-form" onSubmit={submit} noValidate>
      <label className="field">
        <span className="field-label">What should {doc.investorName} send instead?</span>
        <textarea rows={2} value={reason} onChange={(e) => setReason(e.target.value)} aria-invalid={problem ? true : undefined} />
      </label>
      <FormStatus error={problem} />
      <div className="decision-buttons">
        <button type="submit" className="button button-primary">
          Ask for another
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
