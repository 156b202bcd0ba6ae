// The shell: the sign-in gate (a passkey's session cookie, or a pasted key), the join page of an
// invitation, the top bar (sections, the signed-in person, sign out) and the pages.
// On a phone the top bar is one row (the brand and the sections), and the signed-in person and
// Sign out close the page instead, so the page starts higher.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, consoleApi, setAuth, setUnauthenticatedHandler, type StaffSession, tokenStore, type Whoami } from './lib/api.ts';
import { staffApi } from './lib/staff.ts';
import { type Who, WhoContext } from './lib/who.ts';
import { Account } from './components/Account.tsx';
import { JoinPage } from './pages/JoinPage.tsx';
import { PeoplePage } from './pages/PeoplePage.tsx';
import { ActivityPage } from './pages/ActivityPage.tsx';
import { DocumentsPage } from './pages/DocumentsPage.tsx';
import { BoardPage } from './pages/BoardPage.tsx';
import { DealSettingsPage } from './pages/DealSettingsPage.tsx';
import { DealsPage } from './pages/DealsPage.tsx';
import { FunnelPage } from './pages/FunnelPage.tsx';
import { GraphPage } from './pages/GraphPage.tsx';
import { PHONE, useCurrentInView, useHashRoute, useLoad, useMedia, useRequestsVersion } from '../../kit/hooks.ts';
import { useEditRequestFeed } from './lib/live.ts';
import { InboxPage } from './pages/InboxPage.tsx';
import { InvestorFormPage } from './pages/InvestorFormPage.tsx';
import { InvestorImportPage } from './pages/InvestorImportPage.tsx';
import { InvestorsPage } from './pages/InvestorsPage.tsx';
import { ChecksPage } from './pages/ChecksPage.tsx';
import { PaymentsPage } from './pages/PaymentsPage.tsx';
import { SubscriptionsPage } from './pages/SubscriptionsPage.tsx';
import { TablePage } from './pages/TablePage.tsx';
import { SignInScreen } from './pages/SignInScreen.tsx';
import { NotFound, Spinner } from './components/ui.tsx';
import { WebhooksPage } from './pages/WebhooksPage.tsx';
import { WorkflowEditorPage } from './pages/WorkflowEditorPage.tsx';
import './App.css';

type Session = { status: 'checking' } | { status: 'signed-out'; reason?: string } | { status: 'signed-in'; who: Who };

export function App() {
  const parts = useHashRoute();
  const [session, setSession] = useState<Session>({ status: 'checking' });

  // How the person now signed in did (undefined when no one is): the calls still under way when a
  // session ends are refused too, and only the first refusal speaks.
  const via = useRef<Who['via']>(undefined);
  const signOut = useCallback((reason?: string) => {
    via.current = undefined;
    tokenStore.clear();
    setAuth({ kind: 'token' });
    setSession({ status: 'signed-out', ...(reason ? { reason } : {}) });
  }, []);
  const byKey = useCallback((who: Whoami) => {
    via.current = 'key';
    setSession({ status: 'signed-in', who: { userId: who.userId, role: who.role, via: 'key' } });
  }, []);
  const byPasskey = useCallback((s: StaffSession) => {
    via.current = 'passkey';
    setAuth({ kind: 'cookie', csrfToken: s.csrfToken });
    setSession({ status: 'signed-in', who: { userId: s.personId, name: s.name, role: s.role, via: 'passkey' } });
  }, []);

  useEffect(() => {
    setUnauthenticatedHandler(() => {
      if (via.current === undefined) return;
      signOut(
        via.current === 'passkey'
          ? 'Your session has ended (it expired, you signed out elsewhere, or your access was removed). Sign in again.'
          : 'Your token is no longer accepted (revoked or expired). Enter a valid admin token.',
      );
    });
    const token = tokenStore.get();
    if (!token) {
      // No key in this browser: perhaps a passkey's session cookie.
      staffApi.session().then(byPasskey, () => setSession({ status: 'signed-out' }));
      return;
    }
    api.whoami(token).then(
      (who) => (who.role !== 'investor' ? byKey(who) : signOut('That token belongs to an investor. The console needs a staff token.')),
      () => signOut('The saved token was not accepted. Enter it again.'),
    );
  }, [signOut, byKey, byPasskey]);

  // An invitation link opens the join page whoever is signed in on this device.
  if (parts[0] === 'join' && parts[1]) {
    const invitation = parts[1];
    return (
      <JoinPage
        invitation={invitation}
        onSignedIn={(s) => {
          tokenStore.clear();
          byPasskey(s);
          // The spent link leaves the history: replaced by the deals, then the route reads it again.
          history.replaceState(null, '', `${location.pathname}${location.search}#/`);
          window.dispatchEvent(new HashChangeEvent('hashchange'));
        }}
      />
    );
  }
  if (session.status === 'checking') return <Spinner label="Checking who is signed in…" />;
  if (session.status === 'signed-out') return <SignInScreen reason={session.reason} onPasskey={byPasskey} onKey={byKey} />;
  return (
    <WhoContext.Provider value={session.who}>
      <Shell who={session.who} onSignOut={signOut} />
    </WhoContext.Provider>
  );
}

