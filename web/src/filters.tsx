// The board's and the table's filters and sort, kept in the URL's query (#/deals/d1?currency=EUR),
// so a filtered view can be shared; the same filters drive the export. Both pages use this one
// implementation: the hook (useFilteredView), the panel, the toolbar with the count and the export,
// and the selection bar.
import { useState, type ReactNode } from 'react';
import type { RowParams, Workflow } from './api.ts';
import { exportRows } from './exportView.ts';
import { plural } from './format.ts';
import { useDebounced, useHashQuery } from './hooks.ts';

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

/** A view of a deal: the filters in the URL, and the parameters of the rows endpoint (search debounced). */
export interface FilteredView {
  filters: ViewFilters;
  update: (patch: Partial<ViewFilters>) => void;
  clear: () => void;
  params: RowParams;
  /** Changes when the rows to show change: a dependency for loads. */
  key: string;
  /** A filter or a search narrows the view. */
  filtered: boolean;
}

/** The board's and the table's view; `onChange` runs on every change of the filters (the table goes back to page 1). */
export function useFilteredView(onChange?: () => void): FilteredView {
  const [filters, setFilters, clearFilters] = useViewFilters();
  const params = toRowParams({ ...filters, query: useDebounced(filters.query.trim()) });
  const filtered = Object.entries(params).some(([k, v]) => !['sort', 'order'].includes(k) && v !== undefined);
  return {
    filters,
    update: (patch) => (onChange?.(), setFilters(patch)),
    clear: () => (onChange?.(), clearFilters()),
    params,
    key: JSON.stringify(params),
    filtered,
  };
}

/** "12 investors of Acme match the filters", in the words of the view. */
export function viewSummary(view: FilteredView, total: number, dealName: string): string {
  if (!view.filtered) return `${plural(total, 'investor')} in ${dealName}`;
  if (view.params.query && activeFilterCount(view.filters) === 0) return `${plural(total, 'investor')} ${total === 1 ? 'matches' : 'match'} “${view.params.query}” in ${dealName}`;
  return `${plural(total, 'investor')} of ${dealName} ${total === 1 ? 'matches' : 'match'} the filters`;
}

/** The filters, the one-step notice, the count of the view and its export (plus the page's own actions). */
export function ViewToolbar({ view, dealId, dealName, workflow, total, titleId, children }: { view: FilteredView; dealId: string; dealName: string; workflow: Workflow; total: number | undefined; titleId: string; children?: ReactNode }) {
  const [exporting, setExporting] = useState<string>();
  const stepId = view.params.stepId;
  return (
    <>
      <FilterPanel filters={view.filters} update={view.update} clear={view.clear} showSort />
      {stepId && (
        <p className="muted small">
          Showing {workflow.steps.find((s) => s.id === stepId)?.label ?? stepId} only.{' '}
          <button type="button" className="link-button" onClick={() => view.update({ step: '' })}>
            Show every step
          </button>
        </p>
      )}
      <div className="toolbar">
        <span className="muted" aria-live="polite" id={titleId}>
          {total === undefined ? '\u00a0' : viewSummary(view, total, dealName)}
        </span>
        <span className="toolbar-actions">
          {children}
          <button
            type="button"
            className="button"
            disabled={!!exporting}
            onClick={async () => {
              setExporting('Exporting…');
              try {
                await exportRows(dealId, dealName, workflow, view.params, (n) => setExporting(`Exporting… ${n}`));
              } finally {
                setExporting(undefined);
              }
            }}
          >
            {exporting ?? 'Export CSV'}
          </button>
        </span>
      </div>
    </>
  );
}

/** The bar shown while investors are selected (cards or rows): move them together, or clear. */
export function SelectionBar({ count, onMove, onClear }: { count: number; onMove: () => void; onClear: () => void }) {
  if (count === 0) return null;
  return (
    <div className="bulk-bar" role="region" aria-label="Selection">
      <strong>{plural(count, 'investor')} selected</strong>
      <button type="button" className="button button-primary" onClick={onMove}>
        Move selected…
      </button>
      <button type="button" className="button" onClick={onClear}>
        Clear selection
      </button>
    </div>
  );
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
