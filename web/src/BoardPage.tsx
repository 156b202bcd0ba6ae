// The pipeline board of one deal: a column per step in workflow order, a card per investor.
// Columns are virtualised and load their cards a page at a time from the rows endpoint, with the
// view's filters and sort (kept in the URL), so a deal of 10,000 investors renders a few dozen
// cards at any moment. Cards can be selected and moved together; the last move can be undone.
import { useCallback, useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { api, consoleApi, type Card, type DealRow, type Money, type RowParams, type Step, type Workflow } from './api.ts';
import { BulkMoveDialog } from './BulkMoveDialog.tsx';
import { DealHeader } from './DealHeader.tsx';
import { SelectionBar, ViewToolbar, useFilteredView } from './filters.tsx';
import { daysSince, exactUtc, formatDays, formatMoney, formatTotals, plural } from './format.ts';
import { TimeInStep } from './FunnelPage.tsx';
import { navigate, useLoad } from './hooks.ts';
import { InvestorDrawer } from './InvestorDrawer.tsx';
import { MoveDialog } from './MoveDialog.tsx';
import { UndoToast, type LastMove } from './UndoToast.tsx';
import { Badge, Empty, ErrorState, Spinner, stepTone } from './ui.tsx';

const CARD_HEIGHT = 100; // card + gap, px; fixed so the list can be virtualised
const PAGE_SIZE = 50;
const OVERSCAN = 6;
const DRAG_TYPE = 'application/x-dealflow-card';

interface MoveRequest {
  card: Card;
  targetStepId?: string;
}

export function BoardPage({ dealId, investorUserId }: { dealId: string; investorUserId: string | undefined }) {
  const view = useFilteredView();
  const { params, key: paramsKey, filtered } = view;
  const [version, setVersion] = useState(0);
  const [move, setMove] = useState<MoveRequest>();
  const [lastMove, setLastMove] = useState<LastMove>();
  const [selected, setSelected] = useState<Map<string, Card>>(() => new Map());
  const [bulk, setBulk] = useState(false);
  const [meta, reloadMeta] = useLoad(() => Promise.all([api.deal(dealId), api.workflow(dealId)]), [dealId]);
  const [overall] = useLoad(() => consoleApi.rows(dealId, { ...params, limit: 1 }), [dealId, paramsKey, version]);

  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  const openInvestor = (id: string) => navigate('deals', dealId, 'investors', id);
  const closeInvestor = () => {
    const query = location.hash.split('?')[1];
    location.hash = `#/deals/${encodeURIComponent(dealId)}${query ? `?${query}` : ''}`;
  };
  const toggle = (card: Card) =>
    setSelected((current) => {
      const next = new Map(current);
      if (next.has(card.investorUserId)) next.delete(card.investorUserId);
      else next.set(card.investorUserId, card);
      return next;
    });

  if (meta.status === 'loading') return <Spinner label="Loading the deal…" />;
  if (meta.status === 'error') return <ErrorState error={meta.error} retry={reloadMeta} />;
  const [deal, workflow] = meta.value;
  const total = overall.status === 'ready' ? overall.value.total : undefined;

  return (
    <section className="board-page" aria-labelledby="board-title">
      <DealHeader dealId={dealId} name={deal.name} view="board" />
      <ViewToolbar view={view} dealId={dealId} dealName={deal.name} workflow={workflow} total={total} titleId="board-title">
        <a className="button" href={`#/investors/import?deal=${encodeURIComponent(dealId)}`}>
          Import investors
        </a>
      </ViewToolbar>
      <SelectionBar count={selected.size} onMove={() => setBulk(true)} onClear={() => setSelected(new Map())} />
      {lastMove && <UndoToast dealId={dealId} move={lastMove} onDone={() => (setLastMove(undefined), refresh())} onUndone={refresh} />}
      {workflow.steps.length === 0 ? (
        <Empty title="This deal has no workflow yet">
          <a href={`#/deals/${encodeURIComponent(dealId)}/workflow`}>Set up its workflow</a> to start placing investors.
        </Empty>
      ) : (
        <div className="board" role="list" aria-label="Steps" tabIndex={0}>
          {workflow.steps.filter((step) => !params.stepId || step.id === params.stepId).map((step) => (
            <Column
              key={`${step.id}:${paramsKey}:${version}`}
              dealId={dealId}
              step={step}
              params={params}
              filtered={!!filtered}
              selected={selected}
              onToggle={toggle}
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
          onMoved={(target) => {
            setMove(undefined);
            setLastMove({ investorUserId: move.card.investorUserId, fullName: move.card.fullName, fromStepId: move.card.stepId, toStepId: target.id, workflow });
            refresh();
          }}
        />
      )}
      {bulk && (
        <BulkMoveDialog
          dealId={dealId}
          dealCurrency={deal.currency}
          workflow={workflow}
          cards={[...selected.values()]}
          onClose={(moved) => {
            setBulk(false);
            if (moved) {
              setSelected(new Map());
              refresh();
            }
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
  params: RowParams;
  filtered: boolean;
  workflow: Workflow;
  selected: Map<string, Card>;
  onToggle: (card: Card) => void;
  onOpen: (investorUserId: string) => void;
  onMove: (card: Card, targetStepId?: string) => void;
}

function Column({ dealId, step, params, filtered, workflow, selected, onToggle, onOpen, onMove }: ColumnProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState({ top: 0, height: 600 });
  const [pages, setPages] = useState<Map<number, DealRow[] | 'loading' | 'error'>>(() => new Map());
  const [summary, setSummary] = useState<{ count: number; committed: Money[] }>();
  const [dropping, setDropping] = useState(false);
  const count = summary?.count ?? 0;

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setViewport({ top: element.scrollTop, height: element.clientHeight }));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const load = useCallback(
    (page: number) => {
      setPages((p) => new Map(p).set(page, 'loading'));
      consoleApi.rows(dealId, { ...params, stepId: step.id, page, limit: PAGE_SIZE }).then(
        (result) => {
          setPages((p) => new Map(p).set(page, result.output));
          setSummary({ count: result.total, committed: result.committed });
        },
        () => setPages((p) => new Map(p).set(page, 'error')),
      );
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [dealId, step.id, JSON.stringify(params)],
  );

  useEffect(() => load(1), [load]);

  const first = Math.max(0, Math.floor(viewport.top / CARD_HEIGHT) - OVERSCAN);
  const last = Math.min(count - 1, Math.ceil((viewport.top + viewport.height) / CARD_HEIGHT) + OVERSCAN);

  useEffect(() => {
    if (!summary || count === 0) return;
    for (let page = Math.floor(first / PAGE_SIZE) + 1; page <= Math.floor(last / PAGE_SIZE) + 1; page++) if (!pages.has(page)) load(page);
  }, [first, last, count, summary, pages, load]);

  const cardAt = (index: number): DealRow | 'loading' | 'error' => {
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
        <BoardCard
          key={card.investorUserId}
          card={card}
          step={step}
          style={style}
          workflow={workflow}
          selected={selected.has(card.investorUserId)}
          onToggle={onToggle}
          onOpen={onOpen}
          onMove={onMove}
        />
      ),
    );
  }

  const loading = summary === undefined;
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
          <h2 title={step.label}>{step.label}</h2>
          {step.type !== 'default' && <Badge tone={stepTone(step.type)}>{step.type}</Badge>}
          <span className="column-count">{loading ? '…' : count.toLocaleString()}</span>
        </div>
        <div className="column-total muted small" title={summary && summary.committed.length ? formatTotals(summary.committed) : undefined}>
          {loading ? '\u00a0' : summary.committed.length ? formatTotals(summary.committed) : 'no commitments'}
        </div>
        <TimeInStep dealId={dealId} stepId={step.id} />
      </header>
      <div
        className="column-body"
        ref={scroller}
        tabIndex={0}
        aria-label={`Investors at ${step.label}`}
        onScroll={(e) => {
          const target = e.currentTarget;
          setViewport({ top: target.scrollTop, height: target.clientHeight });
        }}
      >
        {!loading && count === 0 ? (
          <div className="column-empty">{filtered ? 'No match here' : 'No investors at this step'}</div>
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
  card: DealRow;
  step: Step;
  style: { top: number };
  workflow: Workflow;
  selected: boolean;
  onToggle: (card: Card) => void;
  onOpen: (investorUserId: string) => void;
  onMove: (card: Card, targetStepId?: string) => void;
}

function BoardCard({ card, step, style, workflow, selected, onToggle, onOpen, onMove }: CardProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const menu = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const days = daysSince(card.enteredStepAt);
  const nextSteps = step.nextStepLinks.map((l) => workflow.steps.find((s) => s.id === l.toStepId)).filter((s): s is Step => !!s);
  // Only steps where investors are expected to move on can be stale.
  const stale = step.type === 'default' && days > 30;

  useEffect(() => {
    if (!menuOpen) return;
    menu.current?.querySelector<HTMLButtonElement>('button')?.focus();
    const close = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node) && !trigger.current?.contains(event.target as Node)) setMenuOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [menuOpen]);

  const onMenuKey = (event: KeyboardEvent) => {
    const buttons = [...(menu.current?.querySelectorAll<HTMLButtonElement>('button') ?? [])];
    const index = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Escape') {
      setMenuOpen(false);
      trigger.current?.focus();
      event.stopPropagation();
    } else if (event.key === 'ArrowDown') {
      buttons[(index + 1) % buttons.length]?.focus();
      event.preventDefault();
    } else if (event.key === 'ArrowUp') {
      buttons[(index - 1 + buttons.length) % buttons.length]?.focus();
      event.preventDefault();
    } else if (event.key === 'Tab') {
      setMenuOpen(false);
    }
  };

  const choose = (action: () => void) => {
    setMenuOpen(false);
    trigger.current?.focus();
    action();
  };

  return (
    <div
      className={selected ? 'card card-selected' : 'card'}
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
      <input type="checkbox" className="card-check" checked={selected} onChange={() => onToggle(card)} aria-label={`Select ${card.fullName}`} />
      <button type="button" className="card-main" onClick={() => onOpen(card.investorUserId)}>
        <span className="card-name">
          {card.fullName}
          {card.pendingEditRequests > 0 && (
            <span className="badge badge-amber card-pending" title="This investor has a pending edit request">
              edit request
            </span>
          )}
        </span>
        <span className="card-amount">{card.committedAmount ? formatMoney(card.committedAmount, card.currency) : <span className="muted">no commitment yet</span>}</span>
        <span className="card-meta">
          <span className="card-email">{card.email ?? card.investorUserId}</span>
          <span className={stale ? 'card-days stale' : 'card-days'} title={`At this step since ${exactUtc(card.enteredStepAt)}`}>
            {formatDays(days)}
          </span>
        </span>
      </button>
      <div className="card-menu-wrap">
        <button
          ref={trigger}
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
    </div>
  );
}
