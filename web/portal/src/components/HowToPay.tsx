// How to pay: the amount due, the bank details and the reference, each with a copy button; the EPC
// QR code for a euro transfer; what has been received and what remains.
import type { InvestorDeal } from '../lib/api.ts';
import { formatDateTime, formatMoneyForReader } from '../../../kit/format.ts';
import { m } from '../messages.ts';
import { CopyButton } from './ui.tsx';
import { QrCode } from './QrCode.tsx';
import './HowToPay.css';

/** How long the portal warns that the bank details changed: long enough for every payment in flight. */
const CHANGE_NOTICE_DAYS = 90;

/** An IBAN in groups of four, as it is printed (copied without the spaces). */
const grouped = (iban: string) => iban.replace(/(.{4})(?=.)/g, '$1 ');

export function HowToPay({ payment }: { payment: NonNullable<InvestorDeal['payment']> }) {
  const { currency } = payment;
  // `amountDue` is the whole commitment; what to transfer now is what remains of it (the amount
  // the QR code encodes), so that is the amount the page offers to copy and the code's text names.
  const toPay = formatMoneyForReader(payment.remaining, currency);
  const paidInFull = payment.remaining !== null && /^0+(\.0+)?$/.test(payment.remaining);
  const rows: { label: string; shown: string; copy: string | null; mono?: boolean; testId?: string }[] = [
    { label: m.stillToPay, shown: toPay, copy: paidInFull ? null : payment.remaining, testId: 'remaining' },
    { label: m.beneficiary, shown: payment.beneficiaryName ?? m.notSet, copy: payment.beneficiaryName },
    { label: m.iban, shown: payment.iban ? grouped(payment.iban) : m.notSet, copy: payment.iban, mono: true },
    { label: m.bic, shown: payment.bic ?? m.notSet, copy: payment.bic, mono: true },
    { label: m.reference, shown: payment.reference, copy: payment.reference, mono: true },
  ];
  return (
    <section className="card pay" aria-labelledby="pay-title">
      <h2 id="pay-title">{m.payTitle}</h2>
      {paidInFull ? <p className="alert alert-ok">{m.paidInFull}</p> : <p className="muted">{m.payExplain}</p>}
      {!payment.iban && <p className="alert alert-info">{m.payNotReady}</p>}
      {payment.payeeChangedAt && !paidInFull && Date.now() - Date.parse(payment.payeeChangedAt) < CHANGE_NOTICE_DAYS * 86_400_000 && (
        <p className="alert alert-warn" role="status" data-testid="payee-changed">
          {m.payeeChanged(formatDateTime(payment.payeeChangedAt))}
        </p>
      )}
      <dl className="pay-sums" data-testid="pay-sums">
        <div>
          <dt>{m.committed}</dt>
          <dd className="money" data-testid="pay-committed">
            {formatMoneyForReader(payment.amountDue, currency)}
          </dd>
        </div>
        <div>
          <dt>{m.received}</dt>
          <dd className="money" data-testid="received">
            {formatMoneyForReader(payment.received, currency)}
          </dd>
        </div>
      </dl>
      <div className="pay-body">
        <dl className="pay-details">
          {rows.map((row) => (
            <div key={row.label} className="pay-row">
              <dt>{row.label}</dt>
              <dd>
                <span className={row.mono ? 'mono' : 'money'} data-copy={row.label} data-testid={row.testId}>
                  {row.shown}
                </span>
                {row.copy && <CopyButton value={row.copy} what={row.label} />}
              </dd>
            </div>
          ))}
        </dl>
        {payment.epcQr && !paidInFull && (
          <figure className="qr-figure">
            <QrCode payload={payment.epcQr} label={m.qrAlt(toPay, payment.reference)} />
            <figcaption>
              <strong>{m.qrTitle}</strong>
              {/* A phone cannot scan its own screen: there the details above are what to use. */}
              <span className="muted small qr-explain-wide">{m.qrExplain}</span>
              <span className="muted small qr-explain-phone">{m.qrExplainPhone}</span>
            </figcaption>
          </figure>
        )}
      </div>
    </section>
  );
}
