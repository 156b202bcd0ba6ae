// Sign in with a passkey: the browser offers the passkeys it has for this site.
import { useState } from 'react';
import type { Session } from '../lib/api.ts';
import { describePasskeyError, signInWithPasskey } from '../lib/passkeys.ts';
import { m } from '../messages.ts';
import { FormStatus } from '../components/ui.tsx';

export function SignInPage({ note, onSignedIn }: { note?: string | undefined; onSignedIn: (session: Session) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const signIn = async () => {
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await signInWithPasskey());
      if (location.hash.startsWith('#/sign-in') || location.hash.startsWith('#/welcome')) location.hash = '#/';
    } catch (err) {
      setError(describePasskeyError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card narrow" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">{m.signInTitle}</h1>
      {note && (
        <p className="alert alert-info" role="status">
          {note}
        </p>
      )}
      <p>{m.signInExplain}</p>
      <FormStatus error={error} persistent />
      <button type="button" className="button button-primary button-wide" onClick={signIn} disabled={busy}>
        {busy ? m.signInWaiting : m.signInButton}
      </button>
      <p className="muted small">{m.signInNoPasskey}</p>
    </section>
  );
}
