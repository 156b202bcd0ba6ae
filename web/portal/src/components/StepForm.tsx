// The form of a step the investor may take themselves: one control per field of the step, by
// kind (an amount with its currency, a number, a date, a choice, text, an e-mail), checked before
// it is sent; the service's refusal in plain words.
import { useState, type FormEvent } from 'react';
import { valueProblem } from '../../../../src/domain/field-value.ts';
import { useSubmission } from '../../../kit/hooks.ts';
import { portalApi, type NextStep, type PortalField } from '../lib/api.ts';
import { currencies, currencyName } from '../lib/format.ts';
import { m } from '../messages.ts';
import { FormStatus } from './ui.tsx';
import './StepForm.css';

export const fieldLabel = (field: PortalField) => field.label || field.fieldKey.replace(/[_-]+/g, ' ').replace(/^./, (c) => c.toUpperCase());

function problemOf(field: PortalField, value: string): string | undefined {
  if (value === '') return field.required ? m.missingField(fieldLabel(field)) : undefined;
  // Whether it fits is the service's own rule (pure, bundled here); only the words are the portal's.
  if (valueProblem({ kind: field.kind, options: field.options ?? null }, value) === undefined) return undefined;
  if (field.kind === 'amount') return m.invalidAmount;
  if (field.kind === 'number') return m.invalidNumber;
  if (field.kind === 'email') return m.invalidEmail;
  if (field.kind === 'date') return m.invalidDate;
  return undefined;
}

interface Props {
  dealId: string;
  investorUserId: string;
  currentStepId: string | null;
  step: NextStep;
  defaultCurrency: string | null;
  onDone: () => void;
}

export function StepForm({ dealId, investorUserId, currentStepId, step, defaultCurrency, onDone }: Props) {
  const initial = Object.fromEntries(step.stepFields.map((f) => [f.fieldKey, f.kind === 'currency' ? (defaultCurrency ?? '') : '']));
  const [values, setValues] = useState<Record<string, string>>(initial);
  const [checked, setChecked] = useState(false);
  const { busy, error, done, run, refuse, clear } = useSubmission();
  const problems = Object.fromEntries(step.stepFields.map((f) => [f.fieldKey, problemOf(f, (values[f.fieldKey] ?? '').trim())]));
  const formId = `step-${step.id.replace(/[^A-Za-z0-9_-]/g, '-')}`;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setChecked(true);
    if (Object.values(problems).some(Boolean)) return refuse(m.fixFields);
    const data = Object.fromEntries(
      Object.entries(values)
        .map(([k, v]) => [k, v.trim()])
        .filter(([, v]) => v !== ''),
    );
    await run(async () => {
      await portalApi.jump(dealId, { investorUserId, targetStepId: step.id, data, expectedCurrentStepId: currentStepId });
      onDone();
      return m.formDone(step.label);
    });
  }

  const set = (key: string, value: string) => {
    clear();
    setValues((all) => ({ ...all, [key]: value }));
  };

  return (
    <form className="card step-form" onSubmit={submit} noValidate aria-labelledby={`${formId}-title`}>
      <h3 id={`${formId}-title`}>{m.formTitle(step.label)}</h3>
      <div className="fields">
        {step.stepFields.map((field) => {
          const id = `${formId}-${field.fieldKey}`;
          const problem = checked ? problems[field.fieldKey] : undefined;
          const hint = field.kind === 'amount' ? m.amountHint : field.kind === 'number' ? m.numberHint : undefined;
          const describedBy = [problem ? `${id}-problem` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
          const common = {
            id,
            name: field.fieldKey,
            value: values[field.fieldKey] ?? '',
            required: field.required,
            'aria-invalid': problem ? true : undefined,
            'aria-describedby': describedBy,
          } as const;
          return (
            <div className={`field field-${field.kind ?? 'text'}`} key={field.fieldKey}>
              <label htmlFor={id} className="field-label">
                {fieldLabel(field)} <span className="muted">({field.required ? m.required : m.optional})</span>
              </label>
              {field.kind === 'choice' ? (
                <select {...common} onChange={(e) => set(field.fieldKey, e.target.value)}>
                  <option value="">{m.chooseOne}</option>
                  {(field.options ?? []).map((o) => (
                    <option key={o} value={o}>
                      {o}
                    </option>
                  ))}
                </select>
              ) : field.kind === 'currency' ? (
                <select {...common} onChange={(e) => set(field.fieldKey, e.target.value)}>
                  <option value="">{m.chooseOne}</option>
                  {currencies().map((c) => (
                    <option key={c} value={c}>
                      {currencyName(c)}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  {...common}
                  type={field.kind === 'date' ? 'date' : field.kind === 'email' ? 'email' : 'text'}
                  inputMode={field.kind === 'amount' || field.kind === 'number' ? 'decimal' : undefined}
                  autoComplete={field.kind === 'email' ? 'email' : 'off'}
                  onChange={(e) => set(field.fieldKey, e.target.value)}
                />
              )}
              {hint && (
                <span id={`${id}-hint`} className="muted small">
                  {hint}
                </span>
              )}
              {problem && (
                <span id={`${id}-problem`} className="field-error">
                  {problem}
                </span>
              )}
            </div>
          );
        })}
      </div>
      <FormStatus error={error} done={done} persistent />
      <button type="submit" className="button button-primary button-wide" disabled={busy}>
        {busy ? m.formSending : m.formSubmit(step.label)}
      </button>
    </form>
  );
}
