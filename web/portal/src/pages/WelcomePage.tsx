// An invitation link (#/welcome/<token>): who it is for, then a passkey is created and the investor
// is signed in. The token is taken out of the address bar at once, so it stays out of the history.
import { useEffect, useState } from 'react';
import { useLoad } from '../../../src/lib/hooks.ts';
import { ApiError, portalApi, type Session } from '../lib/api.ts';
import { describePasskeyError, registerPasskey } from '../lib/passkeys.ts';
import { m } from '../messages.ts';
import { ErrorBox, FormStatus, Spinner } from '../components/ui.tsx';

export function WelcomePage({ invitation, onSignedIn }: { invitation: string; onSignedIn: (session: Session) => void }) {
  const [invited, retry] = useLoad(() => portalApi.registrationOptions(invitation), [invitation]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    history.replaceState(null, '', `${location.pathname}${location.search}#/welcome`);
  }, []);

  if (invited.status === 'loading') return <Spinner label={m.welcomeChecking} />;
  if (invited.status === 'error') {
    if (invited.error instanceof ApiError && invited.error.status === 404) {
      return (
        <section className="card narrow" aria-labelledby="welcome-title">
          <h1 id="welcome-title">{m.welcomeTitle}</h1>
          <p className="alert alert-error" role="alert">
            {m.welcomeInvalid}
          </p>
          <p>{m.welcomeUsedHint}</p>
          <a className="button button-primary" href="#/sign-in">
            {m.goToSignIn}
          </a>
        </section>
      );
    }
    return <ErrorBox error={invited.error} retry={retry} />;
  }

  const create = async () => {
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await registerPasskey(invitation));
    } catch (err) {
      setError(describePasskeyError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card narrow" aria-labelledby="welcome-title">
      <h1 id="welcome-title">{m.welcomeTitle}</h1>
      <p className="lead">{m.welcomeHello(invited.value.investor.name)}</p>
      <p>{m.welcomeExplain}</p>
      <FormStatus error={error} />
      <button type="button" className="button button-primary button-wide" onClick={create} disabled={busy}>
        {busy ? m.welcomeCreating : m.welcomeCreate}
      </button>
    </section>
  );
}
