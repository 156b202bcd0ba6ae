// Import investors from a CSV: parsed in the browser (csv-parse) from the columns staff keep (id,
// forename, surname, email, kyc_level, classifications separated by ";", status), then handed to
// the service's import API (POST /investors/import, NDJSON): a dry run (?dryRun=true) gives the
// preview's per-row outcome and errors, the import itself the per-row report and its summary. An
// investor already in the directory keeps the members the file does not carry: those rows are built
// on the stored entry (read for them alone) before the dry run that the preview shows.
import { parse } from 'csv-parse/browser/esm/sync';
import { useEffect, useState } from 'react';
import { ApiError, api, consoleApi, describeError, type ImportReport, type InvestorRecord } from './api.ts';
import { moveMany } from './bulk.ts';
import { useHashQuery, useLoad } from './hooks.ts';
import { plural } from './format.ts';
import { investorProblems, toRecord, type InvestorInput } from './investorRecord.ts';
import { FormStatus } from './ui.tsx';

interface Row {
  line: number;
  input: InvestorInput;
  problems: string[];
}

type RecordWithId = InvestorRecord & { id: string };
type ReportRow = ImportReport['rows'][number];

/** The service's check of the rows that can be sent: the bodies to import and its dry-run report. */
type Check = { status: 'checking' } | { status: 'error'; message: string } | { status: 'ready'; records: RecordWithId[]; report: ImportReport };

const rowErrors = (r: ReportRow | undefined) => (r?.errors ?? []).map((e) => `${e.field}: ${e.detail}`).join('; ') || r?.problem?.detail || 'refused';

/** Runs `work` over the items, `width` at a time. */
async function inParallel<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

/**
 * The bodies for the valid rows and the service's dry run of them. A first dry run tells which ids
 * are in the directory already; those rows are rebuilt on the stored entry (so what the file does
 * not carry is kept) and checked again.
 */
async function checkRows(rows: Row[]): Promise<{ records: RecordWithId[]; report: ImportReport }> {
  let records = rows.map((r) => ({ id: r.input.id, ...toRecord(r.input) }));
  let report = await consoleApi.importInvestors(records, true);
  const existing = report.rows.filter((r) => r.outcome === 'updated' || r.outcome === 'unchanged').map((r) => r.row - 1);
  if (existing.length > 0) {
    const stored = await inParallel(existing, 4, (i) => consoleApi.getInvestor(rows[i]!.input.id).catch((e) => (e instanceof ApiError && e.status === 404 ? undefined : Promise.reject(e))));
    records = [...records];
    existing.forEach((i, k) => {
      if (stored[k]) records[i] = { id: rows[i]!.input.id, ...toRecord(rows[i]!.input, stored[k]) };
    });
    report = await consoleApi.importInvestors(records, true);
  }
  return { records, report };
}

const HEADERS: Record<string, keyof InvestorInput> = {
  id: 'id',
  investor_id: 'id',
  investor_user_id: 'id',
  investoruserid: 'id',
  forename: 'forename',
  first_name: 'forename',
  surname: 'surname',
  last_name: 'surname',
  email: 'email',
  kyc: 'kycCheckLevel',
  kyc_level: 'kycCheckLevel',
  kyc_check_level: 'kycCheckLevel',
  kycchecklevel: 'kycCheckLevel',
  classifications: 'classifications',
  classes: 'classifications',
  status: 'status',
};

const outcomeWords: Record<ReportRow['outcome'], string> = { created: 'new', updated: 'update', unchanged: 'no change', refused: 'refused' };

export const SAMPLE = 'id,forename,surname,email,kyc_level,classifications\ninv-0001,Ada,Lovelace,ada@example.com,2,Professional\ninv-0002,Grace,Hopper,grace@example.com,1,Retail;Sophisticated\n';

