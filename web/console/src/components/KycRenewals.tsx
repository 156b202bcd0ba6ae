// Investors whose KYC level has expired or expires within 30 days, soonest first: an expired level
// sends the investor back to the KYC requests in the portal, and moves that need the level are refused.
import { useState } from 'react';
import { useLoad } from '../../../kit/hooks.ts';
import { consoleApi } from '../lib/api.ts';
import { PagedTable } from './PagedTable.tsx';
import { Badge } from './ui.tsx';

export function KycRenewals() {
  const [page, setPage] = useState(1);
  const [list, reload] = useLoad(() => consoleApi.expiringKyc(page), [page]);
  return (
    <section aria-labelledby="kyc-renewals-title" className="renewals">
      <h2 id="kyc-renewals-title">KYC to renew</h2>
      <p className="muted">Expired, or expiring within 30 days. Once expired, the investor is asked for the documents again in the portal.</p>
      <PagedTable
        list={list}
        retry={reload}
        empty={{ title: 'No KYC expires within 30 days' }}
        label="KYC levels to renew, soonest first"
        className="renewals-table"
        page={page}
        onPage={setPage}
        head={
          <tr>
            <th scope="col">Investor</th>
            <th scope="col">Level</th>
            <th scope="col">Expires</th>
          </tr>
        }
        row={(r) => (
          <tr key={r.investorUserId}>
            <td data-label="Investor">
              <a href={`#/investors/${encodeURIComponent(r.investorUserId)}`}>{r.investorName}</a>
            </td>
            <td data-label="Level">
              {r.level}
              <div className="muted small">accepted {r.acceptedOn}</div>
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
