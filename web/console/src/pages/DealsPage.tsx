// Every deal with its investors by state and what they committed, per currency.
import { TableRegion } from '../components/PagedTable.tsx';
import { api } from '../lib/api.ts';
import { formatTotals, plural } from '../lib/format.ts';
import { navigate, useLoad } from '../../../kit/hooks.ts';
import { Empty, Pending } from '../components/ui.tsx';
import { useMay } from '../lib/who.ts';
import './DealsPage.css';

export function DealsPage() {
  const [deals, reload] = useLoad(() => api.deals(), []);
  const mayCreate = useMay('operator');
  return (
    <section aria-labelledby="deals-title">
      <div className="page-head">
        <div>
          <h1 id="deals-title">Deals</h1>
          <p className="muted">Investors per state and committed amounts. Open a deal to work its board.</p>
        </div>
        {mayCreate && (
          <a className="button button-primary" href="#/deals/new">
            New deal
          </a>
        )}
      </div>
      <Pending state={deals} retry={reload} label="Loading deals…" />
      {deals.status === 'ready' && deals.value.length === 0 && (
        <Empty title="No deals yet">
          <a href="#/deals/new">Create the first deal</a> and set up its workflow here.
        </Empty>
      )}
      {deals.status === 'ready' && deals.value.length > 0 && (
        <TableRegion
          label="Deals list"
          className="deals-table"
          head={
            <tr>
              <th scope="col">Deal</th>
              <th scope="col" className="num">
                In progress
              </th>
              <th scope="col" className="num">
                Complete
              </th>
              <th scope="col" className="num">
                Withdrawn
              </th>
              <th scope="col" className="num">
                Committed
              </th>
            </tr>
          }
        >
          {deals.value.map((deal) => (
            <tr key={deal.id} className="row-link" onClick={() => navigate('deals', deal.id)}>
              <td>
                <a href={`#/deals/${encodeURIComponent(deal.id)}`} className="deal-name" onClick={(e) => e.stopPropagation()}>
                  {deal.name}
                </a>
                <div className="muted small">
                  {deal.id} · {plural(deal.investors.total, 'investor')}
                </div>
              </td>
              <td className="num" data-label="In progress">
                {deal.investors.inProgress.toLocaleString()}
              </td>
              <td className="num" data-label="Complete">
                {deal.investors.complete.toLocaleString()}
              </td>
              <td className="num" data-label="Withdrawn">
                {deal.investors.withdrawn.toLocaleString()}
              </td>
              <td className="num money" data-label="Committed">
                {deal.committed.length === 0 ? (
                  '—'
                ) : (
                  <div>
                    {deal.committed.map((m) => (
                      <div key={m.currency}>{formatTotals([m])}</div>
                    ))}
                  </div>
                )}
              </td>
            </tr>
          ))}
        </TableRegion>
      )}
    </section>
  );
}