const sections = [
  { id: 'deals', label: 'Deals' },
  { id: 'investors', label: 'Investors' },
  { id: 'inbox', label: 'Inbox' },
  { id: 'payments', label: 'Payments' },
  { id: 'checks', label: 'Checks' },
  { id: 'subscriptions', label: 'Subscriptions' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'people', label: 'People' },
] as const;

function route(parts: string[], who: Who) {
  const [first = 'deals', second, third, fourth] = parts;
  if (first === 'deals') {
    if (!second) return <DealsPage />;
    if (second === 'new') return <DealSettingsPage dealId={undefined} />;
    switch (third) {
      case undefined:
        return <BoardPage dealId={second} investorUserId={undefined} />;
      case 'investors':
        return fourth ? <BoardPage dealId={second} investorUserId={fourth} /> : <BoardPage dealId={second} investorUserId={undefined} />;
      case 'table':
        return <TablePage dealId={second} />;
      case 'graph':
        return <GraphPage dealId={second} />;
      case 'funnel':
        return <FunnelPage dealId={second} />;
      case 'activity':
        return <ActivityPage dealId={second} />;
      case 'documents':
        return <DocumentsPage dealId={second} />;
      case 'workflow':
        return <WorkflowEditorPage dealId={second} />;
      case 'settings':
        return <DealSettingsPage dealId={second} />;
    }
  }
  if (first === 'investors') {
    if (!second) return <InvestorsPage />;
    // A link to the import for another deal (?deal=) starts the page afresh for that deal.
    if (second === 'import') return <InvestorImportPage key={new URLSearchParams(location.hash.split('?')[1] ?? '').get('deal') ?? ''} />;
    return <InvestorFormPage investorUserId={second === 'new' ? undefined : second} />;
  }
  if (first === 'inbox' && !second) return <InboxPage />;
  if (first === 'webhooks' && !second) return <WebhooksPage />;
  if (first === 'subscriptions' && !second) return <SubscriptionsPage />;
  if (first === 'payments' && !second) return <PaymentsPage />;
  if (first === 'checks' && !second) return <ChecksPage />;
  if (first === 'people' && !second) return <PeoplePage />;
  return <NotFound what="There is no page at this address." />;
}

function Shell({ who, onSignOut }: { who: Who; onSignOut: (note?: string) => void }) {
  const parts = useHashRoute();
  const current = parts[0] ?? 'deals';
  const requestsVersion = useRequestsVersion();
  const [inbox, reloadInbox] = useLoad(() => consoleApi.inbox(1, 1), [parts.join('/'), requestsVersion]);
  // On every page, a request filed or decided in any deal, by anyone, reaches the badge at once.
  useEditRequestFeed(reloadInbox);
  const pending = inbox.status === 'ready' ? inbox.value.total : 0;
  const phone = useMedia(PHONE);
  const sectionsRow = useRef<HTMLElement>(null);
  useCurrentInView(sectionsRow, '.section.active', `${current} ${phone}`);
  const account = <Account who={who} phone={phone} onSignedOut={onSignOut} />;
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <a className="brand" href="#/">
          <span className="brand-mark" aria-hidden="true" />
          dealflow <span className="brand-sub">console</span>
        </a>
        <nav className="sections" aria-label="Sections" ref={sectionsRow}>
          {sections.map((s) => (
            <a key={s.id} href={`#/${s.id}`} className={current === s.id ? 'section active' : 'section'} aria-current={current === s.id ? 'page' : undefined}>
              {s.label}
              {s.id === 'inbox' && pending > 0 && (
                <span className="count-badge">
                  <span aria-hidden="true">{pending}</span>
                  <span className="visually-hidden">{pending} pending</span>
                </span>
              )}
            </a>
          ))}
        </nav>
        {!phone && account}
      </header>
      <main className="page" id="main" tabIndex={-1}>
        {route(parts, who)}
      </main>
      {phone && (
        // biome-ignore lint/a11y/useAriaPropsSupportedByRole: the footer is the page's contentinfo landmark on a phone (axe's region rule wants the account controls inside one); its label names it
        <footer className="shell-foot" aria-label="Account">
          {account}
        </footer>
      )}
    </div>
  );
}
