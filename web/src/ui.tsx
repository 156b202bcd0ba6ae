// Small shared pieces: loading, error and empty states, badges.
import type { ReactNode } from 'react';
import { ApiError, describeError } from './api.ts';
import { exactUtc, formatDateTime } from './format.ts';

export const Spinner = ({ label = 'Loading…' }: { label?: string }) => (
  <div className="state" role="status" aria-live="polite">
    <span className="spinner" aria-hidden="true" />
    {label}
  </div>
);

/** A date and time in the reader's locale, with the exact UTC time on hover. */
export const When = ({ iso }: { iso: string }) => (
  <time dateTime={iso} title={exactUtc(iso)}>
    {formatDateTime(iso)}
  </time>
);

/** What an unknown deal, investor or page shows: what was not found, and a way back. */
export const NotFound = ({ what, back = '#/', backLabel = 'Back to the deals' }: { what: string; back?: string; backLabel?: string }) => (
  <section className="not-found" aria-labelledby="not-found-title">
    <h1 id="not-found-title">Not found</h1>
    <p className="muted">{what}</p>
    <a className="button" href={back}>
      {backLabel}
    </a>
  </section>
);

export const ErrorState = ({ error, retry, compact }: { error: unknown; retry?: () => void; compact?: boolean }) =>
  error instanceof ApiError && error.status === 404 && !compact ? (
    <NotFound what={`${error.message}. It may have been removed, or the link is wrong.`} />
  ) : (
  <div className={compact ? 'state state-error state-compact' : 'state state-error'} role="alert">
    <strong>Something went wrong.</strong>
    <span>{describeError(error)}</span>
    {retry && (
      <button type="button" className="button" onClick={retry}>
        Retry
      </button>
    )}
  </div>
);

export const Empty = ({ title, children }: { title: string; children?: ReactNode }) => (
  <div className="state state-empty">
    <strong>{title}</strong>
    {children && <span>{children}</span>}
  </div>
);

export const Badge = ({ tone = 'neutral', children, title }: { tone?: 'neutral' | 'blue' | 'green' | 'red' | 'amber' | 'violet'; children: ReactNode; title?: string }) => (
  <span className={`badge badge-${tone}`} title={title}>
    {children}
  </span>
);

export const stepTone = (type: string) => (type === 'complete' ? 'green' : type === 'withdrawn' ? 'red' : 'neutral');
