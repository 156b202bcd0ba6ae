// A deal's bank lines that wait for a decision (GET /payments/lines?status=queued&dealId), with the
// way to the Payments page filtered to the deal, where they are decided.
import { consoleApi } from '../lib/api.ts';
import { formatMoney, plural } from '../lib/format.ts';
import { useLoad } from '../../../kit/hooks.ts';
import { Badge } from './ui.tsx';

export function DealPaymentLines({ dealId }: { dealId: string }) {
  const [lines] = useLoad(() => consoleApi.paymentLines({ status: 'queued', dealId, page: 1 }), [dealId]);
  if (lines.status !== 'ready') return null;
  const { output, totalPages } = lines.value;
  return (
    <section className="form-card" aria-labelledby="deal-lines-title" data-testid="deal-payment-lines">
      <h2 id="deal-lines-title">Unmatched bank lines</h2>
      {output.length === 0 ? (
        <p className="muted">No bank line of this deal waits for a decision.</p>
      ) : (
        <>
          <p>
            {totalPages > 1 ? `More than ${plural(output.length, 'line')} wait` : `${plural(output.length, 'line')} ${output.length === 1 ? 'waits' : 'wait'}`}{' '}
            for a decision.
          </p>
          <ul className="results">
            {output.slice(0, 10).map((line) => (
              <li key={line.id}>
                {formatMoney(line.amount, line.currency)} from {line.debtorName ?? 'an unknown payer'}{' '}
                <Badge tone="amber">{line.outcome.replace(/-/g, ' ')}</Badge>
              </li>
            ))}
          </ul>
        </>
      )}
      <a className="button" href={`#/payments?deal=${encodeURIComponent(dealId)}`}>
        Open in Payments
      </a>
    </section>
  );
}
