// An investor's checks by the KYC provider, on their page: start one for a level (operator or
// above), and each check with its state, the provider's page for the investor, and its result. A
// clear result raises the investor's KYC level; the list reloads until no check is left started.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useLoad, useSubmission } from '../../../kit/hooks.ts';
import { consoleApi, type KycCheck } from '../lib/api.ts';
import { Badge, FormStatus, Pending, When } from './ui.tsx';

const tones: Record<KycCheck['state'], 'neutral' | 'green' | 'amber' | 'red'> = {
  started: 'neutral',
  clear: 'green',
  refer: 'amber',
  failed: 'red',
  expired: 'red',
};
const POLL_MS = 2000;

export function KycChecks({ investorUserId, canStart, onDecided }: { investorUserId: string; canStart: boolean; onDecided?: () => void }) {
  const [checks, reload] = useLoad(() => consoleApi.kycChecks(investorUserId), [investorUserId]);
  const [level, setLevel] = useState('2');
  const { busy, error, done, run, refuse } = useSubmission();
  const open = checks.status === 'ready' && checks.value.checks.some((c) => c.state === 'started');
  const decided = checks.status === 'ready' ? checks.value.checks.filter((c) => c.state !== 'started').length : 0;
  // While a check waits for the provider's result, look again every few seconds.
  useEffect(() => {
    if (!open) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [open, checks, reload]);
  // A result that arrived while the page was open may have raised the level the form shows: reload it.
  const seen = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (checks.status !== 'ready') return;
    if (seen.current !== undefined && decided > seen.current) onDecided?.();
    seen.current = decided;
  }, [checks, decided, onDecided]);

  async function start(event: FormEvent) {
    event.preventDefault();
    const value = Number(level);
    if (!/^\d{1,3}$/.test(level) || value < 1 || value > 100) return refuse(new Error('Enter a KYC level from 1 to 100.'));
    await run(async () => {
      const check = await consoleApi.startKycCheck(investorUserId, value);
      reload();
      return `KYC check started with ${check.provider} for level ${check.level}.`;
    });
  }

  return (
    <section aria-labelledby="kyc-checks-title" className="form-card kyc-checks">
      <h2 id="kyc-checks-title">KYC checks</h2>
      <p className="muted small">Checked by the KYC provider. A clear result raises the investor’s KYC level to the level it reached.</p>
      {canStart && (
        <form className="kyc-start" onSubmit={start} noValidate>
          <label className="field">
            <span className="field-label">Level to check for</span>
            <input name="kyc-level" inputMode="numeric" value={level} onChange={(e) => setLevel(e.target.value)} />
          </label>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Starting…' : 'Start KYC check'}
          </button>
        </form>
      )}
      <FormStatus error={error} done={done} />
      {checks.status !== 'ready' ? (
        <Pending state={checks} retry={reload} label="Loading the KYC checks" compact />
      ) : checks.value.checks.length === 0 ? (
        <p className="muted">No KYC check yet.</p>
      ) : (
        <ul className="kyc-check-list" aria-label="KYC checks, newest first">
          {checks.value.checks.map((c) => (
            <li key={c.id}>
              <Badge tone={tones[c.state]}>{c.state}</Badge> level {c.level}
              {c.result?.level != null && <> · reached {c.result.level}</>}
              <div className="muted small">
                {c.provider} {c.providerCheckId} · started <When iso={c.startedAt} /> by {c.startedBy}
                {c.result && (
                  <>
                    {' '}
                    · decided <When iso={c.result.decidedAt} />
                  </>
                )}
              </div>
              {c.state === 'started' && c.redirectUrl && (
                <a href={c.redirectUrl} target="_blank" rel="noreferrer noopener">
                  The investor’s page at the provider
                </a>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
