// The investor directory: a searchable list a page at a time, with links to create, edit and
// import investors.
import { PagedTable } from '../components/PagedTable.tsx';
import { useState } from 'react';
import { consoleApi } from '../lib/api.ts';
import { plural } from '../lib/format.ts';
import { href, useDebounced, useLoad } from '../../../kit/hooks.ts';
import { When } from '../components/ui.tsx';

export function InvestorsPage() {
  const [search, setSearch] = useState('');
  const query = useDebounced(search.trim());
  const [page, setPage] = useState(1);
  const [list, reload] = useLoad(() => consoleApi.directory(query, page, 25), [query, page]);

  return (
    <section aria-labelledby="investors-title">
      <div className="page-head">
        <div>
          <h1 id="investors-title">Investors</h1>
          <p className="muted">The directory every deal draws from.</p>
        </div>
        <div className="row-actions">
          <a className="button" href="#/investors/import">
            Import CSV
          </a>
          <a className="button button-primary" href="#/investors/new">
            New investor
          </a>
        </div>
      </div>
      <div className="toolbar">
        <label className="search">
          <span className="visually-hidden">Search investors by name, e-mail or id</span>
          <input
            type="search"
            placeholder="Search by name, e-mail or id"
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setPage(1);
            }}
          />
        </label>
        <span className="muted" aria-live="polite">
          {list.status === 'ready' ? plural(list.value.total, 'investor') : '\u00a0'}
        </span>
      </div>
      <PagedTable
        list={list}
        retry={reload}
        empty={{
          title: query ? 'No investor matches' : 'No investors yet',
          children: (
            <>
              <a href="#/investors/new">Add one</a> or <a href="#/investors/import">import a CSV</a>.
            </>
          ),
        }}
        label="Investor directory"
        className="directory-table"
        page={page}
        onPage={setPage}
        head={
          <tr>
            <th scope="col">Investor</th>
            <th scope="col" className="num">
              KYC
            </th>
            <th scope="col">Classes</th>
            <th scope="col" className="num">
              Deals
            </th>
            <th scope="col">Updated</th>
          </tr>
        }
        row={(i) => (
          <tr key={i.id} data-investor-id={i.id}>
            <td data-label="Investor">
              <a href={href('investors', i.id)}>{i.fullName}</a>
              <div className="muted small">{i.email ?? i.id}</div>
            </td>
            <td className="num" data-label="KYC">
              {i.kycCheckLevel ?? '—'}
            </td>
            <td data-label="Classes">{i.classifications.join(', ') || '—'}</td>
            <td className="num" data-label="Deals">
              {i.deals}
            </td>
            <td data-label="Updated">
              <When iso={i.updatedAt} />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
