// What to renew, soonest first: investors whose check (a category statement, a KYC level) has
// expired or expires within 30 days, with what it is and when, red once expired, amber before.
import { type ReactNode, useState } from 'react';
import { useLoad } from '../../../kit/hooks.ts';
import { PagedTable } from './PagedTable.tsx';
import { Badge } from './ui.tsx';

interface Renewal {
  investorUserId: string;
  investorName: string;
  standing: string;
  expiresOn: string;
}

interface Props<R extends Renewal> {
  id: string;
  title: string;
  intro: ReactNode;
  /** The empty state's title, and the table's accessible name. */
  empty: string;
  label: string;
  load: (page: number) => Promise<{ output: readonly R[]; totalPages: number }>;
  /** The column that says what expires: its heading and its cell. */
  what: { heading: string; cell: (r: R) => ReactNode };
}

export function Renewals<R extends Renewal>({ id, title, intro, empty, label, load, what }: Props<R>) {
  const [page, setPage] = useState(1);
  const [list, reload] = useLoad(() => load(page), [page]);
  return (
    <section aria-labelledby={id} className="renewals">
      <h2 id={id}>{title}</h2>
      <p className="muted">{intro}</p>
      <PagedTable
        list={list}
        retry={reload}
        empty={{ title: empty }}
        label={label}
        className="renewals-table"
        page={page}
        onPage={setPage}
        head={
          <tr>
            <th scope="col">Investor</th>
            <th scope="col">{what.heading}</th>
            <th scope="col">Expires</th>
          </tr>
        }
        row={(r) => (
          <tr key={r.investorUserId}>
            <td data-label="Investor">
              <a href={`#/investors/${encodeURIComponent(r.investorUserId)}`}>{r.investorName}</a>
            </td>
            <td data-label={what.heading}>{what.cell(r)}</td>
            <td data-label="Expires">
              <Badge tone={r.standing === 'expired' ? 'red' : 'amber'}>{r.standing === 'expired' ? `expired ${r.expiresOn}` : `on ${r.expiresOn}`}</Badge>
            </td>
          </tr>
        )}
      />
    </section>
  );
}
