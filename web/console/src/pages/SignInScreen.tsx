// Sign-in: with a passkey (the browser offers the ones it has for the console), with the firm's
// identity provider when single sign-on is configured, or, below them, the bootstrap way for the
// first admin, a pasted key (components/KeyForm.tsx).
import { useState } from 'react';
import type { StaffSession, Whoami } from '../lib/api.ts';
import { useLoad } from '../../../kit/hooks.ts';
import { describePasskeyError, signInWithPasskey, singleSignOnStart, staffApi } from '../lib/staff.ts';
import { KeyForm } from '../components/KeyForm.tsx';
import { FormStatus } from '../components/ui.tsx';
import './SignInScreen.css';

export function SignInScreen({
  reason,
  onPasskey,
  onKey,
}: {
  reason?: string | undefined;
  onPasskey: (session: StaffSession) => void;
  onKey: (who: Whoami) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [sso] = useLoad(() => staffApi.singleSignOn(), []);
  const signIn = async () => {
    setBusy(true);
    setError(undefined);
    try {
      onPasskey(await signInWithPasskey());
    } catch (err) {
      setError(describePasskeyError(err));
      setBusy(false);
    }
  };
  return (
    <main className="signin">
      <div className="signin-card">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true" />
          dealflow <span className="brand-sub">console</span>
        </div>
        <section className="signin-passkey" aria-labelledby="signin-title">
          <h1 id="signin-title">Sign in to the console</h1>
          {reason && (
            <p className="alert alert-warn" role="status">
              {reason}
            </p>
          )}
          <p className="muted">Use the passkey you created from your invitation: your device asks for your fingerprint, face or PIN.</p>
          <FormStatus error={error} persistent />
          <button type="button" className="button button-primary button-block" onClick={signIn} disabled={busy}>
            {busy ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
          </button>
          {sso.status === 'ready' && sso.value.enabled && (
            <a className="button button-block" href={singleSignOnStart}>
              Sign in with {sso.value.name}
            </a>
          )}
          <p className="muted small">No passkey yet? Ask an admin to invite you: the link creates one.</p>
        </section>
        <KeyForm onSignedIn={onKey} />
      </div>
    </main>
  );
}
