// Small shared pieces: loading, error and empty states, a form's outcome, badges.
import type { ReactNode } from 'react';
import { ApiError, describeError } from '../lib/api.ts';
import { exactUtc, formatDateTime } from '../lib/format.ts';
import type { Loadable } from '../../../kit/hooks.ts';
import './ui.css';
import './containers.css';
import './forms.css';
import './controls-dark.css';
import { Spinner } from '../../../kit/ui.tsx';

export { FormStatus, Spinner } from '../../../kit/ui.tsx';

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

/** What a part of a page shows while its data loads, or when the load failed (with Retry); nothing once it is ready. */
export function Pending({ state, retry, label, compact }: { state: Loadable<unknown>; retry: () => void; label?: string; compact?: boolean }) {
  if (state.status === 'loading') return <Spinner label={label} />;
  if (state.status === 'error') return <ErrorState error={state.error} retry={retry} compact={compact} />;
  return null;
}

export const Empty = ({ title, children }: { title: string; children?: ReactNode }) => (
  <div className="state state-empty">
    <strong>{title}</strong>
    {children && <span>{children}</span>}
  </div>
);

export const Badge = ({
  tone = 'neutral',
  children,
  title,
}: {
  tone?: 'neutral' | 'blue' | 'green' | 'red' | 'amber' | 'violet';
  children: ReactNode;
  title?: string;
}) => (
  <span className={`badge badge-${tone}`} title={title}>
    {children}
  </span>
);

export const stepTone = (type: string) => (type === 'complete' ? 'green' : type === 'withdrawn' ? 'red' : 'neutral');
