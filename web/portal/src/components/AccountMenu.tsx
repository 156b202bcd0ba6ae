// The signed-in investor's name, and sign out: on this device, or on every device.
import { useState } from 'react';
import { portalApi, type Session } from '../lib/api.ts';
import { m } from '../messages.ts';
import { FormStatus } from './ui.tsx';

export function AccountMenu({ session, onSignedOut }: { session: Session; onSignedOut: (everywhere: boolean) => void }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
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
    <details className="account">
      <summary aria-label={`${m.accountMenu}: ${m.signedInAs(session.name)}`}>
        <span className="account-name">{session.name}</span>
      </summary>
      <div className="account-panel">
        <p className="muted small">{m.signedInAs(session.name)}</p>
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
