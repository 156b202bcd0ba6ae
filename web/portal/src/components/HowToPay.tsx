// How to pay: the amount due, the bank details and the reference, each with a copy button; the EPC
// QR code for a euro transfer; what has been received and what remains.
import type { InvestorDeal } from '../lib/api.ts';
import { formatMoney } from '../lib/format.ts';
import { m } from '../messages.ts';
import { CopyButton } from './ui.tsx';
import { QrCode } from './QrCode.tsx';
import './HowToPay.css';

/** An IBAN in groups of four, as it is printed (copied without the spaces). */
const grouped = (iban: string) => iban.replace(/(.{4})(?=.)/g, '$1 ');

export function HowToPay({ payment }: { payment: NonNullable<InvestorDeal['payment']> }) {
  const { currency } = payment;
  const due = formatMoney(payment.amountDue, currency);
  const rows: { label: string; shown: string; copy: string | null; mono?: boolean }[] = [
    { label: m.amountDue, shown: due, copy: payment.amountDue },
    { label: m.beneficiary, shown: payment.beneficiaryName ?? m.notSet, copy: payment.beneficiaryName },
    { label: m.iban, shown: payment.iban ? grouped(payment.iban) : m.notSet, copy: payment.iban, mono: true },
    { label: m.bic, shown: payment.bic ?? m.notSet, copy: payment.bic, mono: true },
    { label: m.reference, shown: payment.reference, copy: payment.reference, mono: true },
  ];
  const paidInFull = payment.remaining !== null && /^0+(\.0+)?$/.test(payment.remaining);
  return (
    <section className="card pay" aria-labelledby="pay-title">
      <h2 id="pay-title">{m.payTitle}</h2>
      {paidInFull ? <p className="alert alert-ok">{m.paidInFull}</p> : <p className="muted">{m.payExplain}</p>}
      {!payment.iban && <p className="alert alert-info">{m.payNotReady}</p>}
      <div className="pay-body">
        <dl className="pay-details">
          {rows.map((row) => (
            <div key={row.label} className="pay-row">
              <dt>{row.label}</dt>
              <dd>
                <span className={row.mono ? 'mono' : 'money'} data-copy={row.label}>
                  {row.shown}
                </span>
                {row.copy && <CopyButton value={row.copy} what={row.label} />}
              </dd>
            </div>
          ))}
          <div className="pay-row">
            <dt>{m.received}</dt>
            <dd className="money">{formatMoney(payment.received, currency)}</dd>
          </div>
          <div className="pay-row">
            <dt>{m.remainingToPay}</dt>
            <dd className="money" data-testid="remaining">
              {formatMoney(payment.remaining, currency)}
            </dd>
          </div>
        </dl>
        {payment.epcQr && !paidInFull && (
          <figure className="qr-figure">
            <QrCode payload={payment.epcQr} label={m.qrAlt(due, payment.reference)} />
            <figcaption>
              <strong>{m.qrTitle}</strong>
              <span className="muted small">{m.qrExplain}</span>
            </figcaption>
          </figure>
        )}
      </div>
    </section>
  );
}
