// A deal's payment settings (PUT /deals/deal/{dealId}/payment-settings): the step a matched bank
// payment moves the investor to, the fields it fills and reads, and the asset and price per unit
// booked when an investor completes; and the bank account investors pay into (beneficiary, IBAN,
// BIC), which the investor portal shows with the EPC QR code. Shown on the deal's settings page.
// A field the workflow does not have is never pre-filled (a deal never saved gets no default key
// its workflow lacks), is flagged beside its picker, and the save asks before keeping it.
import { StepOptions } from './SelectOptions.tsx';
import { useEffect, useState, type FormEvent } from 'react';
import { api, consoleApi, isHeld, type PaymentSettingsBody } from '../lib/api.ts';
import { useLoad, useSubmission } from '../../../kit/hooks.ts';
import { ErrorState, FormStatus, Spinner } from './ui.tsx';
import { fieldLabel } from '../lib/format.ts';

const DECIMAL = /^\d{1,15}(\.\d{1,10})?$/;
type Values = {
  paymentStepId: string;
  amountFieldKey: string;
  dateFieldKey: string;
  commitmentFieldKey: string;
  currencyFieldKey: string;
  assetId: string;
  pricePerUnit: string;
  unitDecimals: string;
  beneficiaryName: string;
  iban: string;
  bic: string;
};

/** An IBAN's check digits hold (ISO 13616: the rearranged number modulo 97 is 1); spaces ignored. */
export function validIban(text: string): boolean {
  const iban = text.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest === 1;
}
const BIC = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

