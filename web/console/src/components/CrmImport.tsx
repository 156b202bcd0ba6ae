// A CRM file of any shape imported through a column map the operator checks: every header with its
// first value and what it becomes (guessed, editable, remembered per file shape), the columns read
// past named, how the file writes numbers and dates (guessed from its values, editable), which row
// of an e-mail on several rows counts, and the step its rows are placed in. The preview is the
// service's dry run of the very request the import sends, so it refuses exactly what the import
// refuses and counts what the import does; each row is then created and placed together or not at
// all (an import job with a progress bar for a large file; lib/crm-import.ts).
import { TableRegion } from './PagedTable.tsx';
import { DealOptions, StepOptions } from './SelectOptions.tsx';
import { useEffect, useMemo, useState } from 'react';
import { api, describeError, type MappedImport } from '../lib/api.ts';
import { checkCrmFile, countsOf, importCrmFile, type Report, refusalOf } from '../lib/crm-import.ts';
import {
  type CrmFile,
  guessDates,
  guessNumbers,
  initialMap,
  mapProblem,
  rememberMap,
  serviceColumns,
  type StepKeys,
  type Target,
  targetLabels,
} from '../lib/crm-map.ts';
import { plural } from '../lib/format.ts';
import { useLoad } from '../../../kit/hooks.ts';
import { outcomeWords } from '../lib/investor-csv.ts';
import { CrmImportSummary } from './CrmImportSummary.tsx';
import { type DateStyle, type Duplicates, DuplicatesChoice, type NumberStyle, WrittenForms } from './CrmImportForms.tsx';
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
  const columnOf = (target: Target) => map.indexOf(target);
  const valuesOf = (target: Target) => (columnOf(target) >= 0 ? records.slice(0, 200).map((r) => r[columnOf(target)] ?? '') : []);
  const [numbers, setNumbers] = useState<NumberStyle>(() => guessNumbers(valuesOf('place:amount')));
  const [dates, setDates] = useState<DateStyle>(() => guessDates(valuesOf('place:date')));
  const [duplicates, setDuplicates] = useState<Duplicates>('last');
  const [check, setCheck] = useState<Check>();
  const [handled, setHandled] = useState<number>();
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<Report | { failed: string }>();
  const [placement, setPlacement] = useState<{ dealId: string; stepId: string; keys: StepKeys }>({ dealId: initialDeal, stepId: '', keys: {} });
  const [deals] = useLoad(() => api.deals(), []);
  const [workflow] = useLoad(() => (placement.dealId ? api.workflow(placement.dealId).catch(() => undefined) : Promise.resolve(undefined)), [placement.dealId]);
  const steps = workflow.status === 'ready' && workflow.value ? workflow.value.steps : [];
  const step = placement.dealId ? (steps.find((s) => s.id === placement.stepId) ?? steps.find((s) => s.previousStepLinks.length === 0) ?? steps[0]) : undefined;
  const fields = (step?.stepFields ?? []).map((f) => ({ key: f.fieldKey, label: f.label ?? f.fieldKey, kind: f.kind }));
  /** The field each column for the step fills: chosen, else the step's first field of the kind. */
  const keyOf = (target: keyof StepKeys, kind: string) =>
    columnOf(target) < 0 ? undefined : (placement.keys[target] ?? fields.find((f) => f.kind === kind)?.key);
  const keys: StepKeys = {
    'place:amount': keyOf('place:amount', 'amount'),
    'place:currency': keyOf('place:currency', 'currency'),
    'place:date': keyOf('place:date', 'date'),
  };
  /** Without a currency column, the service fills a currency field with the deal's currency. */
  const dealCurrency = deals.status === 'ready' ? (deals.value.find((d) => d.id === placement.dealId)?.currency ?? '') : '';
  const options: MappedImport = useMemo(
    () => ({
      columns: serviceColumns(header, map, step ? keys : {}),
      separator: file.separator,
      ...(columnOf('place:amount') >= 0 ? { numbers } : {}),
      ...(columnOf('place:date') >= 0 ? { dates } : {}),
      ...(duplicates !== 'last' ? { duplicates } : {}),
      ...(step ? { dealId: placement.dealId, stepId: step.id } : {}),
    }),
    [header, map, numbers, dates, duplicates, step?.id, placement.dealId, JSON.stringify(keys), file.separator],
  );
  const problem = mapProblem(map);
  const readPast = header.filter((_h, i) => !map[i]);

  useEffect(() => rememberMap(header, map), [header, map]);

  // The service's dry run of the request the import will send, shortly after the choices stop changing.
  useEffect(() => {
    if (problem || (placement.dealId && !step)) {
      setCheck(undefined);
      return;
    }
    let stale = false;
    setCheck({ status: 'checking' });
    const timer = setTimeout(() => {
      checkCrmFile(text, options, (rows) => !stale && setCheck({ status: 'checking', rows })).then(
        (report) => !stale && setCheck({ status: 'ready', report }),
        (error) => !stale && setCheck({ status: 'error', message: describeError(error) }),
      );
    }, 300);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [text, options, problem, placement.dealId, step]);
  const planned = check?.status === 'ready' ? check.report : undefined;
  const checkedRows = useMemo(() => new Map(planned?.rows.map((r) => [r.row, r])), [planned]);
  const duplicateCount = planned?.summary.duplicates ?? 0;

  async function run() {
    setRunning(true);
    setHandled(undefined);
    try {
      setOutcome(await importCrmFile(text, options, setHandled));
    } catch (error) {
      setOutcome({ failed: describeError(error) });
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
        dealId={placement.dealId}
        stepLabel={step?.label}
        nameOfRow={(row) => nameOf(records[row - 1] ?? [])}
        onAnother={onAnother}
      />
    );
  }

  const fillSelect = (target: keyof StepKeys) =>
    columnOf(target) >= 0 && (
      <label className="field" key={target}>
        <span className="field-label">“{header[columnOf(target)]}” fills</span>
        <select
          name={`${target.slice('place:'.length)}Field`}
          value={keys[target] ?? ''}
          onChange={(e) => setPlacement({ ...placement, keys: { ...placement.keys, [target]: e.target.value } })}
        >
          <option value="">Nothing</option>
          {fields.map((f) => (
            <option key={f.key} value={f.key}>
              {f.label}
            </option>
          ))}
        </select>
      </label>
    );

  return (
    <div className="import-preview">
      <h2>Columns</h2>
      <p className="muted small">
        What each column of the file becomes. Guessed from the header names; your choice is remembered for files with the same columns.
      </p>
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
      <WrittenForms
        separator={file.separator}
        numbers={columnOf('place:amount') >= 0 ? numbers : undefined}
        dates={columnOf('place:date') >= 0 ? dates : undefined}
        onNumbers={setNumbers}
        onDates={setDates}
      />
      <fieldset className="sub">
        <legend>Place them in a step (optional)</legend>
        <div className="field-pair">
          <label className="field">
            <span className="field-label">Deal</span>
            <select name="placementDeal" value={placement.dealId} onChange={(e) => setPlacement({ dealId: e.target.value, stepId: '', keys: {} })}>
              <option value="">Directory only</option>
              <DealOptions deals={deals} />
            </select>
          </label>
          {placement.dealId && (
            <label className="field">
              <span className="field-label">Step</span>
              <select name="placementStep" value={step?.id ?? ''} onChange={(e) => setPlacement({ ...placement, stepId: e.target.value, keys: {} })}>
                <StepOptions steps={steps} />
              </select>
            </label>
          )}
        </div>
        {step && fields.length > 0 && <div className="field-pair">{(['place:amount', 'place:currency', 'place:date'] as const).map(fillSelect)}</div>}
        {step && columnOf('place:currency') < 0 && dealCurrency && fields.some((f) => f.kind === 'currency') && (
          <p className="muted small">Currency: the deal's, {dealCurrency}.</p>
        )}
        {step && <p className="muted small">Each row is created and placed together, or not at all.</p>}
      </fieldset>
      {(duplicateCount > 0 || duplicates !== 'last') && <DuplicatesChoice value={duplicates} onChange={setDuplicates} />}
      <h2>Preview</h2>
      <p className="muted" data-testid="import-check" aria-live="polite">
        {check?.status === 'checking' && `The service is checking the rows…${check.rows === undefined ? '' : ` ${n(check.rows)} of ${n(records.length)}`}`}
        {planned &&
          `The service's check (nothing written yet): ${plural(records.length, 'row')}, ${countsOf(planned, step?.label, true)}${duplicateCount > 0 ? `; ${plural(duplicateCount, 'row')} share an e-mail with another row` : ''}.`}
      </p>
      {check?.status === 'error' && <FormStatus error={`The service could not check the rows: ${check.message}`} />}
      <TableRegion
        label="Rows of the file"
        className="import-table"
        head={
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Name</th>
            <th scope="col">E-mail</th>
            {columnOf('place:amount') >= 0 && <th scope="col">Amount</th>}
            <th scope="col">Check</th>
          </tr>
        }
      >
        {records.slice(0, 200).map((record, i) => {
          const checked = checkedRows.get(i + 1);
          const refused = checked?.outcome === 'refused';
          const group = checked?.duplicateRows ?? [];
          const others = group.filter((r) => r !== i + 1).map((r) => r + 1);
          const shared = others.length > 0 ? ` (e-mail also on line ${others.join(', ')})` : '';
          // The row of its e-mail that counts (the service's rule for the policy chosen).
          const counted = duplicates === 'last' ? group.at(-1) : group[0];
          const superseded = checked?.outcome === 'unchanged' && counted !== undefined && counted !== i + 1;
          return (
            <tr key={i} className={refused ? 'row-invalid' : undefined}>
              <td data-label="Line">{i + 2}</td>
              <td data-label="Name">{nameOf(record)}</td>
              <td data-label="E-mail">{cellOf(record, 'contact.email')}</td>
              {columnOf('place:amount') >= 0 && <td data-label="Amount">{cellOf(record, 'place:amount')}</td>}
              <td data-label="Check">
                {refused ? (
                  <span className="field-error">
                    {refusalOf(checked)}
                    {shared}
                  </span>
                ) : superseded ? (
                  duplicates === 'sum' ? (
                    `added to line ${counted + 1}`
                  ) : (
                    `not imported: line ${counted + 1} counts`
                  )
                ) : checked ? (
                  `${outcomeWords[checked.outcome]}${checked.placement === 'placed' ? ', placed' : ''}${shared}`
                ) : planned?.fromJob ? (
                  'not refused'
                ) : (
                  '…'
                )}
              </td>
            </tr>
          );
        })}
      </TableRegion>
      {records.length > 200 && <p className="muted small">The first 200 rows are shown; every row is imported.</p>}
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
