// A CRM file of any shape imported through a column map the operator checks: every header with its
// first value and what it becomes (guessed, editable, remembered per file shape), the columns read
// past named, the service's dry run as the preview (ids it derives, rows it merges or refuses), then
// the import (an import job with a progress bar for a large file) and, optionally, a move file that
// places everyone in a step with their own amount and currency.
import { useEffect, useMemo, useState } from 'react';
import { api, consoleApi, describeError, type ImportReport } from '../lib/api.ts';
import { toCsv } from '../lib/csv.ts';
import { type CrmFile, initialMap, mapProblem, rememberMap, serviceColumns, type Target, targetLabels } from '../lib/crm-map.ts';
import { plural } from '../lib/format.ts';
import { useLoad } from '../lib/hooks.ts';
import { outcomeWords } from '../lib/investor-csv.ts';
import { rowErrors } from '../lib/investor-import.ts';
import { FormStatus } from './ui.tsx';

type Check = { status: 'checking' } | { status: 'error'; message: string } | { status: 'ready'; report: ImportReport };

interface Props {
  file: CrmFile;
  text: string;
  initialDeal: string;
  onAnother: () => void;
}

export function CrmImport({ file, text, initialDeal, onAnother }: Props) {
  const { header, records } = file;
  const [map, setMap] = useState<Target[]>(() => initialMap(header));
  const [check, setCheck] = useState<Check>();
  const [handled, setHandled] = useState<number>();
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<ImportReport | { failed: string }>();
  const [placed, setPlaced] = useState<ImportReport | { failed: string }>();
  const [placement, setPlacement] = useState({ dealId: initialDeal, stepId: '', amountKey: '', currencyKey: '' });
  const [deals] = useLoad(() => api.deals(), []);
  const [workflow] = useLoad(() => (placement.dealId ? api.workflow(placement.dealId).catch(() => undefined) : Promise.resolve(undefined)), [placement.dealId]);
  const steps = workflow.status === 'ready' && workflow.value ? workflow.value.steps : [];
  const step = steps.find((s) => s.id === placement.stepId) ?? steps.find((s) => s.previousStepLinks.length === 0) ?? steps[0];
  const fields = (step?.stepFields ?? []).map((f) => ({ key: f.fieldKey, label: f.label ?? f.fieldKey, kind: f.kind }));
  const amountKey = placement.amountKey || fields.find((f) => f.kind === 'amount')?.key || '';
  const currencyKey = placement.currencyKey || fields.find((f) => f.kind === 'currency')?.key || '';
  /** Without a currency column, a currency field gets the deal's currency. */
  const dealCurrency = deals.status === 'ready' ? (deals.value.find((d) => d.id === placement.dealId)?.currency ?? '') : '';
  const columns = useMemo(() => serviceColumns(header, map), [header, map]);
  const problem = mapProblem(map);
  const readPast = header.filter((_h, i) => !map[i]);
  const columnOf = (target: Target) => map.indexOf(target);

  useEffect(() => rememberMap(header, map), [header, map]);

  // The service's dry run through the current map, shortly after the map stops changing.
  useEffect(() => {
    if (problem) {
      setCheck(undefined);
      return;
    }
    let stale = false;
    setCheck({ status: 'checking' });
    const timer = setTimeout(() => {
      consoleApi.importMappedCsv(text, columns, true).then(
        (report) => !stale && setCheck({ status: 'ready', report }),
        (error) => !stale && setCheck({ status: 'error', message: describeError(error) }),
      );
    }, 300);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [text, columns, problem]);
  const planned = check?.status === 'ready' ? check.report : undefined;
  /** Rows of an e-mail seen on an earlier row: the same investor as that row. */
  const mergedRows = new Set(planned?.rows.filter((r, i) => r.id && planned.rows.slice(0, i).some((x) => x.id === r.id)).map((r) => r.row) ?? []);
  const mergedNew = planned?.rows.filter((r) => mergedRows.has(r.row) && r.outcome === 'created').length ?? 0;

  async function run() {
    setRunning(true);
    setHandled(undefined);
    let report: ImportReport & { fromJob?: boolean };
    try {
      report = await consoleApi.importMappedCsv(text, columns, false, setHandled);
    } catch (error) {
      setOutcome({ failed: describeError(error) });
      setRunning(false);
      return;
    }
    setOutcome(report);
    if (placement.dealId && step && !report.fromJob) {
      // One move per investor the import kept, with the values of its own row; a merged e-mail
      // appears once (its last row's values).
      const byId = new Map<string, string[]>();
      for (const r of report.rows) if (r.outcome !== 'refused' && r.id) byId.set(r.id, records[r.row - 1] ?? []);
      const amountColumn = columnOf('place:amount');
      const currencyColumn = columnOf('place:currency');
      const values: [string, (cells: string[]) => string][] = [];
      if (amountKey && amountColumn >= 0) values.push([amountKey, (cells) => (cells[amountColumn] ?? '').trim()]);
      if (currencyKey && currencyColumn >= 0) values.push([currencyKey, (cells) => (cells[currencyColumn] ?? '').trim()]);
      else if (currencyKey && amountColumn >= 0 && dealCurrency) values.push([currencyKey, () => dealCurrency]);
      const head = ['investorUserId', 'targetStepId', ...values.map(([key]) => key)];
      const rows = [...byId].map(([id, cells]) => [id, step.id, ...values.map(([, value]) => value(cells))]);
      try {
        setPlaced(await consoleApi.importMoves(placement.dealId, toCsv(head, rows)));
      } catch (error) {
        setPlaced({ failed: describeError(error) });
      }
    }
    setRunning(false);
  }

  const report = outcome && 'rows' in outcome ? outcome : undefined;
  const placedReport = placed && 'rows' in placed ? placed : undefined;
  const cellOf = (record: string[], target: Target) => (columnOf(target) >= 0 ? (record[columnOf(target)] ?? '') : '');
  const nameOf = (record: string[]) => cellOf(record, 'fullName') || [cellOf(record, 'contact.forename'), cellOf(record, 'contact.surname')].join(' ').trim();

  if (report) {
    const refused = report.rows.filter((r) => r.outcome === 'refused');
    return (
      <div className="import-summary" data-testid="import-summary">
        <h2>Imported</h2>
        <p role="status">
          {report.summary.created} created, {report.summary.updated} updated, {report.summary.unchanged} unchanged, {report.summary.refused} refused.
        </p>
        {report.error && <FormStatus error={`The import stopped after row ${report.summary.rows}: ${report.error.detail}`} />}
        {placedReport && (
          <p role="status" data-testid="placement-summary">
            {placedReport.summary.created + placedReport.summary.unchanged} placed in {step?.label ?? 'the step'}
            {placedReport.summary.refused > 0 ? `, ${placedReport.summary.refused} not placed` : ''}.
          </p>
        )}
        {placed && 'failed' in placed && <FormStatus error={`Placing them in the deal failed: ${placed.failed}`} />}
        {(refused.length > 0 || (placedReport?.summary.refused ?? 0) > 0) && (
          <ul className="results">
            {refused.map((r) => (
              <li key={`i${r.row}`} className="result-refused">
                Line {r.row + 1}: {rowErrors(r)}
              </li>
            ))}
            {placedReport?.rows
              .filter((r) => r.outcome === 'refused')
              .map((r) => (
                <li key={`p${r.row}`} className="result-refused">
                  Not placed ({nameOf(records[report.rows.findIndex((x) => x.id === r.id)] ?? []) || r.id}): {rowErrors(r)}
                </li>
              ))}
          </ul>
        )}
        <div className="row-actions">
          <a className="button button-primary" href={placement.dealId ? `#/deals/${encodeURIComponent(placement.dealId)}` : '#/investors'}>
            {placement.dealId ? "Open the deal's board" : 'Open the directory'}
          </a>
          <button type="button" className="button" onClick={onAnother}>
            Import another file
          </button>
        </div>
      </div>
    );
  }

  return (
    <div className="import-preview">
      <h2>Columns</h2>
      <p className="muted small">What each column of the file becomes. Guessed from the header names; your choice is remembered for files with the same columns.</p>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Columns of the file">
        <table className="table import-table" data-testid="column-map">
          <thead>
            <tr>
              <th scope="col">Column</th>
              <th scope="col">First value</th>
              <th scope="col">Becomes</th>
            </tr>
          </thead>
          <tbody>
            {header.map((h, i) => (
              <tr key={h + i}>
                <td data-label="Column">
                  <code>{h}</code>
                </td>
                <td data-label="First value">{records[0]?.[i] ?? ''}</td>
                <td data-label="Becomes">
                  <select
                    aria-label={`${h} becomes`}
                    value={map[i]}
                    onChange={(e) => setMap(map.map((t, k) => (k === i ? (e.target.value as Target) : t === e.target.value ? '' : t)))}
                  >
                    {(Object.keys(targetLabels) as Target[]).map((t) => (
                      <option key={t} value={t}>
                        {targetLabels[t]}
                      </option>
                    ))}
                  </select>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {readPast.length > 0 && (
        <p className="muted" data-testid="read-past">
          Not imported: {readPast.map((h) => `“${h}”`).join(', ')}.
        </p>
      )}
      <FormStatus error={problem} />
      <h2>Preview</h2>
      <p className="muted" data-testid="import-check" aria-live="polite">
        {check?.status === 'checking' && 'The service is checking the rows…'}
        {planned &&
          `The service's check (nothing written yet): ${plural(records.length, 'row')}, ${planned.summary.created - mergedNew} new, ${planned.summary.updated} to update, ${planned.summary.unchanged} unchanged, ${planned.summary.refused} refused${mergedRows.size > 0 ? `, ${mergedRows.size} merged with an earlier row of the same e-mail` : ''}.`}
      </p>
      {check?.status === 'error' && <FormStatus error={`The service could not check the rows: ${check.message}`} />}
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Rows of the file">
        <table className="table import-table">
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              <th scope="col">Id</th>
              {columnOf('place:amount') >= 0 && <th scope="col">Amount</th>}
              <th scope="col">Check</th>
            </tr>
          </thead>
          <tbody>
            {records.slice(0, 200).map((record, i) => {
              const checked = planned?.rows.find((r) => r.row === i + 1);
              const refused = checked?.outcome === 'refused';
              const merged = mergedRows.has(i + 1);
              return (
                <tr key={i} className={refused ? 'row-invalid' : undefined}>
                  <td data-label="Line">{i + 2}</td>
                  <td data-label="Name">{nameOf(record)}</td>
                  <td data-label="E-mail">{cellOf(record, 'contact.email')}</td>
                  <td data-label="Id">
                    <code>{checked?.id ?? ''}</code>
                  </td>
                  {columnOf('place:amount') >= 0 && <td data-label="Amount">{cellOf(record, 'place:amount')}</td>}
                  <td data-label="Check">
                    {refused ? <span className="field-error">{rowErrors(checked)}</span> : checked ? (merged ? 'merged with an earlier line' : outcomeWords[checked.outcome]) : '…'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {records.length > 200 && <p className="muted small">The first 200 rows are shown; every row is imported.</p>}
      <fieldset className="sub">
        <legend>Place them in a step (optional)</legend>
        <div className="field-pair">
          <label className="field">
            <span className="field-label">Deal</span>
            <select name="placementDeal" value={placement.dealId} onChange={(e) => setPlacement({ dealId: e.target.value, stepId: '', amountKey: '', currencyKey: '' })}>
              <option value="">Directory only</option>
              {deals.status === 'ready' &&
                deals.value.map((d) => (
                  <option key={d.id} value={d.id}>
                    {d.name}
                  </option>
                ))}
            </select>
          </label>
          {placement.dealId && (
            <label className="field">
              <span className="field-label">Step</span>
              <select name="placementStep" value={step?.id ?? ''} onChange={(e) => setPlacement({ ...placement, stepId: e.target.value, amountKey: '', currencyKey: '' })}>
                {steps.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.label}
                  </option>
                ))}
              </select>
            </label>
          )}
        </div>
        {placement.dealId && fields.length > 0 && (columnOf('place:amount') >= 0 || columnOf('place:currency') >= 0) && (
          <div className="field-pair">
            {columnOf('place:amount') >= 0 && (
              <label className="field">
                <span className="field-label">“{header[columnOf('place:amount')]}” fills</span>
                <select name="amountField" value={amountKey} onChange={(e) => setPlacement({ ...placement, amountKey: e.target.value })}>
                  <option value="">Nothing</option>
                  {fields.map((f) => (
                    <option key={f.key} value={f.key}>
                      {f.label}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {columnOf('place:currency') < 0 && currencyKey && dealCurrency && <p className="muted small">Currency: the deal's, {dealCurrency}.</p>}
            {columnOf('place:currency') >= 0 && (
              <label className="field">
                <span className="field-label">“{header[columnOf('place:currency')]}” fills</span>
                <select name="currencyField" value={currencyKey} onChange={(e) => setPlacement({ ...placement, currencyKey: e.target.value })}>
                  <option value="">Nothing</option>
                  {fields.map((f) => (
                    <option key={f.key} value={f.key}>
                      {f.label}
                    </option>
                  ))}
                </select>
              </label>
            )}
          </div>
        )}
        {placement.dealId && text.length > 1024 * 1024 && <p className="muted small">A file this large is imported as a job; place its investors afterwards with a bulk move.</p>}
      </fieldset>
      <div className="row-actions">
        <button type="button" className="button button-primary" disabled={check?.status !== 'ready' || running} onClick={run}>
          Import {plural(records.length, 'row')}
        </button>
      </div>
      {running && (
        <div className="progress" role="status">
          {handled === undefined ? <progress aria-label="Importing" /> : <progress max={records.length} value={handled} aria-label="Importing" />} Importing{' '}
          {plural(records.length, 'row')}
          {handled === undefined ? '…' : `: ${handled} handled`}
        </div>
      )}
      {outcome && 'failed' in outcome && <FormStatus error={`The import failed: ${outcome.failed}`} />}
    </div>
  );
}