export function PaymentSettingsForm({ dealId }: { dealId: string }) {
  const [loaded, reload] = useLoad(() => Promise.all([consoleApi.paymentSettings(dealId), api.workflow(dealId).catch(() => undefined)]), [dealId]);
  const [v, setV] = useState<Values>();
  const [confirming, setConfirming] = useState(false);
  const { busy, error, done, run, refuse, clear } = useSubmission();

  useEffect(() => {
    if (loaded.status !== 'ready') return;
    const [s, workflow] = loaded.value;
    // Never saved: the service's defaults (committed_amount, currency) are offered only when the
    // workflow has them.
    const keys = new Set(workflow?.steps.flatMap((step) => step.stepFields.map((f) => f.fieldKey)) ?? []);
    const fresh = Date.parse(s.updatedAt) === 0;
    const offered = (key: string | null) => (key && (!fresh || keys.has(key)) ? key : '');
    setV({
      paymentStepId: s.paymentStepId ?? '',
      amountFieldKey: s.amountFieldKey ?? '',
      dateFieldKey: s.dateFieldKey ?? '',
      commitmentFieldKey: offered(s.commitmentFieldKey),
      currencyFieldKey: offered(s.currencyFieldKey),
      assetId: s.assetId === null ? '' : String(s.assetId),
      pricePerUnit: s.pricePerUnit ?? '',
      unitDecimals: String(s.unitDecimals),
      beneficiaryName: s.beneficiaryName ?? '',
      iban: s.iban ?? '',
      bic: s.bic ?? '',
    });
  }, [loaded]);

  if (loaded.status === 'loading' || (loaded.status === 'ready' && !v)) return <Spinner label="Loading the payment settings…" />;
  if (loaded.status === 'error') return <ErrorState error={loaded.error} retry={reload} />;
  const values = v!;
  const steps = loaded.value[1]?.steps ?? [];
  const workflowKeys = new Set(steps.flatMap((s) => s.stepFields.map((f) => f.fieldKey)));
  const keyLabels: [keyof Values, string][] = [
    ['amountFieldKey', 'the amount'],
    ['dateFieldKey', 'the value date'],
    ['commitmentFieldKey', 'the commitment'],
    ['currencyFieldKey', 'its currency'],
  ];
  const strangers = keyLabels.filter(([key]) => values[key] && !workflowKeys.has(values[key]));

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (values.assetId && !/^[1-9]\d{0,14}$/.test(values.assetId)) return refuse('The asset id is a whole number, or empty.');
    if (values.pricePerUnit && !DECIMAL.test(values.pricePerUnit)) return refuse('Enter the price per unit as a decimal, e.g. 12.50, or leave it empty.');
    if (!/^\d{1,2}$/.test(values.unitDecimals) || Number(values.unitDecimals) > 12) return refuse('Unit decimals are a whole number from 0 to 12.');
    if (!values.commitmentFieldKey.trim()) return refuse('Choose the field that holds the commitment.');
    if (strangers.length > 0 && !confirming) {
      setConfirming(true);
      return refuse(undefined);
    }
    if (values.beneficiaryName.trim().length > 70) return refuse('The beneficiary name has at most 70 characters (the limit of a SEPA transfer).');
    if (values.iban.trim() && !validIban(values.iban))
      return refuse('This IBAN is not valid: check the country code, the check digits and the account number.');
    if (values.bic.trim() && !BIC.test(values.bic.trim().toUpperCase())) return refuse('A BIC has 8 or 11 letters and digits, e.g. DEUTDEFF or DEUTDEFF500.');
    const body: PaymentSettingsBody = {
      paymentStepId: values.paymentStepId || null,
      amountFieldKey: values.amountFieldKey.trim() || null,
      dateFieldKey: values.dateFieldKey.trim() || null,
      commitmentFieldKey: values.commitmentFieldKey.trim(),
      currencyFieldKey: values.currencyFieldKey.trim() || null,
      assetId: values.assetId ? Number(values.assetId) : null,
      pricePerUnit: values.pricePerUnit || null,
      unitDecimals: Number(values.unitDecimals),
      beneficiaryName: values.beneficiaryName.trim() || null,
      iban: values.iban.replace(/\s+/g, '').toUpperCase() || null,
      bic: values.bic.trim().toUpperCase() || null,
    };
    await run(async () => {
      const saved = await consoleApi.putPaymentSettings(dealId, body);
      setConfirming(false);
      return isHeld(saved) ? 'The IBAN change waits for a second admin: nothing is saved until they approve it in the Inbox.' : 'Payment settings saved.';
    });
  }

  const set = (key: keyof Values) => (e: { target: { value: string } }) => (clear(), setConfirming(false), setV({ ...values, [key]: e.target.value }));
  // Pickers of the workflow's fields (by label, with the key), the kind the setting needs listed
  // first; a key saved earlier that the workflow no longer has stays selectable, marked so.
  const fields = steps.flatMap((s) => s.stepFields.map((f) => ({ ...f, stepLabel: s.label })));
  const keyField = (key: keyof Values, label: string, kind: string, optional: boolean) => {
    const seen = new Set<string>();
    const choices = [...fields.filter((f) => f.kind === kind), ...fields.filter((f) => f.kind !== kind)].filter(
      (f) => !seen.has(f.fieldKey) && seen.add(f.fieldKey),
    );
    const current = values[key];
    const stranger = current !== '' && !workflowKeys.has(current);
    return (
      <label className="field">
        <span className="field-label">{label}</span>
        <select name={key} value={current} onChange={set(key)} aria-describedby={stranger ? `${key}-stranger` : undefined} aria-invalid={stranger || undefined}>
          <option value="">{optional ? '— none —' : '— choose a field —'}</option>
          {current && !seen.has(current) && <option value={current}>{current} (not in the workflow)</option>}
          {choices.map((f) => (
            <option key={f.fieldKey} value={f.fieldKey}>
              {fieldLabel(f)} ({f.fieldKey}, {f.kind ?? 'text'}, {f.stepLabel})
            </option>
          ))}
        </select>
        {stranger && (
          <span className="field-error" id={`${key}-stranger`}>
            {current} is not a field of this workflow: nothing is read from or written to it.
          </span>
        )}
      </label>
    );
  };

  return (
    <form className="form-card" onSubmit={submit} noValidate aria-labelledby="payment-settings-title">
      <h2 id="payment-settings-title">Payments</h2>
      <p className="muted small">Bank statements: where a matched payment moves the investor, and what is booked when they complete.</p>
      <label className="field">
        <span className="field-label">Payment step (a matched payment moves the investor here)</span>
        <select name="paymentStepId" value={values.paymentStepId} onChange={set('paymentStepId')}>
          <option value="">None: matched payments wait in the queue</option>
          <StepOptions steps={steps} />
        </select>
      </label>
      <div className="field-pair">
        {keyField('amountFieldKey', 'Field that receives the amount', 'amount', true)}
        {keyField('dateFieldKey', 'Field that receives the value date', 'date', true)}
      </div>
      <div className="field-pair">
        {keyField('commitmentFieldKey', 'Field that holds the commitment', 'amount', false)}
        {keyField('currencyFieldKey', 'Field that holds its currency', 'currency', true)}
      </div>
      <div className="field-pair">
        <label className="field">
          <span className="field-label">Asset booked on completion (id)</span>
          <input name="assetId" inputMode="numeric" value={values.assetId} onChange={set('assetId')} />
        </label>
        <label className="field">
          <span className="field-label">Price per unit</span>
          <input name="pricePerUnit" inputMode="decimal" value={values.pricePerUnit} onChange={set('pricePerUnit')} />
        </label>
      </div>
      <label className="field">
        <span className="field-label">Unit decimals (units must divide exactly to this precision)</span>
        <input name="unitDecimals" inputMode="numeric" value={values.unitDecimals} onChange={set('unitDecimals')} />
      </label>
      <fieldset className="sub">
        <legend>Bank account investors pay into</legend>
        <p className="muted small">
          Shown to investors in the portal with their amount due and payment reference, and as a QR code their banking app reads (euro deals).
        </p>
        <label className="field">
          <span className="field-label">Beneficiary name</span>
          <input name="beneficiaryName" maxLength={70} autoComplete="off" value={values.beneficiaryName} onChange={set('beneficiaryName')} />
        </label>
        <div className="field-pair">
          <label className="field">
            <span className="field-label">IBAN</span>
            <input name="iban" autoComplete="off" spellCheck={false} value={values.iban} onChange={set('iban')} />
          </label>
          <label className="field">
            <span className="field-label">BIC</span>
            <input name="bic" autoComplete="off" spellCheck={false} value={values.bic} onChange={set('bic')} />
          </label>
        </div>
      </fieldset>
      {confirming && strangers.length > 0 && (
        <p className="alert alert-warn" role="alert">
          {strangers.map(([key, what]) => `${values[key]} (${what})`).join(', ')} {strangers.length === 1 ? 'is' : 'are'} not in this deal's workflow: a matched
          payment would {strangers.some(([key]) => key === 'commitmentFieldKey') ? 'find no commitment and wait in the queue' : 'leave that field empty'}. Save
          anyway?
        </p>
      )}
      <FormStatus error={error} done={done} />
      <div className="row-actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Saving…' : confirming && strangers.length > 0 ? 'Save anyway' : 'Save payment settings'}
        </button>
        {confirming && strangers.length > 0 && (
          <button type="button" className="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
