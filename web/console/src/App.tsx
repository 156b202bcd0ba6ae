// The shell: the token gate, the top bar (sections, the signed-in person, sign out) and the pages.
// On a phone the top bar is one row (the brand and the sections), and the signed-in person and
// Sign out close the page instead, so the page starts higher.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, consoleApi, setUnauthenticatedHandler, tokenStore, type Whoami } from './lib/api.ts';
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
import { usePersonName } from './components/Person.tsx';
import { SubscriptionsPage } from './pages/SubscriptionsPage.tsx';
import { TablePage } from './pages/TablePage.tsx';
import { TokenScreen } from './pages/TokenScreen.tsx';
import { NotFound, Spinner } from './components/ui.tsx';
import { WebhooksPage } from './pages/WebhooksPage.tsx';
import { WorkflowEditorPage } from './pages/WorkflowEditorPage.tsx';
import './App.css';

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
      (who) =>
        who.role !== 'investor' ? setSession({ status: 'signed-in', who }) : signOut('That token belongs to an investor. The console needs a staff token.'),
      () => signOut('The saved token was not accepted. Enter it again.'),
    );
  }, [signOut]);

  if (session.status === 'checking') return <Spinner label="Checking your token…" />;
  if (session.status === 'signed-out') {
    return <TokenScreen reason={session.reason} onSignedIn={(who) => setSession({ status: 'signed-in', who })} />;
  }
  return <Shell who={session.who} onSignOut={() => signOut()} />;
}

const sections = [
  { id: 'deals', label: 'Deals' },
  { id: 'investors', label: 'Investors' },
  { id: 'inbox', label: 'Inbox' },
  { id: 'payments', label: 'Payments' },
  { id: 'checks', label: 'Checks' },
  { id: 'subscriptions', label: 'Subscriptions' },
  { id: 'webhooks', label: 'Webhooks' },
] as const;

function route(parts: string[], who: Whoami) {
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
  if (first === 'checks' && !second) return <ChecksPage who={who} />;
  return <NotFound what="There is no page at this address." />;
}

function Shell({ who, onSignOut }: { who: Whoami; onSignOut: () => void }) {
  const parts = useHashRoute();
  const name = usePersonName(who.userId);
  const current = parts[0] ?? 'deals';
  const requestsVersion = useRequestsVersion();
  const [inbox, reloadInbox] = useLoad(() => consoleApi.inbox(1, 1), [parts.join('/'), requestsVersion]);
  // On every page, a request filed or decided in any deal, by anyone, reaches the badge at once.
  useEditRequestFeed(reloadInbox);
  const pending = inbox.status === 'ready' ? inbox.value.total : 0;
  const phone = useMedia(PHONE);
  const sectionsRow = useRef<HTMLElement>(null);
  useCurrentInView(sectionsRow, '.section.active', `${current} ${phone}`);
  const account = (
    <div className="topbar-right">
      <span className="who" title={`Signed in as ${who.userId}`}>
        {phone && 'Signed in as '}
        {name ?? who.userId.slice(0, 8)} · {who.role}
      </span>
      <button type="button" className="button button-quiet" onClick={onSignOut}>
        Sign out
      </button>
    </div>
  );
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
