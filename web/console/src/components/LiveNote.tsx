// "Jane Doe is now at Commitment · moved by Ana just now": a quiet line under a deal's tabs when the live
// stream brings a move, whoever made it (another operator, reconciliation, an integration). The
// region is always in the page and polite, so a screen reader says the news when it is idle; the
// words go after a while, and the line keeps its height so nothing jumps.
import { useEffect, useState } from 'react';
import { consoleApi } from '../lib/api.ts';
import type { LiveMove } from '../lib/live.ts';
import { usePersonName } from './Person.tsx';
import './LiveNote.css';

const SHOWN_MS = 12_000;
const investorNames = new Map<string, string>();

function useInvestorName(id: string | undefined): string | undefined {
  const [name, setName] = useState(id ? investorNames.get(id) : undefined);
  useEffect(() => {
    if (!id) return;
    const known = investorNames.get(id);
    if (known) return setName(known);
    setName(undefined);
    let current = true;
    consoleApi.getInvestor(id).then(
      (investor) => {
        investorNames.set(id, investor.contact.fullName);
        if (current) setName(investor.contact.fullName);
      },
      () => {},
    );
    return () => {
      current = false;
    };
  }, [id]);
  return name;
}

export function LiveNote({ move, stepLabel }: { move: LiveMove | undefined; stepLabel?: (stepId: string) => string | undefined }) {
  const [visible, setVisible] = useState<LiveMove>();
  useEffect(() => {
    if (!move) return;
    setVisible(move);
    const timer = setTimeout(() => setVisible(undefined), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [move]);
  const investor = useInvestorName(visible?.investorUserId);
  const by = usePersonName(visible?.byUserId);
  const step = visible ? (stepLabel?.(visible.toStepId) ?? visible.toStepId) : '';
  return (
    <p className="live-note" role="status" aria-live="polite" aria-atomic="true">
      {visible && (
        <>
          <span className="live-dot" aria-hidden="true" />
          {investor ?? visible.investorUserId} is now at {step} · moved by {by ?? visible.byUserId} just now
        </>
      )}
    </p>
  );
}
