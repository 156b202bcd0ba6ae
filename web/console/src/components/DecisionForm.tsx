// The decision on one statement line: assign it to an investor chosen by name (the line's
// proposals, or a search by name, e-mail or company), split it across several, or dismiss it.
// A matched line that still waits says why, in plain words, with the way forward.
import Big from 'big.js';
import { useState, type FormEvent } from 'react';
import { consoleApi, isHeld, type PaymentLine } from '../lib/api.ts';
import { formatMoney } from '../lib/format.ts';
import { useSubmission } from '../../../kit/hooks.ts';
import { investorHref, lineDetail } from '../lib/payment-lines.ts';
import { type Chosen, InvestorPicker } from './InvestorPicker.tsx';
import { FormStatus } from './ui.tsx';
import './DecisionForm.css';

const DECIMAL = /^\d{1,15}(\.\d{1,10})?$/;

type Share = { to: Chosen | undefined; amount: string };

/** The investor the line already points at, as a choice. */
const pointedAt = (line: PaymentLine): Chosen | undefined =>
  line.dealId && line.investorUserId
    ? { dealId: line.dealId, investorUserId: line.investorUserId, fullName: line.investorName ?? line.investorUserId, dealName: line.dealName ?? line.dealId }
    : undefined;

export function DecisionForm({ line, onClose, onDecided }: { line: PaymentLine; onClose: () => void; onDecided: () => void }) {
  const proposals = line.proposals ?? [];
  const [action, setAction] = useState<'assign' | 'split' | 'dismiss'>('assign');
  const [chosen, setChosen] = useState<Chosen | undefined>(pointedAt(line) ?? proposals[0]);
  const [shares, setShares] = useState<Share[]>([
    { to: pointedAt(line) ?? proposals[0], amount: '' },
    { to: undefined, amount: '' },
  ]);
  const [reason, setReason] = useState('');
  const { busy, error, done, run, refuse } = useSubmission();
  const amountText = formatMoney(line.amount, line.currency);
  const sum = shares.every((s) => DECIMAL.test(s.amount)) ? shares.reduce((total, s) => total.plus(s.amount), new Big(0)) : undefined;
  const detail = lineDetail(line);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (action === 'assign' && !chosen) return refuse('Choose the investor: one of the likely investors, or find one by name.');
    if (action === 'split') {
      if (shares.some((s) => !s.to)) return refuse('Choose an investor for every share.');
      if (!sum) return refuse('Enter every share as a decimal amount, e.g. 2500.00.');
      if (!sum.eq(line.amount)) return refuse(`The shares add up to ${formatMoney(sum.toFixed(), line.currency)}; they must add up to ${amountText}.`);
    }
    if (action === 'dismiss' && !reason.trim()) return refuse('Say why the line is dismissed.');
    await run(async () => {
      const decided =
        action === 'assign'
          ? await consoleApi.assignLine(line.id, { dealId: chosen!.dealId, investorUserId: chosen!.investorUserId })
          : action === 'split'
            ? await consoleApi.splitLine(
                line.id,
                shares.map((s) => ({ dealId: s.to!.dealId, investorUserId: s.to!.investorUserId, amount: s.amount })),
              )
            : await consoleApi.dismissLine(line.id, reason.trim());
      onDecided();
      if (isHeld(decided)) return 'This deal’s payment decisions need a second person: the decision waits in the Inbox for another approver.';
      const what = action === 'assign' ? `Assigned to ${chosen!.fullName}` : 'Done';
      if (decided.status === 'queued' && decided.advice) return `${what}, but the line still waits: ${decided.advice.summary} ${decided.advice.action}`;
      return `${what}: the line is now ${decided.status}${decided.detail ? ` (${lineDetail(decided)})` : ''}.`;
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
        {detail ? `: ${detail}` : ''}
      </p>
      {line.advice && (
        <div className="alert alert-warn" data-testid="line-advice">
          <p>{line.advice.summary}</p>
          <p>
            <strong>{line.advice.action}</strong>
            {line.dealId && line.investorUserId && (
              <>
                {' '}
                <a href={investorHref(line.dealId, line.investorUserId)}>Open {line.investorName ?? 'the investor'}</a>
              </>
            )}
          </p>
        </div>
      )}
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
      {action === 'assign' && <InvestorPicker lineId={line.id} name="assign-to" legend="Investor" proposals={proposals} value={chosen} onChange={setChosen} />}
      {action === 'split' && (
        <>
          {shares.map((share, i) => (
            <fieldset key={i} className="sub">
              <legend>Share {i + 1}</legend>
              <InvestorPicker
                lineId={line.id}
                name={`share-${i}`}
                legend={`Investor of share ${i + 1}`}
                proposals={proposals}
                value={share.to}
                onChange={(to) => setShare(i, { to })}
              />
              <div className="field-row">
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
          <button type="button" className="button" onClick={() => setShares([...shares, { to: undefined, amount: '' }])}>
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
          {busy ? 'Saving…' : action === 'assign' ? (chosen ? `Assign to ${chosen.fullName}` : 'Assign') : action === 'split' ? 'Split' : 'Dismiss'}
        </button>
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}
