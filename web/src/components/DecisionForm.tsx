// The decision on one statement line: assign it to an investor, split it across several, or dismiss it.
import Big from 'big.js';
import { useState, type FormEvent } from 'react';
import { consoleApi, type PaymentLine } from '../lib/api.ts';
import { formatMoney } from '../lib/format.ts';
import { useSubmission } from '../lib/hooks.ts';
import { FormStatus } from './ui.tsx';
import './DecisionForm.css';

const DECIMAL = /^\d{1,15}(\.\d{1,10})?$/;

type Share = { dealId: string; investorUserId: string; amount: string };

export function DecisionForm({ line, onClose, onDecided }: { line: PaymentLine; onClose: () => void; onDecided: () => void }) {
  const [action, setAction] = useState<'assign' | 'split' | 'dismiss'>('assign');
  const [dealId, setDealId] = useState(line.dealId ?? '');
  const [investorUserId, setInvestorUserId] = useState(line.investorUserId ?? '');
  const [shares, setShares] = useState<Share[]>([
    { dealId: line.dealId ?? '', investorUserId: line.investorUserId ?? '', amount: '' },
    { dealId: line.dealId ?? '', investorUserId: '', amount: '' },
  ]);
  const [reason, setReason] = useState('');
  const { busy, error, done, run, refuse } = useSubmission();
  const amountText = formatMoney(line.amount, line.currency);
  const sum = shares.every((s) => DECIMAL.test(s.amount)) ? shares.reduce((total, s) => total.plus(s.amount), new Big(0)) : undefined;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (action === 'assign' && (!dealId.trim() || !investorUserId.trim())) return refuse('Enter the deal id and the investor id.');
    if (action === 'split') {
      if (shares.some((s) => !s.dealId.trim() || !s.investorUserId.trim())) return refuse('Enter a deal id and an investor id for every share.');
      if (!sum) return refuse('Enter every share as a decimal amount, e.g. 2500.00.');
      if (!sum.eq(line.amount)) return refuse(`The shares add up to ${formatMoney(sum.toFixed(), line.currency)}; they must add up to ${amountText}.`);
    }
    if (action === 'dismiss' && !reason.trim()) return refuse('Say why the line is dismissed.');
    await run(async () => {
      const decided =
        action === 'assign'
          ? await consoleApi.assignLine(line.id, { dealId: dealId.trim(), investorUserId: investorUserId.trim() })
          : action === 'split'
            ? await consoleApi.splitLine(line.id, shares.map((s) => ({ dealId: s.dealId.trim(), investorUserId: s.investorUserId.trim(), amount: s.amount })))
            : await consoleApi.dismissLine(line.id, reason.trim());
      onDecided();
      return `Done: the line is now ${decided.status}${decided.detail ? ` (${decided.detail})` : ''}.`;
    });
  }

  const setShare = (index: number, patch: Partial<Share>) => setShares(shares.map((s, i) => (i === index ? { ...s, ...patch } : s)));

  return (
    <form className="form-card" onSubmit={submit} noValidate aria-labelledby="decision-title">
      <h2 id="decision-title">
        {amountText} from {line.debtorName ?? 'an unknown payer'}
      </h2>
      <p className="muted small">
        {line.outcome.replace(/-/g, ' ')}
        {line.detail ? `: ${line.detail}` : ''}
      </p>
      {line.outcome === 'after-completion' && (
        <p className="small">The investor had already completed or withdrawn. The money is recorded for them; they were not moved.</p>
      )}
      <fieldset className="sub">
        <legend>Decision</legend>
        {(
          [
            ['assign', 'Assign to an investor'],
            ['split', 'Split across investors'],
            ['dismiss', 'Dismiss with a reason'],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className="radio">
            <input type="radio" name="decision" value={value} checked={action === value} onChange={() => (setAction(value), refuse(undefined))} /> {label}
          </label>
        ))}
      </fieldset>
      {action === 'assign' && (
        <div className="field-pair">
          <label className="field">
            <span className="field-label">Deal id</span>
            <input name="dealId" value={dealId} onChange={(e) => setDealId(e.target.value)} />
          </label>
          <label className="field">
            <span className="field-label">Investor id</span>
            <input name="investorUserId" value={investorUserId} onChange={(e) => setInvestorUserId(e.target.value)} />
          </label>
        </div>
      )}
      {action === 'split' && (
        <>
          {shares.map((share, i) => (
            <fieldset key={i} className="sub">
              <legend>Share {i + 1}</legend>
              <div className="field-row">
                <label className="field">
                  <span className="field-label">Deal id</span>
                  <input value={share.dealId} onChange={(e) => setShare(i, { dealId: e.target.value })} />
                </label>
                <label className="field">
                  <span className="field-label">Investor id</span>
                  <input value={share.investorUserId} onChange={(e) => setShare(i, { investorUserId: e.target.value })} />
                </label>
                <label className="field">
                  <span className="field-label">Amount ({line.currency})</span>
                  <input inputMode="decimal" value={share.amount} onChange={(e) => setShare(i, { amount: e.target.value.trim() })} />
                </label>
                {shares.length > 1 && (
                  <button type="button" className="button" onClick={() => setShares(shares.filter((_, j) => j !== i))}>
                    Remove share {i + 1}
                  </button>
                )}
              </div>
            </fieldset>
          ))}
          <p className="small" aria-live="polite">
            Shares: {sum ? formatMoney(sum.toFixed(), line.currency) : '—'} of {amountText}
          </p>
          <button type="button" className="button" onClick={() => setShares([...shares, { dealId: line.dealId ?? '', investorUserId: '', amount: '' }])}>
            Add a share
          </button>
        </>
      )}
      {action === 'dismiss' && (
        <label className="field">
          <span className="field-label">Reason</span>
          <textarea name="reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={2000} />
        </label>
      )}
      <FormStatus error={error} done={done} />
      <div className="row-actions">
        <button type="submit" className="button button-primary" disabled={busy || done !== undefined}>
          {busy ? 'Saving…' : action === 'assign' ? 'Assign' : action === 'split' ? 'Split' : 'Dismiss'}
        </button>
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}
