// Subscription transactions: the list (by investor or asset), and booking a new one. The wire
// takes amounts as JSON numbers (createSubscription's contract); the form keeps them as the typed text
// and checks that the total is units × price to the cent before sending, as the service will.
import { PagedTable } from '../components/PagedTable.tsx';
import Big from 'big.js';
import { useState, type FormEvent } from 'react';
import { ApiError, consoleApi, type SubscriptionBody } from '../lib/api.ts';
import { formatMoney } from '../lib/format.ts';
import { useLoad, useSubmission } from '../../../kit/hooks.ts';
import { FormStatus, When } from '../components/ui.tsx';

type FundingSource = SubscriptionBody['funding_source'];

const DECIMAL = /^\d{1,15}(\.\d{1,10})?$/;
const fundingSources = ['cash_account', 'bank_transfer', 'card', 'other'] as const;

export function SubscriptionsPage() {
  const [investor, setInvestor] = useState('');
  const [asset, setAsset] = useState('');
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  const filters = {
    ...(investor.trim() ? { investor_id: investor.trim() } : {}),
    ...(/^[1-9]\d{0,14}$/.test(asset.trim()) ? { asset_id: Number(asset.trim()) } : {}),
  };
  const [list, reload] = useLoad(() => consoleApi.subscriptions({ ...filters, page }), [JSON.stringify(filters), page, version]);

  return (
    <section aria-labelledby="subscriptions-title">
      <div className="page-head">
        <div>
          <h1 id="subscriptions-title">Subscription transactions</h1>
          <p className="muted">Bookings of investors into assets, oldest first.</p>
        </div>
      </div>
      <BookingForm onBooked={() => setVersion((v) => v + 1)} />
      <div className="toolbar">
        <label className="inline-field">
          <span>Investor id</span>
          <input value={investor} onChange={(e) => (setInvestor(e.target.value), setPage(1))} />
        </label>
        <label className="inline-field">
          <span>Asset id</span>
          <input inputMode="numeric" value={asset} onChange={(e) => (setAsset(e.target.value), setPage(1))} />
        </label>
      </div>
      <PagedTable
        list={list}
        retry={reload}
        empty={{ title: 'No subscription transactions' }}
        label="Subscription transactions"
        className="subscriptions-table"
        page={page}
        onPage={setPage}
        head={
          <tr>
            <th scope="col">Investor</th>
            <th scope="col" className="num">
              Asset
            </th>
            <th scope="col" className="num">
              Units × price
            </th>
            <th scope="col" className="num">
              Total
            </th>
            <th scope="col">Funding</th>
            <th scope="col">Settles</th>
          </tr>
        }
        row={(s) => (
          <tr key={s.id}>
            <td data-label="Investor">
              {s.investor_id}
              <div className="muted small">
                booked <When iso={s.created_at} />
              </div>
            </td>
            <td className="num" data-label="Asset">
              {s.asset_id}
            </td>
            <td className="num" data-label="Units × price">
              {String(s.units)} × {formatMoney(String(s.price_per_unit), s.currency)}
            </td>
            <td className="num money" data-label="Total">
              {formatMoney(String(s.total), s.currency)}
              {s.fee > 0 && <div className="muted small">fee {formatMoney(String(s.fee), s.currency)}</div>}
            </td>
            <td data-label="Funding">{s.funding_source.replace(/_/g, ' ')}</td>
            <td data-label="Settles">{s.settlement_date}</td>
          </tr>
        )}
      />
    </section>
  );
}

function BookingForm({ onBooked }: { onBooked: () => void }) {
  const today = new Date().toISOString().slice(0, 10);
  const [v, setV] = useState({
    asset_id: '',
    investor_id: '',
    units: '',
    price_per_unit: '',
    fee: '',
    funding_source: 'bank_transfer' as FundingSource,
    invoice_date: today,
    settlement_date: today,
    description: '',
  });
  const { busy, error, done, run, refuse } = useSubmission();
  const [open, setOpen] = useState(false);
  const [asset] = useLoad(
    () =>
      /^[1-9]\d{0,14}$/.test(v.asset_id)
        ? consoleApi.getAsset(v.asset_id).catch((e) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e)))
        : Promise.resolve(undefined),
    [v.asset_id],
  );
  const total =
    DECIMAL.test(v.units) && DECIMAL.test(v.price_per_unit) ? new Big(v.units).times(v.price_per_unit).round(2, Big.roundHalfUp).toFixed(2) : undefined;
  const assetInfo = asset.status === 'ready' ? asset.value : undefined;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!/^[1-9]\d{0,14}$/.test(v.asset_id)) return refuse('Enter the asset id (a whole number).');
    if (!v.investor_id.trim()) return refuse('Enter the investor id.');
    if (!total) return refuse('Enter units and a price per unit as decimals, e.g. 100 and 12.50.');
    if (v.fee && !DECIMAL.test(v.fee)) return refuse('Enter the fee as a decimal, or leave it empty.');
    await run(async () => {
      const created = await consoleApi.createSubscription({
        asset_id: Number(v.asset_id),
        investor_id: v.investor_id.trim(),
        units: Number(v.units),
        price_per_unit: Number(v.price_per_unit),
        total: Number(total),
        ...(v.fee ? { fee: Number(v.fee) } : {}),
        funding_source: v.funding_source,
        invoice_date: v.invoice_date,
        settlement_date: v.settlement_date,
        ...(v.description.trim() ? { description: v.description.trim() } : {}),
        source: 'console',
      });
      onBooked();
      return `Booked ${formatMoney(String(created.total), created.currency)} for ${created.investor_id}.`;
    });
  }

  const input = (key: keyof typeof v, label: string, props: Record<string, unknown> = {}) => (
    <label className="field">
      <span className="field-label">{label}</span>
      <input name={key} value={v[key]} onChange={(e) => setV({ ...v, [key]: e.target.value.trim() })} {...props} />
    </label>
  );

  return (
    <div className="form-card">
      <button type="button" className="button" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        Book a subscription…
      </button>
      {open && (
        <form onSubmit={submit} noValidate className="booking">
          <div className="field-pair">
            {input('asset_id', 'Asset id', { inputMode: 'numeric' })}
            {input('investor_id', 'Investor id')}
          </div>
          <p className="muted small" aria-live="polite">
            {assetInfo ? `${assetInfo.name}, in ${assetInfo.currency}` : assetInfo === null ? 'No asset with this id.' : '\u00a0'}
          </p>
          <div className="field-pair">
            {input('units', 'Units', { inputMode: 'decimal' })}
            {input('price_per_unit', 'Price per unit', { inputMode: 'decimal' })}
          </div>
          <p className="small">Total: {total ? formatMoney(total, assetInfo?.currency ?? null) : '—'}</p>
          <div className="field-pair">
            {input('fee', 'Fee (optional)', { inputMode: 'decimal' })}
            <label className="field">
              <span className="field-label">Funding source</span>
              <select value={v.funding_source} onChange={(e) => setV({ ...v, funding_source: e.target.value as FundingSource })}>
                {fundingSources.map((f) => (
                  <option key={f} value={f}>
                    {f.replace(/_/g, ' ')}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <div className="field-pair">
            {input('invoice_date', 'Invoice date', { type: 'date' })}
            {input('settlement_date', 'Settlement date', { type: 'date' })}
          </div>
          <FormStatus error={error} done={done} />
          <div className="row-actions">
            <button type="submit" className="button button-primary" disabled={busy}>
              {busy ? 'Booking…' : 'Book'}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
