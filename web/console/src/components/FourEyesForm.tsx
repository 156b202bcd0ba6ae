// A deal's four-eyes rules (PUT /deals/deal/{dealId}/four-eyes): which of its writes wait for a
// second person. Changing the payee's IBAN always does; the others are the deal's choice: payment
// decisions, bulk moves from a number of investors or a sum of commitments, workflow changes, and
// the erasure of its investors. Admins change them; every staff role reads them.
import { useEffect, useState, type FormEvent } from 'react';
import { consoleApi } from '../lib/api.ts';
import { useLoad, useSubmission } from '../../../kit/hooks.ts';
import { useRoleGate } from '../lib/who.ts';
import { ErrorState, FormStatus, Spinner } from './ui.tsx';

const DECIMAL = /^\d{1,15}(\.\d{1,10})?$/;
type Values = { paymentDecisions: boolean; bulkMovesFrom: string; bulkMovesFromAmount: string; workflowChanges: boolean; erasure: boolean };

export function FourEyesForm({ dealId }: { dealId: string }) {
  const [loaded, reload] = useLoad(() => consoleApi.fourEyes(dealId), [dealId]);
  const [v, setV] = useState<Values>();
  const { busy, error, done, run, refuse } = useSubmission();
  const gate = useRoleGate('admin');

  useEffect(() => {
    if (loaded.status !== 'ready') return;
    const r = loaded.value;
    setV({
      paymentDecisions: r.paymentDecisions,
      bulkMovesFrom: r.bulkMovesFrom === null ? '' : String(r.bulkMovesFrom),
      bulkMovesFromAmount: r.bulkMovesFromAmount ?? '',
      workflowChanges: r.workflowChanges,
      erasure: r.erasure,
    });
  }, [loaded]);

  if (loaded.status === 'loading' || !v) return loaded.status === 'error' ? <ErrorState error={loaded.error} retry={reload} /> : <Spinner />;
  const count = v.bulkMovesFrom.trim();
  const amount = v.bulkMovesFromAmount.trim();
  const countProblem =
    count !== '' && !(/^\d{1,4}$/.test(count) && Number(count) >= 1 && Number(count) <= 1000) ? 'A whole number from 1 to 1,000.' : undefined;
  const amountProblem = amount !== '' && !(DECIMAL.test(amount) && Number(amount) > 0) ? 'An amount greater than 0, such as 250000.00.' : undefined;
  const set = (patch: Partial<Values>) => setV({ ...v, ...patch });

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (countProblem || amountProblem) return refuse('Correct the marked fields.');
    await run(async () => {
      await consoleApi.putFourEyes(dealId, {
        paymentDecisions: v!.paymentDecisions,
        bulkMovesFrom: count === '' ? null : Number(count),
        bulkMovesFromAmount: amount === '' ? null : amount,
        workflowChanges: v!.workflowChanges,
        erasure: v!.erasure,
      });
      return 'Saved. The rules apply to writes from now on.';
    });
  }

  return (
    <form className="form-card" onSubmit={submit} noValidate aria-labelledby="four-eyes-title">
      <h2 id="four-eyes-title">Four-eyes</h2>
      <p className="muted small">Writes that wait for a second person before they are applied. Changing the payee's IBAN always does.</p>
      <label className="check">
        <input type="checkbox" name="paymentDecisions" checked={v.paymentDecisions} onChange={(e) => set({ paymentDecisions: e.target.checked })} />
        Payment decisions (assign, split, dismiss) — an approver decides
      </label>
      <label className="field">
        <span className="field-label">Bulk moves of at least this many investors (empty: none by number)</span>
        <input
          name="bulkMovesFrom"
          inputMode="numeric"
          value={v.bulkMovesFrom}
          aria-invalid={countProblem ? true : undefined}
          onChange={(e) => set({ bulkMovesFrom: e.target.value })}
        />
        {countProblem && <span className="field-error">{countProblem}</span>}
      </label>
      <label className="field">
        <span className="field-label">Bulk moves whose commitments add up to at least (empty: none by amount)</span>
        <input
          name="bulkMovesFromAmount"
          inputMode="decimal"
          value={v.bulkMovesFromAmount}
          aria-invalid={amountProblem ? true : undefined}
          onChange={(e) => set({ bulkMovesFromAmount: e.target.value })}
        />
        {amountProblem && <span className="field-error">{amountProblem}</span>}
      </label>
      <label className="check">
        <input type="checkbox" name="workflowChanges" checked={v.workflowChanges} onChange={(e) => set({ workflowChanges: e.target.checked })} />
        Workflow changes and migrations — another admin decides
      </label>
      <label className="check">
        <input type="checkbox" name="erasure" checked={v.erasure} onChange={(e) => set({ erasure: e.target.checked })} />
        Erasing an investor's personal data — another admin decides
      </label>
      <FormStatus error={error} done={done} />
      <div className="row-actions">
        <button type="submit" className="button button-primary" disabled={busy} {...gate}>
          {busy ? 'Saving…' : 'Save the rules'}
        </button>
      </div>
    </form>
  );
}
