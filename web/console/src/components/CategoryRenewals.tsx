// Investors' category statements to renew: those expired (a payment step is closed to them until an
// approver records a renewed statement) and those expiring within 30 days, soonest first.
import { useState } from 'react';
import { useLoad } from '../../../kit/hooks.ts';
import { consoleApi } from '../lib/api.ts';
import { PagedTable } from './PagedTable.tsx';
import { Badge } from './ui.tsx';

const categoryNames: Record<string, string> = {
  'certified-high-net-worth': 'Certified high net worth',
  'certified-sophisticated': 'Certified sophisticated',
  'self-certified-sophisticated': 'Self-certified sophisticated',
  'elective-professional': 'Elective professional',
  professional: 'Professional',
};

export function CategoryRenewals() {
  const [page, setPage] = useState(1);
  const [list, reload] = useLoad(() => consoleApi.expiringCategories({ page, limit: 20 }), [page]);
  return (
    <section aria-labelledby="renewals-title" className="renewals">
      <h2 id="renewals-title">Category statements to renew</h2>
      <p className="muted">
        Expired, or expiring within 30 days. An expired statement closes a deal's payment step to the investor until a renewed one is recorded.
      </p>
      <PagedTable
        list={list}
        retry={reload}
        empty={{ title: 'No statement expires within 30 days' }}
        label="Statements to renew, soonest first"
        className="renewals-table"
        page={page}
        onPage={setPage}
        head={
          <tr>
            <th scope="col">Investor</th>
            <th scope="col">Category</th>
            <th scope="col">Expires</th>
          </tr>
        }
        row={(r) => (
          <tr key={r.investorUserId}>
            <td data-label="Investor">
              <a href={`#/investors/${encodeURIComponent(r.investorUserId)}`}>{r.investorName}</a>
            </td>
            <td data-label="Category">
              {categoryNames[r.category] ?? r.category}
              <div className="muted small">signed {r.signedOn}</div>
            </td>
            <td data-label="Expires">
              <Badge tone={r.standing === 'expired' ? 'red' : 'amber'}>{r.standing === 'expired' ? `expired ${r.expiresOn}` : `on ${r.expiresOn}`}</Badge>
            </td>
          </tr>
        )}
      />
    </section>
  );
}
