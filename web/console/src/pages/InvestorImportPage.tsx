// Import investors from a CSV: parsed in the browser (csv-parse) from the columns staff keep (id,
// forename, surname, email, kyc_level, classifications separated by ";", status), then handed to
// the service's import API (POST /investors/import, NDJSON): a dry run (?dryRun=true) gives the
// preview's per-row outcome and errors, the import itself the per-row report and its summary. An
// investor already in the directory keeps the members the file does not carry: those rows are built
// on the stored entry (read for them alone) before the dry run that the preview shows.
import { TableRegion } from '../components/PagedTable.tsx';
import { DealOptions } from '../components/SelectOptions.tsx';
import { useEffect, useState } from 'react';
import { api, consoleApi, describeError, type ImportReport } from '../lib/api.ts';
import { moveMany } from '../lib/bulk.ts';
import { useHashQuery, useLoad } from '../../../kit/hooks.ts';
import { plural } from '../lib/format.ts';
import { ImportSummary } from '../components/ImportSummary.tsx';
import { FormStatus } from '../components/ui.tsx';
import { outcomeWords, SAMPLE, parseInvestorCsv, type Row } from '../lib/investor-csv.ts';
import { checkRows, rowErrors, type Check } from '../lib/investor-import.ts';
import { readCrmFile, type CrmFile } from '../lib/crm-map.ts';
import { CrmImport } from '../components/CrmImport.tsx';
import './InvestorImportPage.css';

/** The console's own columns (an id column, every other column one it knows). */
const CONSOLE_COLUMNS =
  /^(id|investor_?id|investor_?user_?id|forename|first_?name|surname|last_?name|email|kyc|kyc_?level|kyc_?check_?level|classifications|classes|status)$/;
const isConsoleFormat = (header: string[]) => {
  const names = header.map((h) =>
    h
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_'),
  );
  return names.some((n) => /^(id|investor_?id|investor_?user_?id)$/.test(n)) && names.every((n) => CONSOLE_COLUMNS.test(n));
};

