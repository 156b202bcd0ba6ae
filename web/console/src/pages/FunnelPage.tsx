// The deal's funnel: per step who stands there, who ever entered, where they went, how long they
// stay and what they committed (a table with bars, readable without the chart), and the daily
// series of investors standing at each step as a uPlot chart.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './FunnelPage.css';
import { api, consoleApi, type FunnelDays } from '../lib/api.ts';
import { DealHeader } from '../components/DealHeader.tsx';
import { formatDuration, formatMoney, plural } from '../lib/format.ts';
import { useLoad } from '../../../kit/hooks.ts';
import { useViewFilters } from '../lib/filters.ts';
import { useLiveFeed } from '../lib/live.ts';
import { LiveNote } from '../components/LiveNote.tsx';
import { Badge, ErrorState, Spinner, stepTone } from '../components/ui.tsx';

export function FunnelPage({ dealId }: { dealId: string }) {
  // The classification is the board's and the table's filter of the same name (the URL's query).
  const [filters, update] = useViewFilters();
  const classification = filters.classification.trim();
  const setClassification = (value: string) => update({ classification: value });
  const filter = classification ? { classification } : {};
  const [data, reload] = useLoad(() => Promise.all([api.deal(dealId), api.funnel(dealId, filter), api.funnelDays(dealId, filter)]), [dealId, classification]);
  // How many of the deal's investors an expired category statement keeps out of the payment step.
  const [held] = useLoad(() => consoleApi.expiringCategories({ within: 0, dealId, limit: 1 }), [dealId]);
  // The funnel trails the moves by its upkeep (under a second): read it now and once more after.
  const live = useLiveFeed(dealId, () => {
    reload();
    setTimeout(reload, 1200);
  });
  if (data.status === 'loading') return <Spinner label="Loading the funnel…" />;
  if (data.status === 'error') return <ErrorState error={data.error} retry={reload} />;
  const [deal, funnel, days] = data.value;
  const widest = Math.max(1, ...funnel.steps.map((s) => s.entered));
  const labelOf = new Map(funnel.steps.map((s) => [s.stepId, s.label]));

  return (
    <section aria-labelledby="funnel-title">
      <DealHeader dealId={dealId} name={deal.name} view="funnel" />
      <LiveNote move={live} stepLabel={(id) => labelOf.get(id)} />
      <div className="toolbar">
        <span className="muted" id="funnel-title">
          Funnel · {plural(funnel.investors, 'investor')} · workflow version {funnel.workflowVersion}
        </span>
        <label className="small">
          Classification{' '}
          <select value={classification} onChange={(e) => setClassification(e.target.value)}>
            <option value="">all investors</option>
            <option value="professional">professional</option>
            <option value="sophisticated">sophisticated</option>
            <option value="retail">retail</option>
          </select>
        </label>
      </div>
      {held.status === 'ready' && held.value.total > 0 && (
        <p className="held-note" data-testid="held-by-expired-category">
          {plural(held.value.total, 'investor')} held before payment by an expired category statement · <a href="#/checks">renew in Checks</a>
        </p>
      )}
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Funnel steps">
        <table className="funnel-table">
          <caption className="visually-hidden">Funnel of {deal.name}, one row per step</caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Entered · standing now</th>
              <th scope="col">Went on to</th>
              <th scope="col">Time in step (median · p90)</th>
              <th scope="col">Committed by those here</th>
              <th scope="col" className="num">
                Pending requests
              </th>
            </tr>
          </thead>
          <tbody>
            {funnel.steps.map((s) => (
              <tr key={s.stepId}>
                <th scope="row">
                  {s.label} {s.type !== 'default' && <Badge tone={stepTone(s.type)}>{s.type}</Badge>} {!s.current && <Badge tone="amber">older version</Badge>}
                </th>
                <td data-label="Entered · standing now">
                  <div>
                    <div className="funnel-bar" aria-hidden="true">
                      <span className="funnel-bar-entered" style={{ width: `${(100 * s.entered) / widest}%` }} />
                      <span className="funnel-bar-standing" style={{ width: `${(100 * s.standing) / widest}%` }} />
                    </div>
                    {s.entered.toLocaleString('en-GB')} · {s.standing.toLocaleString('en-GB')}
                  </div>
                </td>
                <td className="small" data-label="Went on to">
                  {s.conversions.length === 0
                    ? '—'
                    : s.conversions
                        .map(
                          (c) =>
                            `${labelOf.get(c.toStepId) ?? c.toStepId} ${c.investors.toLocaleString('en-GB')}${c.rate === null ? '' : ` (${Math.round(c.rate * 100)}%)`}`,
                        )
                        .join(', ')}
                </td>
                <td data-label="Time in step (median · p90)">
                  {formatDuration(s.timeInStep.medianMs)} · {formatDuration(s.timeInStep.p90Ms)}
                </td>
                <td data-label="Committed by those here">
                  {s.committed.length === 0 ? '—' : s.committed.map((c) => formatMoney(c.total, c.currency)).join(' · ')}
                </td>
                <td className="num" data-label="Pending requests">
                  {s.pendingEditRequests}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2 className="section-title">Standing at each step, day by day</h2>
      <DailyChart days={days} label={`Investors standing at each step of ${deal.name}, per day from ${days.from} to ${days.to}`} />
    </section>
  );
}

const palette = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#dc2626', '#0891b2', '#4b5563', '#be185d', '#65a30d', '#7c3aed'];

function DailyChart({ days, label }: { days: FunnelDays; label: string }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const x = days.days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
    const series = days.steps.map((_, i) => days.days.map((d) => d.steps[i]?.standing ?? 0));
    const width = () => Math.max(280, element.clientWidth);
    const chart = new uPlot(
      {
        width: width(),
        height: 280,
        series: [{}, ...days.steps.map((s, i) => ({ label: s.label, stroke: palette[i % palette.length]!, width: 2 }))],
        legend: { show: false },
        axes: [{}, { label: 'investors' }],
        scales: { x: { time: true } },
      },
      [x, ...series],
      element,
    );
    const resize = () => chart.setSize({ width: width(), height: 280 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      chart.destroy();
    };
  }, [days]);
  return (
    <figure className="funnel-figure">
      <div className="funnel-chart" ref={holder} role="img" aria-label={label} />
      <figcaption>
        <ul className="funnel-legend">
          {days.steps.map((s, i) => (
            <li key={s.stepId}>
              <span className="funnel-swatch" style={{ background: palette[i % palette.length] }} aria-hidden="true" />
              {s.label}: {(days.days.at(-1)?.steps[i]?.standing ?? 0).toLocaleString('en-GB')} on {days.to}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
