// Small shared pieces: loading, error and empty states, badges.
import type { ReactNode } from 'react';
import { describeError } from './api.ts';

export const Spinner = ({ label = 'Loading…' }: { label?: string }) => (
  <div className="state" role="status" aria-live="polite">
    <span className="spinner" aria-hidden="true" />
    {label}
  </div>
);

export const ErrorState = ({ error, retry, compact }: { error: unknown; retry?: () => void; compact?: boolean }) => (
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
