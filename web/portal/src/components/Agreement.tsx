// The investor's subscription agreement in a deal: read the PDF filled with their details, confirm,
// and sign with their passkey (the service's options bind the PDF's hash); then the signed and,
// once our team countersigned it, the countersigned copy to download. Shown when the deal has a
// template, a step requires the agreement, or it is signed.
import { useState } from 'react';
import { useLoad, useSubmission } from '../../../kit/hooks.ts';
import { passkeySignIn } from '../../../kit/passkeys.ts';
import { formatDateTime } from '../../../kit/format.ts';
import { agreementHref, ApiError, portalApi, type Agreement as AgreementValue } from '../lib/api.ts';
import { describePasskeyError } from '../lib/passkeys.ts';
import { m } from '../messages.ts';
import { FormStatus } from './ui.tsx';
import './Agreement.css';

export function Agreement({ dealId, investorUserId, onSigned }: { dealId: string; investorUserId: string; onSigned: () => void }) {
  const [agreement, reload] = useLoad(() => portalApi.agreement(dealId, investorUserId), [dealId, investorUserId]);
  const [confirmed, setConfirmed] = useState(false);
  const { busy, error, run } = useSubmission();
  if (agreement.status !== 'ready') return null;
  const a: AgreementValue = agreement.value;
  if (!a.required && a.templateHash === null && a.state === 'to-sign') return null;
  const href = agreementHref(dealId, investorUserId);
  const signedAt = (role: 'investor' | 'countersigner') => formatDateTime(a.signatures.find((s) => s.role === role)?.signedAt ?? '');

  const sign = () =>
    run(async () => {
      try {
        await passkeySignIn(
          () => portalApi.signingOptions(dealId, investorUserId, a.contentHash),
          (response) => portalApi.sign(dealId, investorUserId, response),
        );
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) {
          reload();
          throw new Error(m.agreementChanged);
        }
        throw new Error(describePasskeyError(err));
      }
      setConfirmed(false);
      reload();
      onSigned();
    });

  return (
    <section className="card agreement" aria-labelledby="agreement-title" data-testid="agreement" data-state={a.state}>
      <h2 id="agreement-title">{m.agreementTitle}</h2>
      {a.state === 'to-sign' && (
        <>
          <p>{m.agreementToSign}</p>
          <p>
            <a href={href} download="subscription-agreement.pdf">
              {m.agreementOpen}
            </a>
          </p>
          <label className="confirm">
            <input type="checkbox" checked={confirmed} onChange={(e) => setConfirmed(e.target.checked)} />
            {m.agreementConfirm}
          </label>
          <button type="button" className="button button-primary" disabled={!confirmed || busy} onClick={sign}>
            {busy ? m.agreementSigning : m.agreementSign}
          </button>
        </>
      )}
      {a.state === 'signed' && (
        <>
          <p>{m.agreementSigned(signedAt('investor'))}</p>
          <a href={href} download="subscription-agreement-signed.pdf">
            {m.agreementDownloadSigned}
          </a>
        </>
      )}
      {a.state === 'countersigned' && (
        <>
          <p>{m.agreementCountersigned(signedAt('countersigner'))}</p>
          <a href={href} download="subscription-agreement-countersigned.pdf">
            {m.agreementDownloadCountersigned}
          </a>
        </>
      )}
      <FormStatus error={error} />
    </section>
  );
}
