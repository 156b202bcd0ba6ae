// A paged list as a table: loading and its failure, the empty state, the table in its scrolling
// region, and the pager (the directory, the payments, the subscriptions); and that region alone.
import type { ReactNode } from 'react';
import type { Loadable } from '../../../kit/hooks.ts';
import { Pager } from './Pager.tsx';
import { Empty, Pending } from './ui.tsx';

interface Props<T> {
  list: Loadable<{ output: readonly T[]; totalPages: number }>;
  retry: () => void;
  /** The empty state's title, and what it offers (links) below it. */
  empty: { title: string; children?: ReactNode };
  /** The table's accessible name and its class. */
  label: string;
  className: string;
  page: number;
  onPage: (page: number) => void;
  /** The header row, and a row of the body for each item. */
  head: ReactNode;
  row: (item: T) => ReactNode;
}

export function PagedTable<T>({ list, retry, empty, label, className, page, onPage, head, row }: Props<T>) {
  if (list.status !== 'ready') return <Pending state={list} retry={retry} />;
  if (list.value.output.length === 0) return <Empty title={empty.title}>{empty.children}</Empty>;
  return (
    <>
      <TableRegion label={label} className={className} head={head}>
        {list.value.output.map(row)}
      </TableRegion>
      <Pager page={page} totalPages={list.value.totalPages} onPage={onPage} />
    </>
  );
}

/** A table in a scrolling region a keyboard can reach, named for screen readers. */
export function TableRegion({ label, className, head, children }: { label: string; className: string; head: ReactNode; children: ReactNode }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table className={`table ${className}`}>
        <thead>{head}</thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
