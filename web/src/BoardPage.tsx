// The pipeline board of one deal: a column per step in workflow order, a card per investor.
// Columns are virtualised and load their cards a page at a time, so a deal of 10,000 investors
// renders a few dozen cards at any moment.
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { api, type BoardColumn, type Card, type Step, type Workflow } from './api.ts';
import { daysSince, formatDays, formatMoney, formatTotals, plural } from './format.ts';
import { navigate, useDebounced, useLoad } from './hooks.ts';
import { InvestorDrawer } from './InvestorDrawer.tsx';
import { MoveDialog } from './MoveDialog.tsx';
import { Badge, Empty, ErrorState, Spinner, stepTone } from './ui.tsx';

const CARD_HEIGHT = 92; // card + gap, px; fixed so the list can be virtualised
const PAGE_SIZE = 50;
const OVERSCAN = 6;
const DRAG_TYPE = 'application/x-dealflow-card';

export function DealHeader({ dealId, name, view }: { dealId: string; name: string | undefined; view: 'board' | 'graph' }) {
  return (
    <div className="page-head">
      <div>
        <nav className="crumbs" aria-label="Breadcrumb">
          <a href="#/">Deals</a> <span aria-hidden="true">/</span>
        </nav>
        <h1>{name ?? dealId}</h1>
      </div>
      <nav className="tabs" aria-label="Deal views">
        <a href={`#/deals/${encodeURIComponent(dealId)}`} className={view === 'board' ? 'tab active' : 'tab'} aria-current={view === 'board' ? 'page' : undefined}>
          Board
        </a>
        <a href={`#/deals/${encodeURIComponent(dealId)}/graph`} className={view === 'graph' ? 'tab active' : 'tab'} aria-current={view === 'graph' ? 'page' : undefined}>
          Workflow graph
        </a>
      </nav>
    </div>
  );
}

interface MoveRequest {
  card: Card;
  targetStepId?: string;
}

export function BoardPage({ dealId, investorUserId }: { dealId: string; investorUserId: string | undefined }) {
  const [search, setSearch] = useState('');
  const query = useDebounced(search.trim());
  const [version, setVersion] = useState(0);
  const [move, setMove] = useState<MoveRequest>();
  const [notice, setNotice] = useState<string>();
  const [meta, reloadMeta] = useLoad(() => Promise.all([api.deal(dealId), api.workflow(dealId)]), [dealId]);
  const [board, reloadBoard] = useLoad(() => api.board(dealId, query), [dealId, query, version]);

  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => setNotice(undefined), 6000);
    return () => clearTimeout(timer);
  }, [notice]);

  const columns = useMemo(() => {
    const byStep = new Map<string, BoardColumn>();
    if (board.status === 'ready') for (const c of board.value.columns) byStep.set(c.stepId, c);
    return byStep;
  }, [board]);

  const openInvestor = (id: string) => navigate('deals', dealId, 'investors', id);
  const closeInvestor = () => navigate('deals', dealId);

  if (meta.status === 'loading') return <Spinner label="Loading the deal…" />;
  if (meta.status === 'error') return <ErrorState error={meta.error} retry={reloadMeta} />;
  const [deal, workflow] = meta.value;
  const total = board.status === 'ready' ? board.value.total : undefined;

  return (
    <section className="board-page" aria-labelledby="board-title">
      <DealHeader dealId={dealId} name={deal.name} view="board" />
      <div className="toolbar">
        <label className="search">
          <span className="visually-hidden">Search investors by name or e-mail</span>
          <input type="search" placeholder="Search by name or e-mail" value={search} onChange={(e) => setSearch(e.target.value)} />
        </label>
        <span className="muted" aria-live="polite" id="board-title">
          {total === undefined ? '\u00a0' : query ? `${plural(total, 'investor')} ${total === 1 ? 'matches' : 'match'} “${query}”` : `${plural(total, 'investor')} on ${workflow.label || 'the workflow'}`}
        </span>
      </div>
      {notice && (
        <div className="toast" role="status">
          {notice}
        </div>
      )}
      {workflow.steps.length === 0 ? (
        <Empty title="This deal has no workflow yet">Set one with PUT /deals/deal/{dealId}/workflow.</Empty>
      ) : board.status === 'error' ? (
        <ErrorState error={board.error} retry={reloadBoard} />
      ) : (
        <div className="board" role="list" aria-label="Steps">
          {workflow.steps.map((step) => (
            <Column
              key={`${step.id}:${query}:${version}`}
              dealId={dealId}
              step={step}
              summary={columns.get(step.id)}
              loading={board.status === 'loading'}
              query={query}
              onOpen={openInvestor}
              onMove={(card, targetStepId) => setMove({ card, ...(targetStepId ? { targetStepId } : {}) })}
              workflow={workflow}
            />
          ))}
        </div>
      )}
      {move && (
        <MoveDialog
          dealId={dealId}
          dealCurrency={deal.currency}
          workflow={workflow}
          card={move.card}
          initialTargetStepId={move.targetStepId}
          onClose={() => setMove(undefined)}
          onMoved={(label) => {
            setMove(undefined);
            setNotice(`${move.card.fullName} moved to ${label}.`);
            refresh();
          }}
        />
      )}
      {investorUserId && (
        <InvestorDrawer
          dealId={dealId}
          investorUserId={investorUserId}
          workflow={workflow}
          version={version}
          onClose={closeInvestor}
          onChanged={refresh}
          onMove={(card) => setMove({ card })}
        />
      )}
    </section>
  );
}

