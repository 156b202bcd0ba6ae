// A deal's investors as a table: the board's filters (filters.tsx, the same URL query), sortable columns, paging,
// selection for a move together, and export of the view.
import { TableRegion } from '../components/PagedTable.tsx';
import { useRef, useState } from 'react';
import { api, consoleApi, type DealRow } from '../lib/api.ts';
import { BulkMoveDialog } from '../components/BulkMoveDialog.tsx';
import { PortalInviteDialog } from '../components/PortalInviteDialog.tsx';
import { DealHeader } from '../components/DealHeader.tsx';
import { Pager } from '../components/Pager.tsx';
import { SelectionBar, ViewToolbar } from '../components/ViewToolbar.tsx';
import { useFilteredView, type ViewFilters } from '../lib/filters.ts';
import { daysSince, formatDays, formatMoney, paidText } from '../lib/format.ts';
import { href, useLoad } from '../../../kit/hooks.ts';
import { useLiveFeed } from '../lib/live.ts';
import { LiveNote } from '../components/LiveNote.tsx';
import { Badge, Empty, ErrorState, Pending, Spinner, When, stepTone } from '../components/ui.tsx';
import './TablePage.css';

const LIMIT = 50;

export function TablePage({ dealId }: { dealId: string }) {
  const [page, setPage] = useState(1);
  const view = useFilteredView(() => setPage(1));
  const { filters, update, params, key } = view;
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState<Map<string, DealRow>>(() => new Map());
  const [bulk, setBulk] = useState(false);
  const [inviting, setInviting] = useState(false);
  const anchor = useRef<number>(undefined);
  const shift = useRef(false);
  const [meta, reloadMeta] = useLoad(() => Promise.all([api.deal(dealId), api.workflow(dealId)]), [dealId]);
  const live = useLiveFeed(dealId, () => setVersion((v) => v + 1));
  const [rows, reloadRows] = useLoad(() => consoleApi.rows(dealId, { ...params, page, limit: LIMIT }), [dealId, key, page, version]);

  if (meta.status === 'loading') return <Spinner label="Loading the deal…" />;
  if (meta.status === 'error') return <ErrorState error={meta.error} retry={reloadMeta} />;
  const [deal, workflow] = meta.value;
  const stepOf = (id: string) => workflow.steps.find((s) => s.id === id);

  const sortBy = (sort: ViewFilters['sort']) => update({ sort, order: filters.sort === sort && filters.order === 'asc' ? 'desc' : 'asc' });
  const sortState = (sort: ViewFilters['sort']) => (filters.sort === sort ? (filters.order === 'asc' ? 'ascending' : 'descending') : 'none');
  const sortHeader = (sort: ViewFilters['sort'], label: string, className?: string) => (
    <th scope="col" aria-sort={sortState(sort)} className={className}>
      <button type="button" className="sort-button" onClick={() => sortBy(sort)}>
        {label}
        <span aria-hidden="true">{filters.sort === sort ? (filters.order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
      </button>
    </th>
  );
  const pageRows = rows.status === 'ready' ? rows.value.output : [];
  const allOnPage = pageRows.length > 0 && pageRows.every((r) => selected.has(r.investorUserId));
  // A click (or Space) on a row's box toggles it; with Shift held, every row from the last one
  // toggled to this one takes this one's new state, as in a mail client.
  const pick = (index: number) => {
    const row = pageRows[index];
    if (!row) return;
    const select = !selected.has(row.investorUserId);
    const from = shift.current && anchor.current !== undefined ? Math.min(anchor.current, index) : index;
    const to = shift.current && anchor.current !== undefined ? Math.max(anchor.current, index) : index;
    setSelected((current) => {
      const next = new Map(current);
      for (const r of pageRows.slice(from, to + 1)) {
        if (select) next.set(r.investorUserId, r);
        else next.delete(r.investorUserId);
      }
      return next;
    });
    anchor.current = index;
    shift.current = false;
  };

  return (
    <section aria-labelledby="table-title">
      <DealHeader dealId={dealId} name={deal.name} view="table" />
      <LiveNote move={live} stepLabel={(id) => stepOf(id)?.label} />
      <ViewToolbar
        view={view}
        dealId={dealId}
        dealName={deal.name}
        workflow={workflow}
        total={rows.status === 'ready' ? rows.value.total : undefined}
        titleId="table-title"
      />
      <SelectionBar count={selected.size} onMove={() => setBulk(true)} onInvite={() => setInviting(true)} onClear={() => setSelected(new Map())} />
      <Pending state={rows} retry={reloadRows} />
      {rows.status === 'ready' && rows.value.output.length === 0 && <Empty title="No investor matches">Change or clear the filters.</Empty>}
      {rows.status === 'ready' && rows.value.output.length > 0 && (
        <>
          <TableRegion
            label="Investors"
            className="rows-table"
            head={
              <tr>
                <th scope="col" className="check-cell">
                  <input
                    type="checkbox"
                    aria-label="Select every investor on this page"
                    checked={allOnPage}
                    onChange={() =>
                      setSelected((current) => {
                        const next = new Map(current);
                        for (const r of pageRows) {
                          if (allOnPage) next.delete(r.investorUserId);
                          else next.set(r.investorUserId, r);
                        }
                        return next;
                      })
                    }
                  />
                </th>
                {sortHeader('name', 'Investor')}
                <th scope="col">Step</th>
                {sortHeader('amount', 'Committed', 'num')}
                {sortHeader('days', 'At step')}
                <th scope="col" className="num">
                  KYC
                </th>
                <th scope="col">Classes</th>
              </tr>
            }
          >
            {rows.value.output.map((r, index) => {
              const step = stepOf(r.stepId);
              const paid = paidText(r);
              // Two investors of one name on the page are told apart by their e-mail, in every density.
              const sameName = rows.value.output.some((o) => o !== r && o.fullName === r.fullName);
              return (
                <tr key={r.investorUserId} data-investor-id={r.investorUserId}>
                  <td className="check-cell">
                    <input
                      type="checkbox"
                      aria-label={`Select ${r.fullName}`}
                      checked={selected.has(r.investorUserId)}
                      onClick={(e) => (shift.current = e.shiftKey)}
                      onKeyDown={(e) => (shift.current = e.shiftKey)}
                      onChange={() => pick(index)}
                    />
                  </td>
                  <td data-label="Investor">
                    <a href={href('deals', dealId, 'investors', r.investorUserId)}>{r.fullName}</a>
                    {r.pendingEditRequests > 0 && (
                      <>
                        {' '}
                        <Badge tone="amber">edit request</Badge>
                      </>
                    )}
                    {sameName ? (
                      <div className="muted small">{r.email ?? r.investorUserId}</div>
                    ) : (
                      <div className="muted small row-detail">{r.email ?? r.investorUserId}</div>
                    )}
                  </td>
                  <td data-label="Step">
                    <Badge tone={stepTone(step?.type ?? 'default')}>{step?.label ?? r.stepId}</Badge>
                  </td>
                  <td className="num money" data-label="Committed">
                    <div>
                      {formatMoney(r.committedAmount, r.currency)}
                      {paid && <div className="small row-paid">{paid}</div>}
                    </div>
                  </td>
                  <td data-label="At step">
                    <div>
                      {formatDays(daysSince(r.enteredStepAt))}
                      <div className="muted small row-detail">
                        since <When iso={r.enteredStepAt} />
                      </div>
                    </div>
                  </td>
                  <td className="num" data-label="KYC">
                    {r.kycCheckLevel ?? '—'}
                  </td>
                  <td data-label="Classes">{r.classifications.join(', ') || '—'}</td>
                </tr>
              );
            })}
          </TableRegion>
          <Pager page={page} totalPages={rows.value.totalPages} onPage={setPage} />
        </>
      )}
      {inviting && <PortalInviteDialog investors={[...selected.values()]} onClose={() => setInviting(false)} />}
      {bulk && (
        <BulkMoveDialog
          dealId={dealId}
          dealCurrency={deal.currency}
          workflow={workflow}
          cards={[...selected.values()]}
          onClose={(moved) => {
            setBulk(false);
            if (moved) {
              setSelected(new Map());
              setVersion((v) => v + 1);
            }
          }}
        />
      )}
    </section>
  );
}
