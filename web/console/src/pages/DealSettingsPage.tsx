// Create a deal, or edit one's name, description and currency (PUT /deals/deal/{dealId}), its
// payment settings (PaymentSettingsForm) and its four-eyes rules (FourEyesForm).
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, consoleApi } from '../lib/api.ts';
import { DealHeader } from '../components/DealHeader.tsx';
import { navigate, useLoad, useSubmission } from '../../../kit/hooks.ts';
import { PaymentSettingsForm } from '../components/PaymentSettingsForm.tsx';
import { DealPaymentLines } from '../components/DealPaymentLines.tsx';
import { FourEyesForm } from '../components/FourEyesForm.tsx';
import { ErrorState, FormStatus, Spinner } from '../components/ui.tsx';
import { currencyOptions as currencies } from '../lib/currencies.ts';
import { useRoleGate } from '../lib/who.ts';

const ID = /^[A-Za-z0-9._:@-]{1,128}$/;
const slug = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 64);

export function DealSettingsPage({ dealId }: { dealId: string | undefined }) {
  const [deal, reload] = useLoad(() => (dealId ? consoleApi.dealRecord(dealId) : Promise.resolve(undefined)), [dealId]);
  const [id, setId] = useState('');
  const [idTouched, setIdTouched] = useState(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [currency, setCurrency] = useState('');
  const { busy, error, done, run, refuse } = useSubmission();
  const saveGate = useRoleGate('operator');

  useEffect(() => {
    if (deal.status !== 'ready' || !deal.value) return;
    setName(deal.value.name);
    setDescription(deal.value.description ?? '');
    setCurrency(deal.value.currency ?? '');
  }, [deal]);

  if (deal.status === 'loading') return <Spinner />;
  if (deal.status === 'error') return <ErrorState error={deal.error} retry={reload} />;
  const creating = dealId === undefined;
  const targetId = creating ? (idTouched ? id : slug(name)) : dealId;
  const idProblem = creating && targetId !== '' && !ID.test(targetId) ? 'Use 1–128 letters, digits, ".", "_", ":", "@" or "-".' : undefined;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!name.trim()) return refuse('Give the deal a name.');
    if (!targetId || idProblem) return refuse(idProblem ?? 'Give the deal an id.');
    await run(async () => {
      if (creating) {
        // PUT creates or updates: make sure an existing deal is not overwritten by accident.
        const exists = await consoleApi.dealRecord(targetId).then(
          () => true,
          (e) => (e instanceof ApiError && e.status === 404 ? false : Promise.reject(e)),
        );
        if (exists) return refuse(`A deal with the id “${targetId}” already exists. Choose another id.`);
      }
      await consoleApi.putDeal(targetId, { name: name.trim(), description: description.trim() || null, currency: currency || null });
      if (!creating) return 'Saved.';
      navigate('deals', targetId, 'workflow');
    });
  }

  return (
    <section aria-labelledby={creating ? 'deal-form-title' : undefined}>
      {creating ? (
        <div className="page-head">
          <div>
            <nav className="crumbs" aria-label="Breadcrumb">
              <a href="#/">Deals</a> <span aria-hidden="true">/</span>
            </nav>
            <h1 id="deal-form-title">New deal</h1>
          </div>
        </div>
      ) : (
        <DealHeader dealId={dealId} name={deal.value?.name} view="settings" />
      )}
      <form className="form-card" onSubmit={submit} noValidate>
        {!creating && <h2>Settings</h2>}
        <label className="field">
          <span className="field-label">Name</span>
          <input name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} required />
        </label>
        <label className="field">
          <span className="field-label">Deal id {creating ? '(used in URLs and the API; cannot change later)' : ''}</span>
          <input
            name="dealId"
            value={targetId}
            readOnly={!creating}
            aria-invalid={idProblem ? true : undefined}
            onChange={(e) => {
              setIdTouched(true);
              setId(e.target.value.trim());
            }}
          />
          {idProblem && <span className="field-error">{idProblem}</span>}
        </label>
        <label className="field">
          <span className="field-label">Description</span>
          <textarea name="description" rows={3} value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Currency (the default for commitments without one)</span>
          <select name="currency" value={currency} onChange={(e) => setCurrency(e.target.value)}>
            <option value="">None</option>
            {currencies.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <FormStatus error={error} done={done} />
        <div className="row-actions">
          <button type="submit" className="button button-primary" disabled={busy} {...saveGate}>
            {busy ? 'Saving…' : creating ? 'Create deal and set up its workflow' : 'Save'}
          </button>
          {!creating && (
            <a className="button" href={`#/deals/${encodeURIComponent(dealId)}/workflow`}>
              Edit the workflow
            </a>
          )}
        </div>
      </form>
      {!creating && <PaymentSettingsForm dealId={dealId} />}
      {!creating && <FourEyesForm dealId={dealId} />}
      {!creating && <DealPaymentLines dealId={dealId} />}
    </section>
  );
}
