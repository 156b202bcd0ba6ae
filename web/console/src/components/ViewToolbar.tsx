// The board's and the table's filters and sort, kept in the URL's query (#/deals/d1?currency=EUR),
// so a filtered view can be shared; the same filters drive the export. Both pages use this one
// implementation: the toolbar with the count and the export, the panel and the selection bar (the
// filters themselves and their hook are lib/filters.ts).
//
// On a phone all of it is one row (search, Filters, More), so the investors start high on the
// screen: Filters opens the sort, the saved views and the filters; More opens the actions (density,
// the page's own, export). The count of the view shows when filters narrow it; otherwise it is
// read out only (it still names the page's section and announces each change).
import { StepOptions } from './SelectOptions.tsx';
import { useState, type ReactNode } from 'react';
import { setDensity, useDensity } from '../lib/density.ts';
import type { Workflow } from '../lib/api.ts';
import { exportRows } from '../lib/export-view.ts';
import { AMOUNT, WHOLE, activeFilterCount, viewSummary, type FilteredView, type ViewFilters } from '../lib/filters.ts';
import { plural } from '../lib/format.ts';
import { PHONE, useMedia } from '../../../kit/hooks.ts';
import { SavedViews } from './SavedViews.tsx';
import { useRoleGate } from '../lib/who.ts';
import './ViewToolbar.css';

/** The filters, the one-step notice, the count of the view and its export (plus the page's own actions). */
export function ViewToolbar({
  view,
  dealId,
  dealName,
  workflow,
  total,
  titleId,
  children,
}: {
  view: FilteredView;
  dealId: string;
  dealName: string;
  workflow: Workflow;
  total: number | undefined;
  titleId: string;
  children?: ReactNode;
}) {
  const [exporting, setExporting] = useState<string>();
  const phone = useMedia(PHONE);
  const [more, setMore] = useState(false);
  const stepId = view.params.stepId;
  const actionsShown = !phone || more;
  const countShown = !phone || !!view.filtered;
  const moreButton = (
    <button type="button" className="button" aria-expanded={more} aria-controls="view-actions" onClick={() => setMore((m) => !m)}>
      More
    </button>
  );
  return (
    <>
      <FilterPanel
        filters={view.filters}
        update={view.update}
        clear={view.clear}
        showSort
        workflow={workflow}
        dealId={dealId}
        phone={phone}
        trailing={phone ? moreButton : undefined}
      />
      {stepId && (
        <p className="muted small">
          Showing {workflow.steps.find((s) => s.id === stepId)?.label ?? stepId} only.{' '}
          <button type="button" className="link-button" onClick={() => view.update({ step: '' })}>
            Show every step
          </button>
        </p>
      )}
      <div className={actionsShown || countShown ? 'toolbar' : 'toolbar toolbar-folded'}>
        <span className={countShown ? 'muted' : 'muted visually-hidden'} aria-live="polite" id={titleId}>
          {total === undefined ? '\u00a0' : viewSummary(view, total, dealName)}
        </span>
        {actionsShown && (
          <span className="toolbar-actions" id="view-actions">
            <DensityToggle />
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
        )}
      </div>
    </>
  );
}

/** The bar shown while investors are selected (cards or rows): move them together, invite them to the portal, or clear. */
export function SelectionBar({ count, onMove, onInvite, onClear }: { count: number; onMove: () => void; onInvite?: () => void; onClear: () => void }) {
  const writeGate = useRoleGate('operator');
  if (count === 0) return null;
  return (
    <div className="bulk-bar" role="region" aria-label="Selection">
      <strong>{plural(count, 'investor')} selected</strong>
      <button type="button" className="button button-primary" onClick={onMove} {...writeGate}>
        Move selected…
      </button>
      {onInvite && (
        <button type="button" className="button" onClick={onInvite} {...writeGate}>
          Invite to the portal…
        </button>
      )}
      <button type="button" className="button" onClick={onClear}>
        Clear selection
      </button>
    </div>
  );
}

/**
 * The filter panel: the search and a Filters button that opens the filters; the sort, the saved
 * views and Clear filters beside them on a wide screen, inside the panel on a phone (`phone`),
 * where `trailing` ends the row.
 */
