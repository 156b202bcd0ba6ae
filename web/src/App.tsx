// The shell: the token gate, the top bar and the three pages (deals, board, graph).
import { useCallback, useEffect, useState } from 'react';
import { api, setUnauthenticatedHandler, tokenStore, type Whoami } from './api.ts';
import { BoardPage } from './BoardPage.tsx';
import { DealsPage } from './DealsPage.tsx';
import { GraphPage } from './GraphPage.tsx';
import { navigate, useHashRoute } from './hooks.ts';
import { TokenScreen } from './TokenScreen.tsx';
import { Spinner } from './ui.tsx';

type Session = { status: 'checking' } | { status: 'signed-out'; reason?: string } | { status: 'signed-in'; who: Whoami };

export function App() {
  const [session, setSession] = useState<Session>(() => (tokenStore.get() ? { status: 'checking' } : { status: 'signed-out' }));

  const signOut = useCallback((reason?: string) => {
    tokenStore.clear();
    setSession({ status: 'signed-out', ...(reason ? { reason } : {}) });
  }, []);

  useEffect(() => {
    setUnauthenticatedHandler(() => signOut('Your token is no longer accepted (revoked or expired). Enter a valid admin token.'));
    const token = tokenStore.get();
    if (!token) return;
    api.whoami(token).then(
      (who) => (who.role === 'admin' ? setSession({ status: 'signed-in', who }) : signOut('That token belongs to an investor. The back office needs an admin token.')),
      () => signOut('The saved token was not accepted. Enter it again.'),
    );
  }, [signOut]);

  if (session.status === 'checking') return <Spinner label="Checking your token…" />;
  if (session.status === 'signed-out') {
    return <TokenScreen reason={session.reason} onSignedIn={(who) => setSession({ status: 'signed-in', who })} />;
  }
  return <Shell who={session.who} onSignOut={() => signOut()} />;
}

function Shell({ who, onSignOut }: { who: Whoami; onSignOut: () => void }) {
  const route = useHashRoute();
  const [first, dealId, view, investorUserId] = route;
  let page;
  if (first === 'deals' && dealId && view === 'graph') page = <GraphPage dealId={dealId} />;
  else if (first === 'deals' && dealId) page = <BoardPage dealId={dealId} investorUserId={view === 'investors' ? investorUserId : undefined} />;
  else page = <DealsPage />;
  return (
    <div className="shell">
      <header className="topbar">
        <a className="brand" href="#/" onClick={(e) => (e.preventDefault(), navigate())}>
          <span className="brand-mark" aria-hidden="true" />
          dealflow <span className="brand-sub">back office</span>
        </a>
        <div className="topbar-right">
          <span className="who" title={`Signed in as ${who.userId}`}>
            {who.role} · {who.userId.slice(0, 8)}
          </span>
          <button type="button" className="button button-quiet" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main className="page">{page}</main>
    </div>
  );
}
