// The toast after a move, with "Undo": the service's undo of the move (its batch is its event), which
// records the move back as a new event with its reason, and refuses (409, naming who moved) when
// anything happened to the investor since. The same undo stays on the Activity page for 24 hours.
import { useEffect, useState } from 'react';
import { consoleApi, describeError, type Workflow } from '../lib/api.ts';
import './UndoToast.css';

export interface LastMove {
  /** The move's event, whose id is the id of its batch. */
  eventId: string;
  investorUserId: string;
  fullName: string;
  fromStepId: string;
  toStepId: string;
  workflow: Workflow;
}

export function UndoToast({ move, onDone, onUndone }: { move: LastMove; onDone: () => void; onUndone: () => void }) {
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
      await consoleApi.undoBatch(move.eventId);
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
      {state.status === 'undoing' && (
        <span>
          Moving {move.fullName} back to {label(move.fromStepId)}…
        </span>
      )}
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
