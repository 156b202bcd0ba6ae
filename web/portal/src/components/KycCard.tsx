// Identity checks and the investor's category in one deal: the documents the deal asks for, each
// with where it stands (to upload, being checked, accepted, another one needed with our team's
// reason) and a file picker; and the categories the deal requires, with the statement to read and
// confirm. A category that needs a certificate asks for it as one more upload.
import { type FormEvent, useState } from 'react';
import { useLoad, useSubmission } from '../../../kit/hooks.ts';
import { type KycStatus, portalApi } from '../lib/api.ts';
import { m } from '../messages.ts';
import { FormStatus } from './ui.tsx';
import './KycCard.css';

const accept = 'application/pdf,image/jpeg,image/png';
const calendarDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
/** A calendar date (YYYY-MM-DD) in the reader's words. */
const formatDate = (day: string) => calendarDay.format(new Date(`${day}T00:00:00Z`));

export function KycCard({ dealId, investorUserId, onChange }: { dealId: string; investorUserId: string; onChange: () => void }) {
  const [status, reload] = useLoad(() => portalApi.kyc(dealId, investorUserId), [dealId, investorUserId]);
  if (status.status !== 'ready') return null;
  const s = status.value;
  if (!s.settings && s.categories.length === 0) return null;
  const changed = () => {
    reload();
    onChange();
  };
  return (
    <section className="card kyc-card" aria-labelledby="kyc-title">
      <h2 id="kyc-title">{m.kycTitle}</h2>
      {s.settings && <Requests status={s} onUploaded={changed} />}
      {s.categories.length > 0 && <Category status={s} onConfirmed={changed} />}
    </section>
  );
}

function Requests({ status, onUploaded }: { status: KycStatus; onUploaded: () => void }) {
  if (status.satisfied && status.level) return <p data-testid="kyc-done">{m.kycDone(status.level.level, formatDate(status.level.expiresOn))}</p>;
  if (!status.open) return <p className="muted">{m.kycLater}</p>;
  return (
    <>
      {status.level?.standing === 'expired' && <p className="alert alert-warn">{m.kycExpired(formatDate(status.level.expiresOn))}</p>}
      <p>{m.kycExplain}</p>
      <ul className="kyc-requests">
        {status.requests.map((r) => (
          <li key={r.kind} data-kind={r.kind}>
            <div className="kyc-request-head">
              <strong>{m.kycKinds[r.kind] ?? r.kind}</strong>
              <span className={`kyc-state kyc-state-${r.state}`}>{m.kycStates[r.state]}</span>
            </div>
            {r.state === 'rejected' && r.reason && <p className="kyc-reason">{m.kycReason(r.reason)}</p>}
            {(r.state === 'requested' || r.state === 'rejected') && <Upload status={status} kind={r.kind} onUploaded={onUploaded} />}
          </li>
        ))}
      </ul>
    </>
  );
}

function Upload({ status, kind, onUploaded }: { status: KycStatus; kind: string; onUploaded: () => void }) {
  const { busy, error, done, run } = useSubmission();
  const id = `kyc-upload-${kind}`;
  return (
    <div className="kyc-upload">
      <label htmlFor={id} className="field-label">
        {m.kycUpload}
        <span className="sr-only">{m.kycUploadFor(m.kycKinds[kind] ?? kind)}</span>
      </label>
      <input
        id={id}
        type="file"
        accept={accept}
        disabled={busy}
        onChange={async (e) => {
          const file = e.target.files?.[0];
          if (!file) return;
          await run(async () => {
            await portalApi.uploadKyc(status.dealId, status.investorUserId, kind, file);
            onUploaded();
            return m.kycUploaded;
          });
        }}
      />
      {busy && <span className="muted small">{m.kycUploading}</span>}
      <FormStatus error={error} done={done} />
    </div>
  );
}

function Category({ status, onConfirmed }: { status: KycStatus; onConfirmed: () => void }) {
  const [chosen, setChosen] = useState(status.categories[0]?.category);
  const [agreed, setAgreed] = useState(false);
  const { busy, error, done, run } = useSubmission();
  const name = (category: string) => m.categoryNames[category] ?? category;
  const current = status.category;
  if (current && current.standing !== 'expired' && status.categories.some((c) => c.category === current.category)) {
    return (
      <div className="kyc-category">
        <h3>{m.categoryTitle}</h3>
        <p data-testid="category-done">{m.categoryCurrent(name(current.category), formatDate(current.expiresOn))}</p>
      </div>
    );
  }
  const waiting = status.confirmation && status.confirmation.needsReview && !status.confirmation.recorded ? status.confirmation : null;
  if (waiting) {
    const evidence = status.documents.filter((d) => d.kind === 'category-evidence').at(-1);
    const asked = !evidence || evidence.decision === 'rejected';
    return (
      <div className="kyc-category">
        <h3>{m.categoryTitle}</h3>
        <p>{m.categoryWaiting(name(waiting.category))}</p>
        {evidence?.decision === 'rejected' && evidence.reason && <p className="kyc-reason">{m.kycReason(evidence.reason)}</p>}
        {asked && <Upload status={status} kind="category-evidence" onUploaded={onConfirmed} />}
      </div>
    );
  }
  const offer = status.categories.find((c) => c.category === chosen);
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!offer || !agreed) return;
    await run(async () => {
      await portalApi.confirmCategory(status.dealId, status.investorUserId, offer.category);
      onConfirmed();
      return m.categoryConfirmed;
    });
  }
  return (
    <form className="kyc-category" onSubmit={submit} aria-labelledby="category-title">
      <h3 id="category-title">{m.categoryTitle}</h3>
      <p className="muted">{m.categoryExplain}</p>
      <fieldset>
        <legend>{m.categoryChoose}</legend>
        {status.categories.map((c) => (
          <label key={c.category} className="kyc-choice">
            <input type="radio" name="category" value={c.category} checked={chosen === c.category} onChange={() => (setChosen(c.category), setAgreed(false))} />
            {name(c.category)}
          </label>
        ))}
      </fieldset>
      {offer && (
        <>
          <h4>{m.categoryStatement}</h4>
          <blockquote className="kyc-statement" data-testid="category-statement">
            {offer.statementText}
          </blockquote>
          {offer.needsCertificate && <p className="muted small">{m.categoryNeedsCertificate}</p>}
          <label className="kyc-choice">
            <input type="checkbox" checked={agreed} onChange={(e) => setAgreed(e.target.checked)} />
            {m.categoryAgree}
          </label>
        </>
      )}
      <FormStatus error={error} done={done} persistent />
      <button type="submit" className="button button-primary button-wide" disabled={busy || !agreed}>
        {m.categoryConfirm}
      </button>
    </form>
  );
}
