// The toast after a move, with "Undo": a move back to where the investor was, made conditional on
// the investor still standing where this move put them (expectedCurrentStepId), so a move someone
// made since is never silently reverted.
import { useEffect, useState } from 'react';
import { api, describeError, type Workflow } from '../lib/api.ts';
import './UndoToast.css';

export interface LastMove {
  investorUserId: string;
  fullName: string;
  fromStepId: string;
  toStepId: string;
  workflow: Workflow;
}

export function UndoToast({ dealId, move, onDone, onUndone }: { dealId: string; move: LastMove; onDone: () => void; onUndone: () => void }) {
  const [state, setState] = useState<{ status: 'moved' | 'undoing' | 'undone' } | { status: 'failed'; message: string }>({ status: 'moved' });
  const label = (id: string) => move.workflow.steps.find((s) => s.id === id)?.label ?? id;

  useEffect(() => {
    if (state.status === 'undoing') return;
    const timer = setTimeout(onDone, state.status === 'moved' ? 10_000 : 6000);
    return () => clearTimeout(timer);
  }, [state.status, onDone]);

  async function undo() {
    setState({ status: 'undoing' });
    try {
      await api.jump(dealId, { investorUserId: move.investorUserId, targetStepId: move.fromStepId, data: {}, expectedCurrentStepId: move.toStepId });
      setState({ status: 'undone' });
      onUndone();
    } catch (error) {
      setState({ status: 'failed', message: describeError(error) });
    }
  }

  return (
    <div className="toast" role="status">
      {state.status === 'moved' && (
        <>
          <span>
            {move.fullName} moved to {label(move.toStepId)}.
          </span>
          <button type="button" className="link-button toast-action" onClick={undo}>
            Undo
          </button>
        </>
      )}
      {state.status === 'undoing' && <span>Moving {move.fullName} back to {label(move.fromStepId)}…</span>}
      {state.status === 'undone' && (
        <span>
          Undone: {move.fullName} is back at {label(move.fromStepId)}.
        </span>
      )}
      {state.status === 'failed' && <span>Could not undo: {state.message}</span>}
      <button type="button" className="icon-button toast-close" aria-label="Dismiss" onClick={onDone}>
        ×
      </button>
    </div>
  );
}
