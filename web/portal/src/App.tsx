// The shell: the session (checked once with GET /portal/api/session), the hash routes, the top bar.
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { portalApi, setCsrfToken, setUnauthenticatedHandler, type Session } from './lib/api.ts';
import { href, navigate, useHashRoute } from '../../kit/hooks.ts';
import { m } from './messages.ts';
import { Spinner } from './components/ui.tsx';
import { AccountMenu } from './components/AccountMenu.tsx';
import { keptInvitation, WelcomePage } from './pages/WelcomePage.tsx';
import { SignInPage } from './pages/SignInPage.tsx';
import { DealsPage } from './pages/DealsPage.tsx';
import { DealPage } from './pages/DealPage.tsx';
import './App.css';

type State = { status: 'checking' } | { status: 'signed-out'; note?: string } | { status: 'signed-in'; session: Session };

export function App() {
  const parts = useHashRoute();
  const [state, setState] = useState<State>({ status: 'checking' });

  const signedIn = useCallback((session: Session) => {
    setCsrfToken(session.csrfToken);
    setState({ status: 'signed-in', session });
  }, []);
  const signedOut = useCallback((note?: string) => {
    setCsrfToken(undefined);
    setState({ status: 'signed-out', ...(note ? { note } : {}) });
  }, []);

  useEffect(() => {
    setUnauthenticatedHandler(() => signedOut(m.sessionEnded));
    portalApi.session().then(signedIn, () => signedOut());
  }, [signedIn, signedOut]);

  // An invitation link opens the welcome screen whether or not someone is signed in on this device.
  const invitation = parts[0] === 'welcome' ? (parts[1] ?? keptInvitation()) : undefined;
  if (invitation) {
    return (
      <Frame>
        <WelcomePage
          invitation={invitation}
          onSignedIn={(session) => {
            signedIn(session);
            navigate('');
          }}
        />
      </Frame>
    );
  }
  if (state.status === 'checking') return <Spinner />;
  if (state.status === 'signed-out') {
    return (
      <Frame>
        <SignInPage note={state.note} onSignedIn={signedIn} />
      </Frame>
    );
  }
  const { session } = state;
  const [first, second] = parts;
  let page: ReactNode;
  if (first === 'deals' && second) page = <DealPage session={session} dealId={second} />;
  else if (!first || first === 'deals' || first === 'sign-in' || first === 'welcome') page = <DealsPage session={session} />;
  else
    page = (
      <section className="card narrow">
        <h1>{m.pageNotFound}</h1>
        <a href={href()}>{m.back}</a>
      </section>
    );
  return (
    <Frame menu={<AccountMenu session={session} onSignedOut={(everywhere) => signedOut(everywhere ? m.signedOutEverywhere : m.signedOutHere)} />}>{page}</Frame>
  );
}

function Frame({ children, menu }: { children: ReactNode; menu?: ReactNode }) {
  return (
    <div className="shell">
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link to #main; the click only keeps the hash route from changing and moves focus itself */}
      <a className="skip-link" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        {m.skipToContent}
      </a>
      <header className="topbar">
        <a className="brand" href={href()}>
          <span className="brand-mark" aria-hidden="true" />
          {m.appName}
        </a>
        {menu}
      </header>
      <main className="page" id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
