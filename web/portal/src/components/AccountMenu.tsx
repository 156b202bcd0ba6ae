// The signed-in investor's name, the language of their e-mails, and sign out: on this device, or on every device.
import { useState } from 'react';
import { type InvestorLanguage, portalApi, type Session } from '../lib/api.ts';
import { m } from '../messages.ts';
import { FormStatus } from './ui.tsx';

export function AccountMenu({ session, onSignedOut }: { session: Session; onSignedOut: (everywhere: boolean) => void }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [language, setLanguage] = useState<InvestorLanguage['language']>();
  const [saved, setSaved] = useState(false);
  // Read when the menu first opens, not with every page.
  const onToggle = (open: boolean) => {
    if (open && language === undefined)
      portalApi.language(session.investorUserId).then(
        (l) => setLanguage(l.language),
        (err: unknown) => setError(err),
      );
  };
  const choose = async (next: InvestorLanguage['language']) => {
    setSaved(false);
    setError(undefined);
    try {
      setLanguage((await portalApi.setLanguage(session.investorUserId, next)).language);
      setSaved(true);
    } catch (err) {
      setError(err);
    }
  };
  const signOut = async (everywhere: boolean) => {
    setBusy(true);
    try {
      await portalApi.signOut(everywhere);
      onSignedOut(everywhere);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <details className="account" onToggle={(e) => onToggle((e.currentTarget as HTMLDetailsElement).open)}>
      <summary aria-label={`${m.accountMenu}: ${m.signedInAs(session.name)}`}>
        <span className="account-name">{session.name}</span>
      </summary>
      <div className="account-panel">
        <p className="muted small">{m.signedInAs(session.name)}</p>
        <label className="field">
          <span className="small">{m.mailLanguage}</span>
          <select value={language ?? ''} disabled={language === undefined} onChange={(e) => choose(e.target.value as InvestorLanguage['language'])}>
            {language === undefined && <option value="">…</option>}
            <option value="en">English</option>
            <option value="de">Deutsch</option>
            <option value="fr">Français</option>
          </select>
        </label>
        {saved && (
          <p className="muted small" role="status">
            {m.mailLanguageSaved}
          </p>
        )}
        <button type="button" className="button button-wide" disabled={busy} onClick={() => signOut(false)}>
          {m.signOutHere}
        </button>
        <button type="button" className="button button-wide" disabled={busy} onClick={() => signOut(true)}>
          {m.signOutEverywhere}
        </button>
        <FormStatus error={error} persistent />
      </div>
    </details>
  );
}
