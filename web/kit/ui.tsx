// The components both apps show: loading, and a form's outcome. The spinner's look is the kit's
// (ui.css, in each app's tokens); the `state` and `alert` classes are each app's, so each keeps its theme.
import { type ReactNode, useEffect, useRef } from 'react';
import './ui.css';
import { refusalOf } from './errors.ts';

export const Spinner = ({ label = 'Loading…' }: { label?: string }) => (
  <div className="state" role="status" aria-live="polite">
    <span className="spinner" aria-hidden="true" />
    {label}
  </div>
);

/**
 * A form's outcome: the refusal as an alert (read out at once, with the fields it names), else the
 * success as a polite status. `persistent` keeps an empty status region in the page, so that a
 * screen reader already knows it when the first outcome arrives (the portal's forms).
 */
export function FormStatus({ error, done, id, testId, persistent }: { error?: unknown; done?: ReactNode; id?: string; testId?: string; persistent?: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  const refused = error !== undefined && error !== null && error !== '';
  const shown = refused || (done !== undefined && done !== null && done !== false && done !== '');
  useEffect(() => {
    // A submit button disabled while its call runs drops keyboard focus to the page; the outcome
    // takes it then, so Tab goes on from the form rather than from the top of the page. Focus that
    // is still somewhere (a field being corrected) stays where it is. Runs again for each new outcome.
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
            {fields.map((f) => (
              <li key={`${f.field}:${f.detail}`}>
                {f.field && <code>{f.field}</code>} {f.detail}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  if (!shown && !persistent) return null;
  return (
    <div ref={box} id={id} className={shown ? 'alert alert-ok' : 'sr-only'} role="status" tabIndex={-1} data-testid={testId}>
      {shown ? done : null}
    </div>
  );
}
