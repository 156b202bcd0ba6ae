// The board's and the table's filters and sort, kept in the URL's query (#/deals/d1?currency=EUR),
// so a filtered view can be shared; the same filters drive the export.
import { useState } from 'react';
import type { RowParams } from './api.ts';
import { useHashQuery } from './hooks.ts';

export interface ViewFilters {
  /** One step only (the graph's steps link here). */
  step: string;
  query: string;
  minAmount: string;
  maxAmount: string;
  currency: string;
  minDays: string;
  maxDays: string;
  minKycLevel: string;
  classification: string;
  pending: '' | 'yes' | 'no';
  sort: 'name' | 'amount' | 'days';
  order: 'asc' | 'desc';
}

const keys = ['step', 'query', 'minAmount', 'maxAmount', 'currency', 'minDays', 'maxDays', 'minKycLevel', 'classification', 'pending', 'sort', 'order'] as const;
const defaults: ViewFilters = { step: '', query: '', minAmount: '', maxAmount: '', currency: '', minDays: '', maxDays: '', minKycLevel: '', classification: '', pending: '', sort: 'name', order: 'asc' };

export function useViewFilters(): [ViewFilters, (patch: Partial<ViewFilters>) => void, () => void] {
  const [params, setParams] = useHashQuery();
  const filters = { ...defaults };
  for (const key of keys) {
    const value = params.get(key);
    if (value !== null) (filters as Record<string, string>)[key] = value;
  }
  const update = (patch: Partial<ViewFilters>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(patch)) {
      if (value === '' || value === (defaults as unknown as Record<string, string>)[key]) next.delete(key);
      else next.set(key, String(value));
    }
    setParams(next);
  };
  const clear = () => setParams(new URLSearchParams());
  return [filters, update, clear];
}

const AMOUNT = /^\d{1,20}(\.\d{1,10})?$/;
const WHOLE = /^\d{1,6}$/;

/** The filters as the rows endpoint takes them; values that are not valid yet are left out. */
export function toRowParams(f: ViewFilters): RowParams {
  return {
    stepId: f.step || undefined,
    query: f.query.trim() || undefined,
    minAmount: AMOUNT.test(f.minAmount) ? f.minAmount : undefined,
    maxAmount: AMOUNT.test(f.maxAmount) ? f.maxAmount : undefined,
    currency: /^[A-Z]{3}$/.test(f.currency) ? f.currency : undefined,
    minDays: WHOLE.test(f.minDays) ? Number(f.minDays) : undefined,
    maxDays: WHOLE.test(f.maxDays) ? Number(f.maxDays) : undefined,
    minKycLevel: WHOLE.test(f.minKycLevel) ? Number(f.minKycLevel) : undefined,
    classification: f.classification.trim() || undefined,
    pending: f.pending === 'yes' ? true : f.pending === 'no' ? false : undefined,
    sort: f.sort,
    order: f.order,
  };
}

export const activeFilterCount = (f: ViewFilters) =>
  (['step', 'minAmount', 'maxAmount', 'currency', 'minDays', 'maxDays', 'minKycLevel', 'classification', 'pending'] as const).filter((k) => f[k] !== '').length;

/** The filter panel: collapsed behind a button on small screens, a row of controls on wide ones. */
export function FilterPanel({ filters, update, clear, showSort }: { filters: ViewFilters; update: (patch: Partial<ViewFilters>) => void; clear: () => void; showSort: boolean }) {
  const active = activeFilterCount(filters);
  const [open, setOpen] = useState(active > 0);
  const invalid = (value: string, pattern: RegExp) => (value !== '' && !pattern.test(value) ? true : undefined);
  return (
    <div className="filters">
      <div className="filters-bar">
        <label className="search">
          <span className="visually-hidden">Search investors by name or e-mail</span>
          <input type="search" placeholder="Search by name or e-mail" value={filters.query} onChange={(e) => update({ query: e.target.value })} />
        </label>
        <button type="button" className="button" aria-expanded={open} aria-controls="filter-fields" onClick={() => setOpen((o) => !o)}>
          Filters{active > 0 ? ` (${active})` : ''}
        </button>
        {showSort && (
          <label className="inline-field">
            <span>Sort</span>
            <select
              aria-label="Sort investors"
              value={`${filters.sort}:${filters.order}`}
              onChange={(e) => {
                const [sort, order] = e.target.value.split(':') as [ViewFilters['sort'], ViewFilters['order']];
                update({ sort, order });
              }}
            >
              <option value="name:asc">Name A–Z</option>
              <option value="name:desc">Name Z–A</option>
              <option value="amount:desc">Amount, largest first</option>
              <option value="amount:asc">Amount, smallest first</option>
              <option value="days:desc">Days at step, most first</option>
              <option value="days:asc">Days at step, fewest first</option>
            </select>
          </label>
        )}
        {active > 0 && (
          <button type="button" className="link-button" onClick={clear}>
            Clear filters
          </button>
        )}
      </div>
      {open && (
        <fieldset className="filter-fields" id="filter-fields">
          <legend className="visually-hidden">Filters</legend>
          <label className="field">
            <span className="field-label">Committed from</span>
            <input inputMode="decimal" placeholder="0.00" value={filters.minAmount} aria-invalid={invalid(filters.minAmount, AMOUNT)} onChange={(e) => update({ minAmount: e.target.value.trim() })} />
          </label>
          <label className="field">
            <span className="field-label">Committed up to</span>
            <input inputMode="decimal" placeholder="any" value={filters.maxAmount} aria-invalid={invalid(filters.maxAmount, AMOUNT)} onChange={(e) => update({ maxAmount: e.target.value.trim() })} />
          </label>
          <label className="field">
            <span className="field-label">Currency</span>
            <input placeholder="EUR" maxLength={3} value={filters.currency} aria-invalid={invalid(filters.currency, /^[A-Z]{3}$/)} onChange={(e) => update({ currency: e.target.value.toUpperCase().trim() })} />
          </label>
          <label className="field">
            <span className="field-label">Days at step, at least</span>
            <input inputMode="numeric" value={filters.minDays} aria-invalid={invalid(filters.minDays, WHOLE)} onChange={(e) => update({ minDays: e.target.value.trim() })} />
          </label>
          <label className="field">
            <span className="field-label">Days at step, at most</span>
            <input inputMode="numeric" value={filters.maxDays} aria-invalid={invalid(filters.maxDays, WHOLE)} onChange={(e) => update({ maxDays: e.target.value.trim() })} />
          </label>
          <label className="field">
            <span className="field-label">KYC level, at least</span>
            <input inputMode="numeric" value={filters.minKycLevel} aria-invalid={invalid(filters.minKycLevel, WHOLE)} onChange={(e) => update({ minKycLevel: e.target.value.trim() })} />
          </label>
          <label className="field">
            <span className="field-label">Classification</span>
            <input placeholder="e.g. Professional" value={filters.classification} onChange={(e) => update({ classification: e.target.value })} />
          </label>
          <label className="field">
            <span className="field-label">Pending edit request</span>
            <select value={filters.pending} onChange={(e) => update({ pending: e.target.value as ViewFilters['pending'] })}>
              <option value="">Any</option>
              <option value="yes">With a pending request</option>
              <option value="no">Without</option>
            </select>
          </label>
        </fieldset>
      )}
    </div>
  );
}
