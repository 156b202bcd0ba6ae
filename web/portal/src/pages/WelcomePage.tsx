// An invitation link (#/welcome/<token>): who it is for, then a passkey is created and the investor
// is signed in. The token is taken out of the address bar at once, so it stays out of the history,
// and kept in this tab's sessionStorage until the passkey exists, so that a reload of #/welcome
// still finds it (the tab's storage ends with the tab; no other tab or site reads it).
import { useEffect, useState } from 'react';
import { useLoad } from '../../../kit/hooks.ts';
import { ApiError, portalApi, type Session } from '../lib/api.ts';
import { describePasskeyError, registerPasskey } from '../lib/passkeys.ts';
import { m } from '../messages.ts';
import { ErrorBox, FormStatus, Spinner } from '../components/ui.tsx';
import { rightAddress } from '../lib/errors.ts';

const KEPT = 'dealflow.portal.invitation';
/** The invitation this tab opened, when its address no longer holds it (a reload of #/welcome). */
export const keptInvitation = (): string | undefined => {
  try {
    return sessionStorage.getItem(KEPT) ?? undefined;
  } catch {
    return undefined;
  }
};
const keep = (invitation: string | undefined) => {
  try {
    if (invitation) sessionStorage.setItem(KEPT, invitation);
    else sessionStorage.removeItem(KEPT);
  } catch {
    // Storage refused (a private mode): a reload then asks for the link again, as before.
  }
};

export function WelcomePage({ invitation, onSignedIn }: { invitation: string; onSignedIn: (session: Session) => void }) {
  const [invited, retry] = useLoad(() => portalApi.registrationOptions(invitation), [invitation]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    keep(invitation);
    history.replaceState(null, '', `${location.pathname}${location.search}#/welcome`);
  }, [invitation]);

  if (invited.status === 'loading') return <Spinner label={m.welcomeChecking} />;
  if (invited.status === 'error') {
    const address = rightAddress(invited.error);
    if (address) {
      return (
        <section className="card narrow" aria-labelledby="welcome-title">
          <h1 id="welcome-title">{m.welcomeTitle}</h1>
          <p className="alert alert-error" role="alert" data-testid="wrong-address">
            {m.wrongAddress(address)}
          </p>
          <a className="button button-primary" href={`${address}#/welcome/${invitation}`}>
            {m.openRightAddress}
          </a>
        </section>
      );
    }
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
      const session = await registerPasskey(invitation);
      keep(undefined);
      onSignedIn(session);
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
      <FormStatus error={error} persistent />
      <button type="button" className="button button-primary button-wide" onClick={create} disabled={busy}>
        {busy ? m.welcomeCreating : m.welcomeCreate}
      </button>
    </section>
  );
}