interface ColumnProps {
  dealId: string;
  step: Step;
  summary: BoardColumn | undefined;
  loading: boolean;
  query: string;
  workflow: Workflow;
  onOpen: (investorUserId: string) => void;
  onMove: (card: Card, targetStepId?: string) => void;
}

function Column({ dealId, step, summary, loading, query, workflow, onOpen, onMove }: ColumnProps) {
  const count = summary?.count ?? 0;
  const scroller = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState({ top: 0, height: 600 });
  const [pages, setPages] = useState<Map<number, Card[] | 'loading' | 'error'>>(() => new Map());
  const [dropping, setDropping] = useState(false);

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setViewport({ top: element.scrollTop, height: element.clientHeight }));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const first = Math.max(0, Math.floor(viewport.top / CARD_HEIGHT) - OVERSCAN);
  const last = Math.min(count - 1, Math.ceil((viewport.top + viewport.height) / CARD_HEIGHT) + OVERSCAN);

  useEffect(() => {
    if (loading || count === 0) return;
    for (let page = Math.floor(first / PAGE_SIZE) + 1; page <= Math.floor(last / PAGE_SIZE) + 1; page++) {
      if (pages.has(page)) continue;
      setPages((p) => new Map(p).set(page, 'loading'));
      api.cards(dealId, step.id, query, page, PAGE_SIZE).then(
        (result) => setPages((p) => new Map(p).set(page, result.output)),
        () => setPages((p) => new Map(p).set(page, 'error')),
      );
    }
  }, [first, last, count, loading, pages, dealId, step.id, query]);

  const cardAt = (index: number): Card | 'loading' | 'error' => {
    const page = pages.get(Math.floor(index / PAGE_SIZE) + 1);
    if (page === undefined || page === 'loading') return 'loading';
    if (page === 'error') return 'error';
    return page[index % PAGE_SIZE] ?? 'loading';
  };

  const onDragOver = (event: DragEvent) => {
    if (!event.dataTransfer.types.includes(DRAG_TYPE)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    setDropping(true);
  };
  const onDrop = (event: DragEvent) => {
    setDropping(false);
    const raw = event.dataTransfer.getData(DRAG_TYPE);
    if (!raw) return;
    event.preventDefault();
    const card = JSON.parse(raw) as Card;
    if (card.stepId !== step.id) onMove(card, step.id);
  };

  const items = [];
  for (let index = first; index <= last; index++) {
    const card = cardAt(index);
    const style = { top: index * CARD_HEIGHT };
    items.push(
      typeof card === 'string' ? (
        <div key={`placeholder-${index}`} className={`card card-placeholder${card === 'error' ? ' card-error' : ''}`} style={style} aria-hidden="true">
          {card === 'error' ? 'Could not load' : ''}
        </div>
      ) : (
        <BoardCard key={card.investorUserId} card={card} style={style} workflow={workflow} onOpen={onOpen} onMove={onMove} />
      ),
    );
  }

  return (
    <div
      className={`column${dropping ? ' column-drop' : ''}`}
      role="listitem"
      aria-label={`${step.label}: ${plural(count, 'investor')}`}
      data-step-id={step.id}
      onDragOver={onDragOver}
      onDragLeave={() => setDropping(false)}
      onDrop={onDrop}
    >
      <header className="column-head">
        <div className="column-title">
          <h2>{step.label}</h2>
          {step.type !== 'default' && <Badge tone={stepTone(step.type)}>{step.type}</Badge>}
          <span className="column-count" aria-label={`${count} investors`}>
            {loading && !summary ? '…' : count.toLocaleString('en-GB')}
          </span>
        </div>
        <div className="column-total muted small">{!summary ? (loading ? '\u00a0' : 'no commitments') : summary.committed.length ? formatTotals(summary.committed) : 'no commitments'}</div>
      </header>
      <div
        className="column-body"
        ref={scroller}
        onScroll={(e) => {
          const target = e.currentTarget;
          setViewport({ top: target.scrollTop, height: target.clientHeight });
        }}
      >
        {!loading && count === 0 ? (
          <div className="column-empty">{query ? 'No match here' : 'No investors at this step'}</div>
        ) : (
          <div className="column-canvas" style={{ height: count * CARD_HEIGHT }} role="list" aria-label={`Investors at ${step.label}`}>
            {items}
          </div>
        )}
      </div>
    </div>
  );
}