export function FilterPanel({
  filters,
  update,
  clear,
  showSort,
  workflow,
  dealId,
  phone = false,
  trailing,
}: {
  filters: ViewFilters;
  update: (patch: Partial<ViewFilters>) => void;
  clear: () => void;
  showSort: boolean;
  workflow?: Workflow;
  dealId?: string;
  phone?: boolean;
  trailing?: ReactNode;
}) {
  const active = activeFilterCount(filters);
  const [open, setOpen] = useState(active > 0);
  const invalid = (value: string, pattern: RegExp) => (value !== '' && !pattern.test(value) ? true : undefined);
  const sortAndViews = (
    <>
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
      {dealId && <SavedViews dealId={dealId} />}
      {active > 0 && (
        <button type="button" className="link-button" onClick={clear}>
          Clear filters
        </button>
      )}
    </>
  );
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
        {!phone && sortAndViews}
        {trailing}
      </div>
      {open && (
        <div className="filter-panel" id="filter-fields">
          {phone && <div className="filters-bar filter-panel-head">{sortAndViews}</div>}
          <fieldset className="filter-fields">
            <legend className="visually-hidden">Filters</legend>
            {workflow && (
              <label className="field">
                <span className="field-label">Step</span>
                <select value={filters.step} onChange={(e) => update({ step: e.target.value })}>
                  <option value="">Every step</option>
                  <StepOptions steps={workflow.steps} />
                </select>
              </label>
            )}
            <label className="field">
              <span className="field-label">Committed from</span>
              <input
                inputMode="decimal"
                placeholder="0.00"
                value={filters.minAmount}
                aria-invalid={invalid(filters.minAmount, AMOUNT)}
                onChange={(e) => update({ minAmount: e.target.value.trim() })}
              />
            </label>
            <label className="field">
              <span className="field-label">Committed up to</span>
              <input
                inputMode="decimal"
                placeholder="any"
                value={filters.maxAmount}
                aria-invalid={invalid(filters.maxAmount, AMOUNT)}
                onChange={(e) => update({ maxAmount: e.target.value.trim() })}
              />
            </label>
            <label className="field">
              <span className="field-label">Currency</span>
              <input
                placeholder="EUR"
                maxLength={3}
                value={filters.currency}
                aria-invalid={invalid(filters.currency, /^[A-Z]{3}$/)}
                onChange={(e) => update({ currency: e.target.value.toUpperCase().trim() })}
              />
            </label>
            <label className="field">
              <span className="field-label">Days at step, at least</span>
              <input
                inputMode="numeric"
                value={filters.minDays}
                aria-invalid={invalid(filters.minDays, WHOLE)}
                onChange={(e) => update({ minDays: e.target.value.trim() })}
              />
            </label>
            <label className="field">
              <span className="field-label">Days at step, at most</span>
              <input
                inputMode="numeric"
                value={filters.maxDays}
                aria-invalid={invalid(filters.maxDays, WHOLE)}
                onChange={(e) => update({ maxDays: e.target.value.trim() })}
              />
            </label>
            <label className="field">
              <span className="field-label">KYC level, at least</span>
              <input
                inputMode="numeric"
                value={filters.minKycLevel}
                aria-invalid={invalid(filters.minKycLevel, WHOLE)}
                onChange={(e) => update({ minKycLevel: e.target.value.trim() })}
              />
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
            <label className="field">
              <span className="field-label">Paid</span>
              <select value={filters.paid} onChange={(e) => update({ paid: e.target.value as ViewFilters['paid'] })}>
                <option value="">Any</option>
                <option value="none">Nothing received</option>
                <option value="partly">Partly paid</option>
                <option value="full">Paid in full</option>
              </select>
            </label>
          </fieldset>
        </div>
      )}
    </div>
  );
}

/** Compact (the default on a wide screen) or comfortable cards and rows; kept in this browser. */
function DensityToggle() {
  const density = useDensity();
  return (
    <button type="button" className="button" aria-pressed={density === 'compact'} onClick={() => setDensity(density === 'compact' ? 'comfortable' : 'compact')}>
      Compact
    </button>
  );
}
