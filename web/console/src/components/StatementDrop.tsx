// A bank statement into the reconciliation: a camt.053/054 (XML) or CSV file dropped or chosen, a
// CSV's columns matched to the service's column map (guessed from its header, editable), then
// POST /payments/statements and its outcome: lines matched, queued by reason, duplicates.
import { useState, type DragEvent } from 'react';
import { parse } from 'csv-parse/browser/esm/sync';
import { consoleApi, describeError, type Query } from '../lib/api.ts';
import { plural } from '../lib/format.ts';
import { FormStatus } from './ui.tsx';

type CsvMap = Query<'importStatement'>;
type ColumnParam = 'dateColumn' | 'amountColumn' | 'currencyColumn' | 'referenceColumn' | 'counterpartyColumn' | 'bankReferenceColumn';

const COLUMNS: { param: ColumnParam; label: string; guess: RegExp; required: boolean }[] = [
  { param: 'dateColumn', label: 'Booking date', guess: /^(booking_?)?date$|^booked/, required: true },
  { param: 'amountColumn', label: 'Amount', guess: /amount|betrag|sum/, required: true },
  { param: 'currencyColumn', label: 'Currency', guess: /^(currency|ccy|curr)$/, required: true },
  { param: 'referenceColumn', label: 'Reference', guess: /reference|remittance|purpose|description|memo/, required: true },
  { param: 'counterpartyColumn', label: 'Payer', guess: /payer|counterparty|debtor|name|from/, required: false },
  { param: 'bankReferenceColumn', label: 'Bank reference', guess: /bank_?ref|transaction_?id|entry_?ref/, required: false },
];

export interface StatementOutcome {
  fileName: string;
  duplicate: boolean;
  lines: number;
  newLines: number;
  outcomes: Record<string, number>;
  statuses: Record<string, number>;
}

const normal = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s.-]+/g, '_');

function guessMap(header: string[]): Partial<Record<ColumnParam, string>> {
  const used = new Set<string>();
  const map: Partial<Record<ColumnParam, string>> = {};
  for (const c of COLUMNS) {
    const found = header.find((h) => !used.has(h) && c.guess.test(normal(h)));
    if (found) {
      map[c.param] = found;
      used.add(found);
    }
  }
  return map;
}

