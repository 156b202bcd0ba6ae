// An invitation link (#/join/<token>): who it is for, then a passkey is created and the person is
// signed in, with the role the admin gave them.
import { type ReactNode, useState } from 'react';
import { rightAddress } from '../../../kit/errors.ts';
import { useLoad } from '../../../kit/hooks.ts';
import { ApiError, type StaffSession } from '../lib/api.ts';
import { describePasskeyError, registerPasskey, staffApi } from '../lib/staff.ts';
import { ErrorState, FormStatus, Spinner } from '../components/ui.tsx';
import './SignInScreen.css';

export function JoinPage({ invitation, onSignedIn }: { invitation: string; onSignedIn: (session: StaffSession) => void }) {
  const [invited, retry] = useLoad(() => staffApi.registrationOptions(invitation), [invitation]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const create = async () => {
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await registerPasskey(invitation));
    } catch (err) {
      setError(describePasskeyError(err));
      setBusy(false);
    }
  };

  let body: ReactNode;
  const address = invited.status === 'error' ? rightAddress(invited.error, `#/join/${invitation}`) : undefined;
  if (invited.status === 'loading') body = <Spinner label="Checking your invitation…" />;
  else if (address) {
    // Opened at another address of this host (127.0.0.1 for localhost): passkeys belong to one.
    body = (
      <>
        <p className="alert alert-error" role="alert">
          This link was opened at another address than the console's: passkeys work only at {new URL(address).origin}.
        </p>
        <a className="button button-primary button-block" href={address}>
          Open the invitation there
        </a>
      </>
    );
  } else if (invited.status === 'error' && invited.error instanceof ApiError && invited.error.status === 404) {
    body = (
      <>
        <p className="alert alert-error" role="alert">
          This invitation link is not valid any more: it was used, replaced by a newer one, or it expired.
        </p>
        <p className="muted">If you created your passkey already, sign in with it. Otherwise ask an admin for a new link.</p>
        <a className="button button-primary button-block" href="#/">
          Go to sign in
        </a>
      </>
    );
  } else if (invited.status === 'error') body = <ErrorState error={invited.error} retry={retry} />;
  else {
    body = (
      <>
        <p className="lead">
          Welcome, <strong>{invited.value.person.name}</strong>. You are invited to the dealflow console.
        </p>
        <p className="muted">
          Create a passkey for this site: your device keeps it and asks for your fingerprint, face or PIN each time you sign in. No password to remember.
        </p>
        <FormStatus error={error} persistent />
        <button type="button" className="button button-primary button-block" onClick={create} disabled={busy}>
          {busy ? 'Waiting for your device…' : 'Create your passkey'}
        </button>
      </>
    );
  }
  return (
    <main className="signin">
      <section className="signin-card" aria-labelledby="join-title">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true" />
          dealflow <span className="brand-sub">console</span>
        </div>
        <h1 id="join-title">Join the console</h1>
        {body}
      </section>
    </main>
  );
}
