// A deal's subscription agreements in the console: the template (a PDF whose form fields are filled
// for each investor), and the agreements investors signed in the portal, each downloadable and, for
// an approver signed in with a passkey, countersigned with it (the options bind the signed PDF's hash).
import { type FormEvent, useState } from 'react';
import { useLoad } from '../../../kit/hooks.ts';
import { passkeySignIn } from '../../../kit/passkeys.ts';
import { consoleApi, describeError, type Agreement } from '../lib/api.ts';
import { describePasskeyError } from '../lib/staff.ts';
import { useRoleGate, useWho } from '../lib/who.ts';
import { TableRegion } from './PagedTable.tsx';
import { FormStatus, When } from './ui.tsx';

const STATE = { 'to-sign': 'To sign', signed: 'Signed, to countersign', countersigned: 'Countersigned' } as const;

export function Agreements({ dealId, onNotice }: { dealId: string; onNotice: (text: string) => void }) {
  const [version, setVersion] = useState(0);
  const [agreements] = useLoad(() => consoleApi.agreements(dealId), [dealId, version]);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const who = useWho();
  const approverGate = useRoleGate('approver');
  const gate = who?.via === 'key' ? { disabled: true as const, title: 'Countersigning needs a person signed in with a passkey' } : approverGate;

  async function countersign(a: Agreement) {
    setError(undefined);
    setBusy(a.investorUserId);
    try {
      await passkeySignIn(
        () => consoleApi.countersigningOptions(dealId, a.investorUserId, a.contentHash),
        (response) => consoleApi.countersign(dealId, a.investorUserId, response),
      );
      onNotice(`${a.investorName}'s agreement is countersigned.`);
      setVersion((v) => v + 1);
    } catch (e) {
      setError(describePasskeyError(e));
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <section className="agreements" aria-labelledby="agreements-title">
      <h2 id="agreements-title">Subscription agreements</h2>
      <TemplateForm dealId={dealId} onUploaded={(fields) => onNotice(`The agreement template is uploaded. Its form fields: ${fields.join(', ') || 'none'}.`)} />
      <FormStatus error={error} />
      {agreements.status === 'ready' && agreements.value.length === 0 && <p className="muted">No investor has signed yet.</p>}
      {agreements.status === 'ready' && agreements.value.length > 0 && (
        <TableRegion
          label="Signed agreements"
          className="agreements-table"
          head={
            <tr>
              <th scope="col">Investor</th>
              <th scope="col">State</th>
              <th scope="col">Signed</th>
              <th scope="col">Actions</th>
            </tr>
          }
        >
          {agreements.value.map((a) => (
            <tr key={a.investorUserId} data-investor={a.investorUserId}>
              <td data-label="Investor">{a.investorName}</td>
              <td data-label="State">{STATE[a.state]}</td>
              <td data-label="Signed">
                <ul className="plain-list small">
                  {a.signatures.map((s) => (
                    <li key={s.id}>
                      {s.role === 'investor' ? 'Investor' : 'Countersigned'}, <When iso={s.signedAt} />
                    </li>
                  ))}
                </ul>
              </td>
              <td data-label="Actions" className="agreement-actions">
                <button
                  type="button"
                  className="link-button"
                  onClick={() => consoleApi.downloadAgreement(dealId, a).catch((e: unknown) => setError(describeError(e)))}
                >
                  Download PDF<span className="visually-hidden"> of {a.investorName}'s agreement</span>
                </button>
                {a.state === 'signed' && (
                  <button type="button" className="button button-small" {...gate} disabled={gate.disabled || busy !== undefined} onClick={() => countersign(a)}>
                    {busy === a.investorUserId ? 'Countersigning…' : 'Countersign with passkey'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </TableRegion>
      )}
    </section>
  );
}

function TemplateForm({ dealId, onUploaded }: { dealId: string; onUploaded: (fields: string[]) => void }) {
  const [file, setFile] = useState<File>();
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const gate = useRoleGate('operator');
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!file) return;
    setState({ busy: true });
    try {
      const template = await consoleApi.uploadAgreementTemplate(dealId, file);
      (event.target as HTMLFormElement).reset();
      setFile(undefined);
      setState({ busy: false });
      onUploaded(template.fields);
    } catch (error) {
      setState({ busy: false, error: describeError(error) });
    }
  }
  return (
    <form className="form-card upload-form" onSubmit={submit} aria-labelledby="template-title">
      <h3 id="template-title">Agreement template</h3>
      <p className="muted small template-help">
        A PDF with form fields named investor_name, amount, currency, date, deal_name or a captured field's key (address_line1, …), filled for each investor.
        Without one, the agreement is a page made from the deal's text.
      </p>
      <label className="field">
        <span className="field-label">Template PDF</span>
        <input type="file" accept="application/pdf" required onChange={(e) => setFile(e.target.files?.[0])} />
      </label>
      <button type="submit" className="button button-primary" {...gate} disabled={gate.disabled || !file || state.busy}>
        {state.busy ? 'Uploading…' : 'Upload template'}
      </button>
      <FormStatus error={state.error} />
    </form>
  );
}