export function parseInvestorCsv(text: string): { rows: Row[]; error?: string } {
  let records: Record<string, string>[];
  try {
    records = parse(text, { columns: (header: string[]) => header.map((h) => h.trim().toLowerCase().replace(/[\s-]+/g, '_')), skip_empty_lines: true, trim: true, bom: true, relax_column_count: true });
  } catch (error) {
    return { rows: [], error: `The file is not a CSV this page can read: ${error instanceof Error ? error.message : String(error)}` };
  }
  const seen = new Map<string, number>();
  const rows = records.map((record, index) => {
    const input: InvestorInput = { id: '', forename: '', surname: '', email: '', kycCheckLevel: '', classifications: '', status: 'active' };
    for (const [header, value] of Object.entries(record)) {
      const key = HEADERS[header] ?? HEADERS[header.replace(/_/g, '')];
      if (key && value !== undefined) input[key] = String(value);
    }
    input.status ||= 'active';
    const line = index + 2;
    const problems = Object.entries(investorProblems(input)).map(([key, text]) => `${key}: needs ${text}`);
    const earlier = seen.get(input.id);
    if (input.id && earlier !== undefined) problems.push(`id ${input.id} is already on line ${earlier}`);
    if (input.id) seen.set(input.id, line);
    return { line, input, problems };
  });
  if (rows.length === 0) return { rows, error: 'The file has no rows under its header line.' };
  return { rows };
}

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

  const load = (content: string) => {
    setText(content);
    setOutcome(undefined);
    setPlaced(undefined);
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
        ? check.records.slice(0, report.summary.rows).filter((_r, i) => !refusedIds.has(i + 1)).map((r) => r.id)
        : report.rows.filter((r) => r.outcome !== 'refused' && r.id).map((r) => r.id!);
      setPlacing(ids.length);
      const moves = await moveMany(placement.dealId, ids.map((id) => ({ investorUserId: id, targetStepId: stepId, data: {} })), setProgress);
      setPlaced({ moved: moves.filter((m) => m.ok).length, refused: moves.filter((m) => !m.ok).map((m) => ({ id: m.investorUserId, message: m.ok ? '' : m.message })) });
    }
    setProgress(undefined);
  }

  const report = outcome && 'rows' in outcome ? outcome : undefined;
  const refusedRows = report?.rows.filter((r) => r.outcome === 'refused') ?? [];

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
          One investor per line, with a header line naming the columns <code>id</code>, <code>forename</code>, <code>surname</code>, <code>email</code>, <code>kyc_level</code>,{' '}
          <code>classifications</code> (separated by <code>;</code>) and optionally <code>status</code>. An id already in the directory is updated; members the file does not
          carry are kept.
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
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Rows of the file">
            <table className="table import-table">
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Id</th>
                  <th scope="col">Name</th>
                  <th scope="col">E-mail</th>
                  <th scope="col">KYC</th>
                  <th scope="col">Classes</th>
                  <th scope="col">Check</th>
                </tr>
              </thead>
              <tbody>
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
              </tbody>
            </table>
          </div>
          {parsed.rows.length > 200 && <p className="muted small">The first 200 rows are shown; every row is imported.</p>}
          <fieldset className="sub">
            <legend>Place them in a deal (optional)</legend>
            <div className="field-pair">
              <label className="field">
                <span className="field-label">Deal</span>
                <select name="placementDeal" value={placement.dealId} onChange={(e) => setPlacement({ dealId: e.target.value, stepId: '' })}>
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
                  <span className="field-label">First step</span>
                  <select name="placementStep" value={placement.stepId || entrySteps[0]?.id || ''} onChange={(e) => setPlacement({ ...placement, stepId: e.target.value })}>
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
        <FormStatus error={`The import failed: ${outcome.failed} Check the directory before importing again (rows the service had already handled stay as they were written).`} />
      )}
      {report && (
        <div className="import-summary" data-testid="import-summary">
          <h2>Imported</h2>
          <p role="status">
            {report.summary.created} created, {report.summary.updated} updated, {report.summary.unchanged} unchanged, {report.summary.refused + invalid.length} refused.
          </p>
          {report.error && <FormStatus error={`The import stopped after row ${report.summary.rows}: ${report.error.detail}`} />}
          {placed && (
            <p role="status">
              {placed.moved} placed in the deal{placed.refused.length > 0 ? `, ${placed.refused.length} not placed` : ''}.
            </p>
          )}
          {placed?.refused.length ? (
            <ul className="results">
              {placed.refused.map((r) => (
                <li key={r.id} className="result-refused">
                  {r.id}: {r.message}
                </li>
              ))}
            </ul>
          ) : null}
          {(refusedRows.length > 0 || invalid.length > 0) && (
            <ul className="results">
              {invalid.map((r) => (
                <li key={`i${r.line}`} className="result-refused">
                  Line {r.line}: {r.problems.join('; ')}
                </li>
              ))}
              {refusedRows.map((r) => (
                <li key={r.row} className="result-refused">
                  Line {valid[r.row - 1]?.line ?? '?'} ({r.id ?? 'no id'}): {rowErrors(r)}
                </li>
              ))}
            </ul>
          )}
          <div className="row-actions">
            {placement.dealId ? (
              <a className="button button-primary" href={`#/deals/${encodeURIComponent(placement.dealId)}`}>
                Open the deal's board
              </a>
            ) : (
              <a className="button button-primary" href="#/investors">
                Open the directory
              </a>
            )}
            <button type="button" className="button" onClick={() => load('')}>
              Import another file
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