export function InvestorImportPage() {
  const [text, setText] = useState('');
  const [parsed, setParsed] = useState<{ rows: Row[]; error?: string }>();
  const [progress, setProgress] = useState<number>();
  /** Rows the service has handled so far, while a big file runs as an import job. */
  const [handled, setHandled] = useState<number>();
  /** Investors being placed in the deal. */
  const [placing, setPlacing] = useState(0);
  const [check, setCheck] = useState<Check>();
  const [outcome, setOutcome] = useState<ImportReport | { failed: string }>();
  const [query] = useHashQuery();
  const [placement, setPlacement] = useState({ dealId: query.get('deal') ?? '', stepId: '' });
  const [placed, setPlaced] = useState<{ moved: number; refused: { id: string; message: string }[] }>();
  const [deals] = useLoad(() => api.deals(), []);
  const [workflow] = useLoad(() => (placement.dealId ? api.workflow(placement.dealId).catch(() => undefined) : Promise.resolve(undefined)), [placement.dealId]);
  // Entry steps (no incoming link) are where a first move may land.
  const entrySteps = workflow.status === 'ready' && workflow.value ? workflow.value.steps.filter((s) => s.previousStepLinks.length === 0) : [];

  /** A file of another shape than the console's own columns: read through a column map. */
  const [crm, setCrm] = useState<CrmFile>();
  const load = (content: string) => {
    setText(content);
    setOutcome(undefined);
    setPlaced(undefined);
    const file = content.trim() ? readCrmFile(content) : undefined;
    if (file && 'header' in file && !isConsoleFormat(file.header)) {
      setCrm(file);
      setParsed(undefined);
      return;
    }
    setCrm(undefined);
    setParsed(content.trim() ? parseInvestorCsv(content) : undefined);
  };
  const valid = parsed?.rows.filter((r) => r.problems.length === 0) ?? [];
  const invalid = parsed?.rows.filter((r) => r.problems.length > 0) ?? [];
  const validKey = JSON.stringify(valid.map((r) => r.input));

  // The service's dry run of the rows, shortly after the text stops changing.
  useEffect(() => {
    if (valid.length === 0) {
      setCheck(undefined);
      return;
    }
    let stale = false;
    setCheck({ status: 'checking' });
    const timer = setTimeout(() => {
      checkRows(valid).then(
        (checked) => !stale && setCheck({ status: 'ready', ...checked }),
        (error) => !stale && setCheck({ status: 'error', message: describeError(error) }),
      );
    }, 300);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [validKey]);
  const planned = check?.status === 'ready' ? check.report : undefined;
  /** The dry run's row for a valid row of the file (the report counts the rows sent, from 1). */
  const plannedRow = (row: Row) => planned?.rows[valid.indexOf(row)];

  async function run() {
    if (check?.status !== 'ready') return;
    setProgress(0);
    setHandled(undefined);
    let report: ImportReport & { fromJob?: boolean };
    try {
      report = await consoleApi.importInvestors(check.records, false, setHandled);
    } catch (error) {
      setOutcome({ failed: describeError(error) });
      setProgress(undefined);
      return;
    }
    setOutcome(report);
    const stepId = placement.stepId || entrySteps[0]?.id;
    if (placement.dealId && stepId) {
      // Place every imported investor on the deal's entry step, each on their own (one refusal
      // leaves the others placed).
      // An import job's report lists only the refused rows: the others are the file's rows it handled.
      const refusedIds = new Set(report.rows.filter((r) => r.outcome === 'refused').map((r) => r.row));
      const ids = report.fromJob
        ? check.records
            .slice(0, report.summary.rows)
            .filter((_r, i) => !refusedIds.has(i + 1))
            .map((r) => r.id)
        : report.rows.filter((r) => r.outcome !== 'refused' && r.id).map((r) => r.id!);
      setPlacing(ids.length);
      const moves = await moveMany(
        placement.dealId,
        ids.map((id) => ({ investorUserId: id, targetStepId: stepId, data: {} })),
        setProgress,
      );
      setPlaced({
        moved: moves.filter((m) => m.ok).length,
        refused: moves.filter((m) => !m.ok).map((m) => ({ id: m.investorUserId, message: m.ok ? '' : m.message })),
      });
    }
    setProgress(undefined);
  }

  const report = outcome && 'rows' in outcome ? outcome : undefined;

  return (
    <section aria-labelledby="import-title">
      <div className="page-head">
        <div>
          <nav className="crumbs" aria-label="Breadcrumb">
            <a href="#/investors">Investors</a> <span aria-hidden="true">/</span>
          </nav>
          <h1 id="import-title">Import investors from a CSV</h1>
        </div>
      </div>
      <div className="form-card">
        <p className="muted small">
          A CRM export of any shape, its columns separated by commas, semicolons or tabs: its columns are matched to the directory's in the next step (a full
          name is split, ids come from the e-mail or the CRM id, rows of one e-mail are one investor, and you choose which row counts). Or the console's own
          columns: one investor per line, with a header line naming the columns <code>id</code>, <code>forename</code>, <code>surname</code>, <code>email</code>
          , <code>kyc_level</code>, <code>classifications</code> (separated by <code>;</code>) and optionally <code>status</code>. An id already in the
          directory is updated; members the file does not carry are kept.
        </p>
        <label className="field">
          <span className="field-label">CSV file</span>
          <input type="file" accept=".csv,text/csv" onChange={async (e) => load((await e.target.files?.[0]?.text()) ?? '')} />
        </label>
        <label className="field">
          <span className="field-label">Or paste the CSV</span>
          <textarea name="csv" rows={6} value={text} placeholder={SAMPLE} onChange={(e) => load(e.target.value)} spellCheck={false} />
        </label>
      </div>
      {crm && <CrmImport key={text} file={crm} text={text} initialDeal={placement.dealId} onAnother={() => load('')} />}
      <FormStatus error={parsed?.error} />
      {parsed && !parsed.error && !outcome && (
        <div className="import-preview">
          <h2>Preview</h2>
          <p role="status">
            {plural(parsed.rows.length, 'row')}: {valid.length} ready to import{invalid.length > 0 ? `, ${invalid.length} with problems (left out)` : ''}.
          </p>
          <p className="muted" data-testid="import-check" aria-live="polite">
            {check?.status === 'checking' && 'The service is checking the rows…'}
            {planned &&
              `The service's check (nothing written yet): ${planned.summary.created} new, ${planned.summary.updated} to update, ${planned.summary.unchanged} unchanged, ${planned.summary.refused} refused.`}
          </p>
          {check?.status === 'error' && <FormStatus error={`The service could not check the rows: ${check.message}`} />}
          <TableRegion
            label="Rows of the file"
            className="import-table"
            head={
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Id</th>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">KYC</th>
                <th scope="col">Classes</th>
                <th scope="col">Check</th>
              </tr>
            }
          >
            {parsed.rows.slice(0, 200).map((r) => {
              const checked = r.problems.length === 0 ? plannedRow(r) : undefined;
              const problems = r.problems.length ? r.problems.join('; ') : checked?.outcome === 'refused' ? rowErrors(checked) : undefined;
              return (
                <tr key={r.line} className={problems ? 'row-invalid' : undefined}>
                  <td data-label="Line">{r.line}</td>
                  <td data-label="Id">{r.input.id}</td>
                  <td data-label="Name">
                    {r.input.forename} {r.input.surname}
                  </td>
                  <td data-label="E-mail">{r.input.email}</td>
                  <td data-label="KYC">{r.input.kycCheckLevel}</td>
                  <td data-label="Classes">{r.input.classifications}</td>
                  <td data-label="Check">{problems ? <span className="field-error">{problems}</span> : checked ? outcomeWords[checked.outcome] : '…'}</td>
                </tr>
              );
            })}
          </TableRegion>
          {parsed.rows.length > 200 && <p className="muted small">The first 200 rows are shown; every row is imported.</p>}
          <fieldset className="sub">
            <legend>Place them in a deal (optional)</legend>
            <div className="field-pair">
              <label className="field">
                <span className="field-label">Deal</span>
                <select name="placementDeal" value={placement.dealId} onChange={(e) => setPlacement({ dealId: e.target.value, stepId: '' })}>
                  <option value="">Directory only</option>
                  <DealOptions deals={deals} />
                </select>
              </label>
              {placement.dealId && (
                <label className="field">
                  <span className="field-label">First step</span>
                  <select
                    name="placementStep"
                    value={placement.stepId || entrySteps[0]?.id || ''}
                    onChange={(e) => setPlacement({ ...placement, stepId: e.target.value })}
                  >
                    {entrySteps.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.label}
                      </option>
                    ))}
                  </select>
                </label>
              )}
            </div>
          </fieldset>
          <div className="row-actions">
            <button type="button" className="button button-primary" disabled={check?.status !== 'ready' || progress !== undefined} onClick={run}>
              Import {plural(valid.length, 'investor')}
            </button>
          </div>
        </div>
      )}
      {progress !== undefined && (
        <div className="progress" role="status">
          {report ? (
            <>
              <progress max={placing} value={progress} aria-label="Investors placed in the deal" /> Placing in the deal: {progress} of {placing}
            </>
          ) : (
            <>
              {handled === undefined ? <progress aria-label="Importing" /> : <progress max={valid.length} value={handled} aria-label="Importing" />} Importing{' '}
              {plural(valid.length, 'investor')}
              {handled === undefined ? '…' : `: ${handled} handled`}
            </>
          )}
        </div>
      )}
      {outcome && 'failed' in outcome && (
        <FormStatus
          error={`The import failed: ${outcome.failed} Check the directory before importing again (rows the service had already handled stay as they were written).`}
        />
      )}
      {report && <ImportSummary report={report} invalid={invalid} valid={valid} placed={placed} dealId={placement.dealId} onAnother={() => load('')} />}
    </section>
  );
}
