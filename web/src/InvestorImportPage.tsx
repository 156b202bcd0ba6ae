// Import investors from a CSV: parsed in the browser (csv-parse), previewed with each row's
// problems, then written one PUT /investors/{id} per row (create or update: an upsert), with a
// summary of what was created, updated and refused. Columns: id, forename, surname, email,
// kyc_level, classifications (separated by ";"), status.
import { parse } from 'csv-parse/browser/esm/sync';
import { useState } from 'react';
import { ApiError, api, consoleApi, describeError } from './api.ts';
import { moveMany } from './bulk.ts';
import { useHashQuery, useLoad } from './hooks.ts';
import { plural } from './format.ts';
import { investorProblems, toRecord, type InvestorInput } from './investorRecord.ts';

interface Row {
  line: number;
  input: InvestorInput;
  problems: string[];
}

type Outcome = { line: number; id: string; result: 'created' | 'updated' } | { line: number; id: string; result: 'refused'; reason: string };

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
  const [outcomes, setOutcomes] = useState<Outcome[]>();
  const [query] = useHashQuery();
  const [placement, setPlacement] = useState({ dealId: query.get('deal') ?? '', stepId: '' });
  const [placed, setPlaced] = useState<{ moved: number; refused: { id: string; message: string }[] }>();
  const [deals] = useLoad(() => api.deals(), []);
  const [workflow] = useLoad(() => (placement.dealId ? api.workflow(placement.dealId).catch(() => undefined) : Promise.resolve(undefined)), [placement.dealId]);
  // Entry steps (no incoming link) are where a first move may land.
  const entrySteps = workflow.status === 'ready' && workflow.value ? workflow.value.steps.filter((s) => s.previousStepLinks.length === 0) : [];

  const load = (content: string) => {
    setText(content);
    setOutcomes(undefined);
    setPlaced(undefined);
    setParsed(content.trim() ? parseInvestorCsv(content) : undefined);
  };
  const valid = parsed?.rows.filter((r) => r.problems.length === 0) ?? [];
  const invalid = parsed?.rows.filter((r) => r.problems.length > 0) ?? [];

  async function run() {
    const results: Outcome[] = [];
    setProgress(0);
    for (const row of valid) {
      try {
        const existing = await consoleApi.getInvestor(row.input.id).catch((e) => (e instanceof ApiError && e.status === 404 ? undefined : Promise.reject(e)));
        await consoleApi.putInvestor(row.input.id, toRecord(row.input, existing));
        results.push({ line: row.line, id: row.input.id, result: existing ? 'updated' : 'created' });
      } catch (error) {
        results.push({ line: row.line, id: row.input.id, result: 'refused', reason: describeError(error) });
      }
      setProgress(results.length);
    }
    setOutcomes(results);
    const stepId = placement.stepId || entrySteps[0]?.id;
    if (placement.dealId && stepId) {
      // Place every imported investor on the deal's entry step, each on their own (one refusal
      // leaves the others placed).
      const ids = results.filter((r) => r.result !== 'refused').map((r) => r.id);
      setProgress(0);
      const moves = await moveMany(placement.dealId, ids.map((id) => ({ investorUserId: id, targetStepId: stepId, data: {} })), setProgress);
      setPlaced({ moved: moves.filter((m) => m.ok).length, refused: moves.filter((m) => !m.ok).map((m) => ({ id: m.investorUserId, message: m.ok ? '' : m.message })) });
    }
    setProgress(undefined);
  }

  const count = (result: Outcome['result']) => outcomes?.filter((o) => o.result === result).length ?? 0;

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
      {parsed?.error && (
        <p className="alert alert-error" role="alert">
          {parsed.error}
        </p>
      )}
      {parsed && !parsed.error && !outcomes && (
        <div className="import-preview">
          <h2>Preview</h2>
          <p role="status">
            {plural(parsed.rows.length, 'row')}: {valid.length} ready to import{invalid.length > 0 ? `, ${invalid.length} with problems (left out)` : ''}.
          </p>
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
                  <th scope="col">Problems</th>
                </tr>
              </thead>
              <tbody>
                {parsed.rows.slice(0, 200).map((r) => (
                  <tr key={r.line} className={r.problems.length ? 'row-invalid' : undefined}>
                    <td data-label="Line">{r.line}</td>
                    <td data-label="Id">{r.input.id}</td>
                    <td data-label="Name">
                      {r.input.forename} {r.input.surname}
                    </td>
                    <td data-label="E-mail">{r.input.email}</td>
                    <td data-label="KYC">{r.input.kycCheckLevel}</td>
                    <td data-label="Classes">{r.input.classifications}</td>
                    <td data-label="Problems">{r.problems.length ? <span className="field-error">{r.problems.join('; ')}</span> : 'ok'}</td>
                  </tr>
                ))}
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
          {progress !== undefined && (
            <div className="progress" role="status">
              <progress max={valid.length} value={progress} aria-label="Rows imported" /> {progress} of {valid.length}
            </div>
          )}
          <div className="row-actions">
            <button type="button" className="button button-primary" disabled={valid.length === 0 || progress !== undefined} onClick={run}>
              Import {plural(valid.length, 'investor')}
            </button>
          </div>
        </div>
      )}
      {outcomes && (
        <div className="import-summary" data-testid="import-summary">
          <h2>Imported</h2>
          <p role="status">
            {count('created')} created, {count('updated')} updated, {count('refused') + invalid.length} refused.
          </p>
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
          {(count('refused') > 0 || invalid.length > 0) && (
            <ul className="results">
              {invalid.map((r) => (
                <li key={`i${r.line}`} className="result-refused">
                  Line {r.line}: {r.problems.join('; ')}
                </li>
              ))}
              {outcomes
                .filter((o): o is Extract<Outcome, { result: 'refused' }> => o.result === 'refused')
                .map((o) => (
                  <li key={o.line} className="result-refused">
                    Line {o.line} ({o.id}): {o.reason}
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
