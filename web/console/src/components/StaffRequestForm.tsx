// Staff file an edit request for an investor (one who asked by telephone or e-mail): a new amount
// for one of their moves, or withdrawal from the deal. The request then waits in the Inbox for a
// decision like one the investor filed, so the four-eyes rule holds for changes made on their behalf.
import { useState } from 'react';
import { api, type StepField, type Workflow, type WorkflowEvent } from '../lib/api.ts';
import { checkValue } from '../lib/field-values.ts';
import { fieldLabel, formatMoney } from '../lib/format.ts';
import { announceRequestsChanged, useSubmission } from '../../../kit/hooks.ts';
import { FieldInput } from './FieldInput.tsx';
import { FormStatus } from './ui.tsx';

type RequestType = 'Investment Amount' | 'Withdraw Investment';

/** The amount fields an event captures: its step's, else any step's field of that key (as the service reads them). */
function amountFields(event: WorkflowEvent, workflow: Workflow): StepField[] {
  const all = workflow.steps.flatMap((s) => s.stepFields);
  const own = workflow.steps.find((s) => s.id === event.toStepId)?.stepFields ?? [];
  const fields = own.filter((f) => f.kind === 'amount');
  for (const key of Object.keys(event.data ?? {})) {
    const field = own.find((f) => f.fieldKey === key) ?? all.find((f) => f.fieldKey === key);
    if (field?.kind === 'amount' && !fields.some((f) => f.fieldKey === key)) fields.push(field);
  }
  return fields;
}

export function StaffRequestForm({
  journey,
  workflow,
  dealCurrency,
  stepLabel,
  onFiled,
}: {
  journey: WorkflowEvent[];
  workflow: Workflow;
  dealCurrency: string | null;
  stepLabel: (id: string | null) => string;
  onFiled: () => void;
}) {
  const withAmounts = journey.filter((e) => amountFields(e, workflow).length > 0);
  const latest = journey.at(-1);
  const [open, setOpen] = useState(false);
  const [type, setType] = useState<RequestType>(withAmounts.length > 0 ? 'Investment Amount' : 'Withdraw Investment');
  const [eventId, setEventId] = useState(withAmounts.at(-1)?.id ?? '');
  const [values, setValues] = useState<Record<string, string>>({});
  const [reason, setReason] = useState('');
  const { busy, error, run } = useSubmission();
  if (!latest) return null;

  const event = type === 'Investment Amount' ? withAmounts.find((e) => e.id === eventId) : latest;
  const fields = event && type === 'Investment Amount' ? amountFields(event, workflow) : [];
  const problems = fields.map((f) => [f.fieldKey, values[f.fieldKey] ? checkValue(f, values[f.fieldKey]!) : undefined] as const).filter(([, p]) => p);
  const changed = fields.filter((f) => (values[f.fieldKey] ?? '') !== '' && values[f.fieldKey] !== event?.data?.[f.fieldKey]);
  const ready = !!event && reason.trim() !== '' && problems.length === 0 && (type === 'Withdraw Investment' || changed.length > 0);
  const currency = event?.data?.currency ?? dealCurrency;

  const submit = () =>
    run(async () => {
      if (!event) return;
      await api.requestEdit({
        workflowEventId: event.id,
        type,
        reason: reason.trim(),
        ...(type === 'Investment Amount' ? { newData: Object.fromEntries(changed.map((f) => [f.fieldKey, values[f.fieldKey]!])) } : {}),
      });
      setOpen(false);
      setValues({});
      setReason('');
      announceRequestsChanged();
      onFiled();
    });

  if (!open) {
    return (
      <button type="button" className="button" onClick={() => setOpen(true)}>
        File a request for this investor…
      </button>
    );
  }
  return (
    <form
      className="form-card staff-request"
      aria-labelledby="staff-request-title"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) void submit();
      }}
    >
      <h4 id="staff-request-title">New request on the investor’s behalf</h4>
      <label className="field">
        <span className="field-label">Request</span>
        <select value={type} onChange={(e) => setType(e.target.value as RequestType)}>
          <option value="Investment Amount" disabled={withAmounts.length === 0}>
            Change the investment amount
          </option>
          <option value="Withdraw Investment">Withdraw from the deal</option>
        </select>
      </label>
      {type === 'Investment Amount' && withAmounts.length > 1 && (
        <label className="field">
          <span className="field-label">Move whose amount changes</span>
          <select value={eventId} onChange={(e) => setEventId(e.target.value)}>
            {withAmounts.map((e) => (
              <option key={e.id} value={e.id}>
                Move to {stepLabel(e.toStepId)}
              </option>
            ))}
          </select>
        </label>
      )}
      {fields.map((field) => (
        <div className="field" key={field.fieldKey}>
          <label className="field-label" htmlFor={`staff-request-${field.fieldKey}`}>
            New {fieldLabel(field).toLowerCase()} <span className="muted">(now {formatMoney(event?.data?.[field.fieldKey], currency)})</span>
          </label>
          <FieldInput
            id={`staff-request-${field.fieldKey}`}
            field={{ ...field, required: true }}
            value={values[field.fieldKey] ?? ''}
            invalid={problems.some(([k]) => k === field.fieldKey)}
            dealCurrency={dealCurrency}
            onChange={(v) => setValues((all) => ({ ...all, [field.fieldKey]: v }))}
          />
          {problems.find(([k]) => k === field.fieldKey)?.[1] && <span className="field-error">{problems.find(([k]) => k === field.fieldKey)?.[1]}</span>}
        </div>
      ))}
      <label className="field">
        <span className="field-label">Reason (the investor’s words, how they asked)</span>
        <textarea rows={2} required value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <div className="row-actions">
        <button type="submit" className="button button-primary" disabled={!ready || busy}>
          {busy ? 'Filing…' : 'File request'}
        </button>
        <button type="button" className="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      <FormStatus error={error} />
    </form>
  );
}
