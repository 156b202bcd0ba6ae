// A board column: the step's head (count, committed total, time in step) and its cards, a page at a
// time and virtualised, each card draggable to another column and with its own actions menu.
import { useCallback, useEffect, useRef, useState, type DragEvent } from 'react';
import { consoleApi, type Card, type DealRow, type Money, type RowParams, type Step, type Workflow } from '../lib/api.ts';
import { formatTotals, plural } from '../lib/format.ts';
import { TimeInStep } from './TimeInStep.tsx';
import { Badge, stepTone } from './ui.tsx';
import { BoardCard, DRAG_TYPE } from './BoardCard.tsx';
import { cardSlot, useDensity } from '../lib/density.ts';
import './BoardColumn.css';

const PAGE_SIZE = 50;
const OVERSCAN = 6;
export interface ColumnProps {
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

export function Column({ dealId, step, params, filtered, workflow, selected, onToggle, onOpen, onMove }: ColumnProps) {
  const CARD_HEIGHT = cardSlot(useDensity()); // card + gap, px; fixed so the list can be virtualised
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
        <div className="column-total muted small" title={summary?.committed.length ? formatTotals(summary.committed) : undefined}>
          {loading ? '\u00a0' : summary.committed.length ? formatTotals(summary.committed) : 'no commitments'}
        </div>
        <TimeInStep dealId={dealId} stepId={step.id} />
      </header>
      <div
        className="column-body"
        ref={scroller}
        tabIndex={0}
        role="region"
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
