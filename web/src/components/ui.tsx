// Small shared pieces: loading, error and empty states, a form's outcome, badges.
import { useEffect, useRef, type ReactNode } from 'react';
import { ApiError, describeError, refusalOf } from '../lib/api.ts';
import { exactUtc, formatDateTime } from '../lib/format.ts';
import type { Loadable } from '../lib/hooks.ts';
import './ui.css';
import './containers.css';
import './forms.css';
import './controls-dark.css';

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

/**
 * A form's outcome, worded and marked up the same in every form: the refusal (`error`: the form's
 * own words, or what the service answered: its problem document in plain words, with each field it
 * names) as an alert, read out at once; else the success (`done`) as a polite status. `id` lets a
 * control point at it with aria-describedby.
 */
export function FormStatus({ error, done, id, testId }: { error?: unknown; done?: ReactNode; id?: string; testId?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const refused = error !== undefined && error !== null && error !== '';
  const shown = refused || (done !== undefined && done !== null && done !== false && done !== '');
  useEffect(() => {
    // A submit button disabled while its call runs drops keyboard focus to the page; the outcome
    // takes it then, so Tab goes on from the form rather than from the top of the page. Focus that
    // is still somewhere (a field being corrected) stays where it is.
    if (shown && (document.activeElement === null || document.activeElement === document.body)) box.current?.focus();
  }, [shown, error, done]);
  if (refused) {
    const { message, detail, fields } = refusalOf(error);
    const more = detail !== undefined || fields.length > 0;
    return (
      <div ref={box} id={id} className="alert alert-error" role="alert" tabIndex={-1} data-testid={testId}>
        {more ? <strong>{message}</strong> : message}
        {detail && <div className="alert-detail">{detail}</div>}
        {fields.length > 0 && (
          <ul className="alert-fields">
            {fields.map((f, i) => (
              <li key={i}>
                {f.field && <code>{f.field}</code>} {f.detail}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  if (!shown) return null;
  return (
    <div ref={box} id={id} className="alert alert-ok" role="status" tabIndex={-1} data-testid={testId}>
      {done}
    </div>
  );
}

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

export const Badge = ({ tone = 'neutral', children, title }: { tone?: 'neutral' | 'blue' | 'green' | 'red' | 'amber' | 'violet'; children: ReactNode; title?: string }) => (
  <span className={`badge badge-${tone}`} title={title}>
    {children}
  </span>
);

export const stepTone = (type: string) => (type === 'complete' ? 'green' : type === 'withdrawn' ? 'red' : 'neutral');
