// One investor's card on the board: name, amount, days at the step, a checkbox to select it, and a
// menu of moves; draggable onto another column.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Card, DealRow, Step, Workflow } from '../lib/api.ts';
import { daysSince, exactUtc, formatAmount, formatDays, formatMoney, minorUnits, paidText } from '../lib/format.ts';
import { useRoleGate } from '../lib/who.ts';
import './BoardCard.css';

/** The drag data type of a card: another column takes it as a move. */
export const DRAG_TYPE = 'application/x-dealflow-card';

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

export function BoardCard({ card, step, style, workflow, selected, onToggle, onOpen, onMove }: CardProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  // A viewer's menu shows the moves disabled, saying the role they need; nor can they drag the card.
  const moveGate = useRoleGate('operator');
  const menu = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const days = daysSince(card.enteredStepAt);
  const nextSteps = step.nextStepLinks.map((l) => workflow.steps.find((s) => s.id === l.toStepId)).filter((s): s is Step => !!s);
  // Only steps where investors are expected to move on can be stale.
  const stale = step.type === 'default' && days > 30;
  // Part of the commitment received: what is still due shows beside it, both in words for a screen reader.
  const paid = paidText(card);

  useEffect(() => {
    if (!menuOpen) return;
    menu.current?.querySelector<HTMLButtonElement>('button:not(:disabled)')?.focus();
    const close = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node) && !trigger.current?.contains(event.target as Node)) setMenuOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [menuOpen]);

  const onMenuKey = (event: KeyboardEvent) => {
    const buttons = [...(menu.current?.querySelectorAll<HTMLButtonElement>('button:not(:disabled)') ?? [])];
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
      draggable={!moveGate.disabled}
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
        <span className="card-amount" title={paid ?? undefined}>
          {card.committedAmount ? formatMoney(card.committedAmount, card.currency) : <span className="muted">no commitment yet</span>}
          {paid && card.remainingAmount !== null && !/^0(\.0+)?$/.test(card.remainingAmount) && (
            <span className="card-paid"> · {formatAmount(card.remainingAmount, minorUnits(card.currency))} due</span>
          )}
          {paid && <span className="visually-hidden">, {paid}</span>}
        </span>
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
            <button type="button" role="menuitem" onClick={() => choose(() => onMove(card))} {...moveGate}>
              Move to…
            </button>
            {nextSteps.map((s) => (
              <button key={s.id} type="button" role="menuitem" onClick={() => choose(() => onMove(card, s.id))} {...moveGate}>
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
