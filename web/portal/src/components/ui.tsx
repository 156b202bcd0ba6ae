// Small shared pieces: loading, a failure, a form's outcome, a copy button.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { describeError } from '../lib/errors.ts';
import { m } from '../messages.ts';
import './ui.css';

export const Spinner = ({ label = m.loading }: { label?: string }) => (
  <div className="state" role="status" aria-live="polite">
    <span className="spinner" aria-hidden="true" />
    {label}
  </div>
);

export const ErrorBox = ({ error, retry }: { error: unknown; retry?: () => void }) => (
  <div className="alert alert-error" role="alert">
    <strong>{m.errorTitle}</strong> <span>{describeError(error)}</span>
    {retry && (
      <div>
        <button type="button" className="button" onClick={retry}>
          {m.retry}
        </button>
      </div>
    )}
  </div>
);

/** A form's outcome: the refusal as an alert (read out at once), else the success as a polite status. */
export function FormStatus({ error, done, id }: { error?: unknown; done?: ReactNode; id?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const refused = error !== undefined && error !== null && error !== '';
  const shown = refused || (done !== undefined && done !== null && done !== '');
  useEffect(() => {
    if (shown && (document.activeElement === null || document.activeElement === document.body)) box.current?.focus();
  }, [shown, error, done]);
  if (refused) {
    return (
      <div ref={box} id={id} className="alert alert-error" role="alert" tabIndex={-1}>
        {typeof error === 'string' ? error : describeError(error)}
      </div>
    );
  }
  return (
    <div ref={box} id={id} className={shown ? 'alert alert-ok' : 'sr-only'} role="status" tabIndex={-1}>
      {shown ? done : null}
    </div>
  );
}

/** Copies `value`; says so for a moment (and to screen readers). */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      className="button button-small copy-button"
      aria-label={m.copyLabel(what)}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(value);
          setCopied(true);
        } catch {
          // The clipboard refused (a browser setting): select the value instead, for Ctrl+C.
          const node = document.querySelector(`[data-copy="${CSS.escape(what)}"]`);
          if (node) getSelection()?.selectAllChildren(node);
        }
      }}
    >
      <span aria-hidden="true">{copied ? m.copied : m.copy}</span>
      <span className="sr-only" role="status">
        {copied ? m.copied : ''}
      </span>
    </button>
  );
}
