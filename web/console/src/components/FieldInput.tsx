// The input for one step field, by its kind: text, amount, currency (common ones first), date,
// e-mail, one of a choice's options, or a number (text with a decimal keypad: a number input would
// hand the value through a float and drop what it cannot parse).
import type { StepField } from '../lib/api.ts';
import { currencyOptions as currencies } from '../lib/currencies.ts';

const COMMON = ['EUR', 'USD', 'GBP', 'CHF'];

export function FieldInput({
  field,
  value,
  onChange,
  invalid,
  dealCurrency,
  id,
}: {
  field: StepField;
  value: string;
  onChange: (value: string) => void;
  invalid: boolean;
  dealCurrency: string | null;
  id: string;
}) {
  const common = { id, name: field.fieldKey, 'aria-invalid': invalid || undefined, 'aria-required': field.required || undefined };
  switch (field.kind ?? 'text') {
    case 'amount':
      return <input {...common} type="text" inputMode="decimal" placeholder="0.00" value={value} onChange={(e) => onChange(e.target.value.trim())} />;
    case 'number':
      return (
        <input {...common} type="text" inputMode="decimal" autoComplete="off" placeholder="0" value={value} onChange={(e) => onChange(e.target.value.trim())} />
      );
    case 'currency': {
      const first = [...new Set([...(dealCurrency ? [dealCurrency] : []), ...COMMON])];
      return (
        <select {...common} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">—</option>
          <optgroup label="Common">
            {first.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </optgroup>
          <optgroup label="All ISO 4217">
            {currencies
              .filter((c) => !first.includes(c))
              .map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
          </optgroup>
        </select>
      );
    }
    case 'date':
      return <input {...common} type="date" value={value} onChange={(e) => onChange(e.target.value)} />;
    case 'choice':
      return (
        <select {...common} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">—</option>
          {(field.options ?? []).map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
    case 'email':
      return <input {...common} type="email" value={value} onChange={(e) => onChange(e.target.value)} />;
    default:
      return <input {...common} type="text" value={value} onChange={(e) => onChange(e.target.value)} />;
  }
}