export function StatementDrop({ onImported }: { onImported: (outcome: StatementOutcome) => void }) {
  const [file, setFile] = useState<{ name: string; text: string; csv?: { header: string[]; delimiter: 'comma' | 'semicolon' | 'tab' } }>();
  const [map, setMap] = useState<Partial<Record<ColumnParam, string>>>({});
  const [decimal, setDecimal] = useState<'point' | 'comma'>('point');
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const [over, setOver] = useState(false);

  async function take(chosen: File | undefined) {
    setError(undefined);
    if (!chosen) return setFile(undefined);
    const text = await chosen.text();
    if (/^\s*(<\?xml|<)/.test(text)) return setFile({ name: chosen.name, text });
    const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
    const delimiter = firstLine.includes('\t') ? 'tab' : firstLine.split(';').length > firstLine.split(',').length ? 'semicolon' : 'comma';
    try {
      const rows = parse(text, { bom: true, to_line: 1, delimiter: { comma: ',', semicolon: ';', tab: '\t' }[delimiter] }) as string[][];
      const header = (rows[0] ?? []).map((h) => h.trim());
      setFile({ name: chosen.name, text, csv: { header, delimiter } });
      setMap(guessMap(header));
      setDecimal(delimiter === 'semicolon' ? 'comma' : 'point');
    } catch (e) {
      setError(`The file is neither camt XML nor a CSV this page can read: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  const missing = file?.csv ? COLUMNS.filter((c) => c.required && !map[c.param]).map((c) => c.label) : [];

  async function send() {
    if (!file) return;
    setBusy('Importing the statement…');
    setError(undefined);
    try {
      const params: CsvMap = file.csv ? { ...map, delimiter: file.csv.delimiter, decimalSeparator: decimal } : {};
      const result = await consoleApi.importStatement(file.text, file.csv ? 'text/csv' : 'application/xml', params, (job) =>
        setBusy(`Importing the statement: ${job.progress.done}${job.progress.total ? ` of ${job.progress.total}` : ''} lines`),
      );
      onImported({
        fileName: file.name,
        duplicate: result.duplicate,
        lines: result.statement.lineCount,
        newLines: result.statement.newLineCount,
        outcomes: result.outcomes,
        statuses: result.statuses,
      });
      setFile(undefined);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(undefined);
    }
  }

  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    void take(e.dataTransfer.files[0]);
  };

  return (
    <div className="form-card statement-drop" data-testid="statement-drop">
      <h2>Import a bank statement</h2>
      <label
        className={`field drop-zone${over ? ' drop-over' : ''}`}
        onDragOver={(e) => (e.preventDefault(), setOver(true))}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <span className="field-label">camt.053, camt.054 or CSV file (drop it here or choose it)</span>
        <input type="file" name="statement" accept=".xml,.csv,.txt,application/xml,text/xml,text/csv" onChange={(e) => void take(e.target.files?.[0])} />
      </label>
      {file?.csv && (
        <fieldset className="sub">
          <legend>Columns of {file.name}</legend>
          <div className="field-pair statement-columns">
            {COLUMNS.map((c) => (
              <label className="field" key={c.param}>
                <span className="field-label">
                  {c.label}
                  {c.required ? '' : ' (optional)'}
                </span>
                <select name={c.param} value={map[c.param] ?? ''} onChange={(e) => setMap({ ...map, [c.param]: e.target.value || undefined })}>
                  <option value="">{c.required ? 'Choose a column' : 'None'}</option>
                  {file.csv!.header.map((h) => (
                    <option key={h} value={h}>
                      {h}
                    </option>
                  ))}
                </select>
              </label>
            ))}
            <label className="field">
              <span className="field-label">Decimal separator</span>
              <select name="decimalSeparator" value={decimal} onChange={(e) => setDecimal(e.target.value as 'point' | 'comma')}>
                <option value="point">Point (9000.00)</option>
                <option value="comma">Comma (9.000,00)</option>
              </select>
            </label>
          </div>
          {missing.length > 0 && <p className="muted small">Still to choose: {missing.join(', ')}.</p>}
        </fieldset>
      )}
      {file && !file.csv && <p className="muted small">{file.name}: an ISO 20022 statement, read as it is.</p>}
      <FormStatus error={error} />
      {file && (
        <div className="row-actions">
          <button type="button" className="button button-primary" disabled={busy !== undefined || missing.length > 0} onClick={send}>
            Import {file.name}
          </button>
        </div>
      )}
      {busy && (
        <div className="progress" role="status">
          <progress aria-label="Importing the statement" /> {busy}
        </div>
      )}
    </div>
  );
}

/** What the last statement did: lines matched, queued by reason, duplicates. */
export function StatementSummary({ outcome }: { outcome: StatementOutcome }) {
  const queued = outcome.statuses.queued ?? 0;
  const reasons = Object.entries(outcome.outcomes).filter(([o, n]) => o !== 'matched' && n > 0);
  return (
    <div className="import-summary" data-testid="statement-summary" role="status">
      <h2>{outcome.fileName}</h2>
      {outcome.duplicate ? (
        <p>This file was imported before: nothing changed.</p>
      ) : (
        <p>
          {plural(outcome.lines, 'line')}, {outcome.newLines} new
          {outcome.lines > outcome.newLines ? ` (${outcome.lines - outcome.newLines} already known from an earlier statement)` : ''}:{' '}
          {outcome.outcomes.matched ?? 0} matched, {queued} queued for a decision
          {(outcome.statuses.ignored ?? 0) > 0 ? `, ${outcome.statuses.ignored} not matched` : ''}.
        </p>
      )}
      {reasons.length > 0 && (
        <ul className="results">
          {reasons.map(([reason, n]) => (
            <li key={reason}>
              {reason.replace(/-/g, ' ')}: {n}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
