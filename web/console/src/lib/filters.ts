// The board's and the table's filters and sort, kept in the URL's query (#/deals/d1?currency=EUR):
// the filters, their hook (useFilteredView), the row query they make, and their summary in words.
import type { RowParams } from './api.ts';
import { plural } from './format.ts';
import { useDebounced, useHashQuery } from '../../../kit/hooks.ts';

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
  /** How much of the commitment was received (the rows endpoint's `paid`). */
  paid: '' | 'none' | 'partly' | 'full';
  sort: 'name' | 'amount' | 'days';
  order: 'asc' | 'desc';
}

const keys = [
  'step',
  'query',
  'minAmount',
  'maxAmount',
  'currency',
  'minDays',
  'maxDays',
  'minKycLevel',
  'classification',
  'pending',
  'paid',
  'sort',
  'order',
] as const;
const defaults: ViewFilters = {
  step: '',
  query: '',
  minAmount: '',
  maxAmount: '',
  currency: '',
  minDays: '',
  maxDays: '',
  minKycLevel: '',
  classification: '',
  pending: '',
  paid: '',
  sort: 'name',
  order: 'asc',
};

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

export const AMOUNT = /^\d{1,20}(\.\d{1,10})?$/;
export const WHOLE = /^\d{1,6}$/;

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
    paid: f.paid || undefined,
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
  if (view.params.query && activeFilterCount(view.filters) === 0)
    return `${plural(total, 'investor')} ${total === 1 ? 'matches' : 'match'} “${view.params.query}” in ${dealName}`;
  return `${plural(total, 'investor')} of ${dealName} ${total === 1 ? 'matches' : 'match'} the filters`;
}

export const activeFilterCount = (f: ViewFilters) =>
  (['step', 'minAmount', 'maxAmount', 'currency', 'minDays', 'maxDays', 'minKycLevel', 'classification', 'pending', 'paid'] as const).filter((k) => f[k] !== '')
    .length;
