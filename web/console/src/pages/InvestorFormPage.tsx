// Create or edit one investor of the directory: name, e-mail, KYC level, classes, status.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, consoleApi, type InvestorRecord } from '../lib/api.ts';
import { navigate, useLoad, useSubmission } from '../../../kit/hooks.ts';
import { fromRecord, investorProblems, toRecord, type InvestorInput } from '../lib/investor-record.ts';
import { ErrorState, FormStatus, Spinner } from '../components/ui.tsx';
import { PortalInviteDialog } from '../components/PortalInviteDialog.tsx';
import { KycChecks } from '../components/KycChecks.tsx';
import { useMay } from '../lib/who.ts';

const blank: InvestorInput = { id: '', forename: '', surname: '', email: '', kycCheckLevel: '', classifications: '', status: 'active' };

export function InvestorFormPage({ investorUserId }: { investorUserId: string | undefined }) {
  const [existing, reload] = useLoad(() => (investorUserId ? consoleApi.getInvestor(investorUserId) : Promise.resolve(undefined)), [investorUserId]);
  const mayStart = useMay('operator');
  if (existing.status === 'loading') return <Spinner />;
  if (existing.status === 'error') return <ErrorState error={existing.error} retry={reload} />;
  return (
    <>
      {/* A KYC result that raised the level starts the form afresh from the record, so a save cannot put the old level back. */}
      <InvestorForm key={`${investorUserId ?? 'new'}:${existing.value?.kycCheckLevel ?? ''}`} investorUserId={investorUserId} existing={existing.value} />
      {investorUserId && existing.value && <KycChecks investorUserId={investorUserId} canStart={mayStart} onDecided={reload} />}
    </>
  );
}

function InvestorForm({ investorUserId, existing }: { investorUserId: string | undefined; existing: InvestorRecord | undefined }) {
  const [input, setInput] = useState<InvestorInput>(existing && investorUserId ? fromRecord(investorUserId, existing) : blank);
  const [touched, setTouched] = useState(false);
  const { busy, error, done, run, refuse, clear } = useSubmission();
  const creating = investorUserId === undefined;
  const [inviting, setInviting] = useState(false);
  const problems = investorProblems(input);
  const shown = touched ? problems : {};
  // What was said about the values sent no longer describes the values changed since.
  useEffect(clear, [input, clear]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (Object.keys(problems).length > 0) return;
    await run(async () => {
      if (creating) {
        const taken = await consoleApi.getInvestor(input.id).then(
          () => true,
          (e) => (e instanceof ApiError && e.status === 404 ? false : Promise.reject(e)),
        );
        if (taken) return refuse(`An investor with the id “${input.id}” already exists. Open it from the directory to edit it.`);
      }
      await consoleApi.putInvestor(input.id, toRecord(input, existing));
      if (!creating) return 'Saved.';
      navigate('investors', input.id);
    });
  }

  const field = (key: keyof InvestorInput, label: string, props: Record<string, unknown> = {}) => (
    <label className="field">
      <span className="field-label">{label}</span>
      <input
        name={key}
        value={input[key]}
        aria-invalid={shown[key] ? true : undefined}
        onChange={(e) => setInput({ ...input, [key]: e.target.value })}
        {...props}
      />
      {shown[key] && <span className="field-error">Enter {shown[key]}.</span>}
    </label>
  );

  return (
    <section aria-labelledby="investor-form-title">
      <div className="page-head">
        <div>
          <nav className="crumbs" aria-label="Breadcrumb">
            <a href="#/investors">Investors</a> <span aria-hidden="true">/</span>
          </nav>
          <h1 id="investor-form-title">{creating ? 'New investor' : existing?.contact.fullName}</h1>
        </div>
        {!creating && (
          <button type="button" className="button" onClick={() => setInviting(true)}>
            Invite to the portal…
          </button>
        )}
      </div>
      {inviting && investorUserId && (
        <PortalInviteDialog investors={[{ investorUserId, fullName: existing?.contact.fullName ?? investorUserId }]} onClose={() => setInviting(false)} />
      )}
      <form className="form-card" onSubmit={submit} noValidate>
        {field('id', creating ? 'Investor id (their user id on the platform; cannot change later)' : 'Investor id', creating ? {} : { readOnly: true })}
        <div className="field-pair">
          {field('forename', 'First name')}
          {field('surname', 'Last name')}
        </div>
        {field('email', 'E-mail', { type: 'email' })}
        <div className="field-pair">
          {field('kycCheckLevel', 'KYC level', { inputMode: 'numeric' })}
          <label className="field">
            <span className="field-label">Status</span>
            <select name="status" value={input.status} onChange={(e) => setInput({ ...input, status: e.target.value })}>
              <option value="active">active</option>
              <option value="inactive">inactive</option>
              <option value="suspended">suspended</option>
            </select>
          </label>
        </div>
        {field('classifications', 'Classifications (comma-separated, e.g. Professional, Sophisticated)')}
        <FormStatus error={error} done={done} />
        <div className="row-actions">
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Saving…' : creating ? 'Create investor' : 'Save'}
          </button>
          <a className="button" href="#/investors">
            Back to the directory
          </a>
        </div>
      </form>
    </section>
  );
}
