// What an investor needs to enter a step: a KYC level, a class, a current category statement, no
// pending request, earlier fields.
import { investorCategories } from '../../../../../src/domain/investor-category.ts';
import { oneOf, requirementKinds } from '../../lib/api.ts';
import { list, type DocStep } from '../../lib/workflow-doc.ts';

export function RequirementsEditor({
  requirements,
  onChange,
}: {
  requirements: NonNullable<DocStep['requirements']>;
  onChange: (patch: Partial<DocStep>) => void;
}) {
  return (
    <fieldset className="sub">
      <legend>Requirements to enter</legend>
      {requirements.map((r, j) => (
        <div className="field-row" key={j}>
          <label className="field">
            <span className="field-label">Kind</span>
            <select
              value={r.kind}
              onChange={(e) =>
                onChange({
                  requirements: requirements.map((x, k) =>
                    k === j
                      ? {
                          kind: oneOf(requirementKinds, e.target.value),
                          ...(e.target.value === 'kyc-level' ? { minimumLevel: 1 } : {}),
                          ...(e.target.value === 'classification' ? { classes: [] } : {}),
                          ...(e.target.value === 'investor-category' ? { categories: ['certified-high-net-worth'] } : {}),
                        }
                      : x,
                  ),
                })
              }
            >
              {requirementKinds.map((kind) => (
                <option key={kind} value={kind}>
                  {kind}
                </option>
              ))}
            </select>
          </label>
          {r.kind === 'kyc-level' && (
            <label className="field">
              <span className="field-label">Minimum level</span>
              <input
                inputMode="numeric"
                value={String(r.minimumLevel ?? '')}
                onChange={(e) => onChange({ requirements: requirements.map((x, k) => (k === j ? { ...x, minimumLevel: Number(e.target.value) || 0 } : x)) })}
              />
            </label>
          )}
          {r.kind === 'classification' && (
            <label className="field">
              <span className="field-label">Classes (comma-separated)</span>
              <input
                value={(r.classes ?? []).join(', ')}
                onChange={(e) => onChange({ requirements: requirements.map((x, k) => (k === j ? { ...x, classes: list(e.target.value) } : x)) })}
              />
            </label>
          )}
          {r.kind === 'investor-category' && (
            <fieldset className="field">
              <legend className="field-label">A current statement of</legend>
              {investorCategories.map((category) => (
                <label key={category} className="check">
                  <input
                    type="checkbox"
                    checked={(r.categories ?? []).includes(category)}
                    onChange={(e) => {
                      const others = (r.categories ?? []).filter((c) => c !== category);
                      const categories = e.target.checked ? [...others, category] : others;
                      onChange({ requirements: requirements.map((x, k) => (k === j ? { ...x, categories } : x)) });
                    }}
                  />{' '}
                  {category}
                </label>
              ))}
            </fieldset>
          )}
          <button type="button" className="link-button" onClick={() => onChange({ requirements: requirements.filter((_, k) => k !== j) })}>
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        className="button button-small"
        onClick={() => onChange({ requirements: [...requirements, { kind: 'kyc-level', minimumLevel: 1 }] })}
      >
        Add requirement
      </button>
    </fieldset>
  );
}
