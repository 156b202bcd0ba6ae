// Small shared pieces: loading, a failure, a form's outcome, a copy button.
import { useEffect, useState } from 'react';
import { describeError } from '../lib/errors.ts';
import { m } from '../messages.ts';
import './ui.css';

export { FormStatus, Spinner } from '../../../kit/ui.tsx';

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