interface CardProps {
  card: Card;
  style: { top: number };
  workflow: Workflow;
  onOpen: (investorUserId: string) => void;
  onMove: (card: Card, targetStepId?: string) => void;
}

function BoardCard({ card, style, workflow, onOpen, onMove }: CardProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const menu = useRef<HTMLDivElement>(null);
  const days = daysSince(card.enteredStepAt);
  const step = workflow.steps.find((s) => s.id === card.stepId);
  const nextSteps = (step?.nextStepLinks ?? []).map((l) => workflow.steps.find((s) => s.id === l.toStepId)).filter((s): s is Step => !!s);

  useEffect(() => {
    if (!menuOpen) return;
    menu.current?.querySelector<HTMLButtonElement>('button')?.focus();
    const close = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node)) setMenuOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [menuOpen]);

  const onMenuKey = (event: KeyboardEvent) => {
    const buttons = [...(menu.current?.querySelectorAll<HTMLButtonElement>('button') ?? [])];
    const index = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Escape') {
      setMenuOpen(false);
      event.stopPropagation();
    } else if (event.key === 'ArrowDown') {
      buttons[(index + 1) % buttons.length]?.focus();
      event.preventDefault();
    } else if (event.key === 'ArrowUp') {
      buttons[(index - 1 + buttons.length) % buttons.length]?.focus();
      event.preventDefault();
    }
  };

  const choose = (action: () => void) => {
    setMenuOpen(false);
    action();
  };

  return (
    <article
      className="card"
      style={style}
      role="listitem"
      aria-label={card.fullName}
      data-investor-id={card.investorUserId}
      draggable
      onDragStart={(e) => {
        e.dataTransfer.setData(DRAG_TYPE, JSON.stringify(card));
        e.dataTransfer.effectAllowed = 'move';
      }}
    >
      <button type="button" className="card-main" onClick={() => onOpen(card.investorUserId)} title="Open the journey">
        <span className="card-name">{card.fullName}</span>
        <span className="card-amount">{card.committedAmount ? formatMoney(card.committedAmount, card.currency) : <span className="muted">no commitment yet</span>}</span>
        <span className="card-meta">
          <span className="card-email">{card.email ?? card.investorUserId}</span>
          <span className={days > 30 ? 'card-days stale' : 'card-days'} title={`At this step since ${new Date(card.enteredStepAt).toLocaleString()}`}>
            {formatDays(days)}
          </span>
        </span>
      </button>
      <div className="card-menu-wrap">
        <button
          type="button"
          className="icon-button"
          aria-haspopup="menu"
          aria-expanded={menuOpen}
          aria-label={`Actions for ${card.fullName}`}
          onClick={() => setMenuOpen((o) => !o)}
        >
          <svg viewBox="0 0 20 20" width="16" height="16" aria-hidden="true">
            <circle cx="4" cy="10" r="1.8" />
            <circle cx="10" cy="10" r="1.8" />
            <circle cx="16" cy="10" r="1.8" />
          </svg>
        </button>
        {menuOpen && (
          <div className="menu" role="menu" ref={menu} onKeyDown={onMenuKey}>
            <button type="button" role="menuitem" onClick={() => choose(() => onMove(card))}>
              Move to…
            </button>
            {nextSteps.map((s) => (
              <button key={s.id} type="button" role="menuitem" onClick={() => choose(() => onMove(card, s.id))}>
                Move to {s.label}
              </button>
            ))}
            <button type="button" role="menuitem" onClick={() => choose(() => onOpen(card.investorUserId))}>
              Open journey
            </button>
          </div>
        )}
      </div>
    </article>
  );
}
