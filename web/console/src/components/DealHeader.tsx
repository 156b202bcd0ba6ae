// A deal's title and its views: board, table, graph, funnel, activity, documents, workflow editor and settings.
import { useRef } from 'react';
import { href, useCurrentInView } from '../../../kit/hooks.ts';
import './DealHeader.css';

export type DealView = 'board' | 'table' | 'graph' | 'funnel' | 'activity' | 'documents' | 'workflow' | 'settings';

const views: { id: DealView; label: string; path: string[] }[] = [
  { id: 'board', label: 'Board', path: [] },
  { id: 'table', label: 'Table', path: ['table'] },
  { id: 'graph', label: 'Workflow graph', path: ['graph'] },
  { id: 'funnel', label: 'Funnel', path: ['funnel'] },
  { id: 'activity', label: 'Activity', path: ['activity'] },
  { id: 'documents', label: 'Documents', path: ['documents'] },
  { id: 'workflow', label: 'Edit workflow', path: ['workflow'] },
  { id: 'settings', label: 'Settings', path: ['settings'] },
];

/** The views that share the filters of the URL's query: switching between them keeps the query. */
const filteredViews = new Set<DealView>(['board', 'table', 'funnel']);

export function DealHeader({ dealId, name, view }: { dealId: string; name: string | undefined; view: DealView }) {
  const query = filteredViews.has(view) ? (location.hash.split('?')[1] ?? '') : '';
  const tabs = useRef<HTMLElement>(null);
  useCurrentInView(tabs, '.tab.active', view);
  return (
    <div className="page-head">
      <div>
        <nav className="crumbs" aria-label="Breadcrumb">
          <a href="#/">Deals</a> <span aria-hidden="true">/</span>
        </nav>
        <h1 title={name ?? dealId}>{name ?? dealId}</h1>
      </div>
      <nav className="tabs" aria-label="Deal views" ref={tabs}>
        {views.map((v) => (
          <a
            key={v.id}
            href={href('deals', dealId, ...v.path) + (query && filteredViews.has(v.id) ? `?${query}` : '')}
            className={view === v.id ? 'tab active' : 'tab'}
            aria-current={view === v.id ? 'page' : undefined}
          >
            {v.label}
          </a>
        ))}
      </nav>
    </div>
  );
}
