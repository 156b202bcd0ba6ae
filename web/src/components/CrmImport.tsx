// A CRM file of any shape imported through a column map the operator checks: every header with its
// first value and what it becomes (guessed, editable, remembered per file shape), the columns read
// past named, the service's dry run as the preview (ids it derives, rows it merges or refuses), then
// the import (an import job with a progress bar for a large file) and, optionally, a move file that
// places everyone the import kept in a step with their own amount and currency (an import job too
// when it is large), whatever the size of the file (lib/crm-import.ts).
import { useEffect, useMemo, useState } from 'react';
import { api, consoleApi, describeError } from '../lib/api.ts';
import { checkCrmFile, placementOf, type Report, type StepValue } from '../lib/crm-import.ts';
import { type CrmFile, initialMap, mapProblem, rememberMap, serviceColumns, type Target, targetLabels } from '../lib/crm-map.ts';
import { plural } from '../lib/format.ts';
import { useLoad } from '../lib/hooks.ts';
import { outcomeWords } from '../lib/investor-csv.ts';
import { rowErrors } from '../lib/investor-import.ts';
import { CrmImportSummary, type Placed } from './CrmImportSummary.tsx';
import { FormStatus } from './ui.tsx';

const n = (count: number) => count.toLocaleString('en-GB');

type Check = { status: 'checking'; rows?: number } | { status: 'error'; message: string } | { status: 'ready'; report: Report };

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
  const [outcome, setOutcome] = useState<Report | { failed: string }>();
  const [placed, setPlaced] = useState<Placed>();
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
      checkCrmFile(file, text, columns, (rows) => !stale && setCheck({ status: 'checking', rows })).then(
        (report) => !stale && setCheck({ status: 'ready', report }),
        (error) => !stale && setCheck({ status: 'error', message: describeError(error) }),
      );
    }, 300);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [file, text, columns, problem]);
  const planned = check?.status === 'ready' ? check.report : undefined;
  /** Per row, the check's report; the rows of an e-mail seen on an earlier row (the same investor as that row). */
  const { checkedRows, mergedRows, mergedNew } = useMemo(() => {
    const seen = new Set<string>();
    const merged = new Set<number>();
    let created = 0;
    for (const r of planned?.rows ?? []) {
      if (!r.id) continue;
      if (!seen.has(r.id)) seen.add(r.id);
      else {
        merged.add(r.row);
        if (r.outcome === 'created') created++;
      }
    }
    return { checkedRows: new Map(planned?.rows.map((r) => [r.row, r])), mergedRows: merged, mergedNew: created };
  }, [planned]);

  async function run() {
    setRunning(true);
    setHandled(undefined);
    let report: Report;
    try {
      report = await consoleApi.importMappedCsv(text, columns, false, setHandled);
    } catch (error) {
      setOutcome({ failed: describeError(error) });
      setRunning(false);
      return;
    }
    setOutcome(report);
    if (placement.dealId && step) {
      // One move per investor the import kept, with the values of its own row; a merged e-mail
      // appears once (its last row's values).
      const amountColumn = columnOf('place:amount');
      const currencyColumn = columnOf('place:currency');
      const values: StepValue[] = [];
      if (amountKey && amountColumn >= 0) values.push({ key: amountKey, value: (cells) => (cells[amountColumn] ?? '').trim() });
      if (currencyKey && currencyColumn >= 0) values.push({ key: currencyKey, value: (cells) => (cells[currencyColumn] ?? '').trim() });
      else if (currencyKey && amountColumn >= 0 && dealCurrency) values.push({ key: currencyKey, value: () => dealCurrency });
      const toPlace = placementOf(file, report, planned, step.id, values);
      setPlaced({ placement: toPlace });
      if (toPlace.rowOf.size > 0) {
        try {
          const moves = await consoleApi.importMoves(placement.dealId, toPlace.csv, (handled) => setPlaced({ placement: toPlace, handled }));
          setPlaced({ placement: toPlace, moves });
        } catch (error) {
          setPlaced({ placement: toPlace, failed: describeError(error) });
        }
      }
    }
    setRunning(false);
  }

  const report = outcome && 'rows' in outcome ? outcome : undefined;
  const cellOf = (record: string[], target: Target) => (columnOf(target) >= 0 ? (record[columnOf(target)] ?? '') : '');
  const nameOf = (record: string[]) => cellOf(record, 'fullName') || [cellOf(record, 'contact.forename'), cellOf(record, 'contact.surname')].join(' ').trim();

  if (report) {
    return (
      <CrmImportSummary
        report={report}
        placed={placed}
        dealId={placement.dealId}
        stepLabel={step?.label ?? 'the step'}
        nameOfRow={(row) => nameOf(records[row - 1] ?? [])}
        onAnother={onAnother}
      />
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
        {check?.status === 'checking' && `The service is checking the rows…${check.rows === undefined ? '' : ` ${n(check.rows)} of ${n(records.length)}`}`}
        {planned &&
          `The service's check (nothing written yet): ${plural(records.length, 'row')}, ${n(planned.summary.created - mergedNew)} new, ${n(planned.summary.updated)} to update, ${n(planned.summary.unchanged)} unchanged, ${n(planned.summary.refused)} refused${mergedRows.size > 0 ? `, ${n(mergedRows.size)} merged with an earlier row of the same e-mail` : ''}.`}
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
              const checked = checkedRows.get(i + 1);
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
          {handled === undefined ? '…' : `: ${n(handled)} handled`}
        </div>
      )}
      {outcome && 'failed' in outcome && <FormStatus error={`The import failed: ${outcome.failed}`} />}
    </div>
  );
}
