// A CRM file of any size: the service's check with every row's id, and the move file that places
// the investors its import kept in a step, with the reasons for the rows it does not place.
//
// The placement needs each kept row's id, and an import job's report names only the rows it
// refused (at most 1,000). The ids are the service's and are stable (derived from the e-mail or the
// CRM id, docs/reference/imports.md), so they come from the check, the service's dry run: a file
// over ASYNC_IMPORT_BYTES is checked in pieces of at most that size, which the service answers at
// once with every row (a piece is the header and some rows, written back as the page read them).
// The pieces' reports are joined in row order, and rows of one e-mail in different pieces take the
// id of the first, as the service does within one file. The import itself sends the file whole.
import { stringify } from 'csv-stringify/browser/esm/sync';
import { ASYNC_IMPORT_BYTES, consoleApi, type ImportReport } from './api.ts';
import type { CrmFile } from './crm-map.ts';
import { toCsv } from './csv.ts';
import type { ReportRow } from './investor-csv.ts';
import { rowErrors } from './investor-import.ts';

/** A report as the console's import calls return it: `fromJob` when it names only the refused rows. */
export type Report = ImportReport & { fromJob?: boolean };

type Summary = ImportReport['summary'];
const counts = ['rows', 'created', 'updated', 'unchanged', 'refused'] as const;

/** The service's dry run of the file through the map, every row with its id (onProgress: rows checked). */
export async function checkCrmFile(file: CrmFile, text: string, columns: Record<string, string | null>, onProgress?: (rows: number) => void): Promise<Report> {
  if (text.length <= ASYNC_IMPORT_BYTES) return consoleApi.importMappedCsv(text, columns, true);
  const head = stringify([file.header]);
  const rows: ReportRow[] = [];
  const summary: Summary = { rows: 0, created: 0, updated: 0, unchanged: 0, refused: 0 };
  let fromJob = false;
  for (let start = 0; start < file.records.length; ) {
    let body = head;
    let end = start;
    for (; end < file.records.length; end++) {
      const line = stringify([file.records[end]!]);
      if (end > start && body.length + line.length > ASYNC_IMPORT_BYTES) break;
      body += line;
    }
    // A service whose job threshold is below a piece answers it as a job: its rows then have no ids.
    const piece = await consoleApi.importMappedCsv(body, columns, true);
    fromJob ||= piece.fromJob === true;
    for (const r of piece.rows) rows.push({ ...r, row: r.row + start });
    for (const c of counts) summary[c] += piece.summary[c];
    if (piece.error) return { dryRun: true, rows, summary, error: piece.error, fromJob };
    start = end;
    onProgress?.(start);
  }
  // Across pieces, the service's rule for one file: a later row of an e-mail is the first row's investor.
  const email = file.header.findIndex((h) => columns[h] === 'contact.email');
  if (email >= 0) {
    const first = new Map<string, string>();
    for (const r of rows) {
      const address = (file.records[r.row - 1]?.[email] ?? '').trim().toLowerCase();
      if (!address || !r.id) continue;
      const id = first.get(address);
      if (id === undefined) first.set(address, r.id);
      else r.id = id;
    }
  }
  return { dryRun: true, rows, summary, fromJob };
}

/** A step field filled from each row: its key, and its value from the row's cells. */
export interface StepValue {
  key: string;
  value: (cells: string[]) => string;
}

/** Rows of the file not placed before any move was tried, and why. */
export interface Skipped {
  rows: number;
  reason: string;
}

export interface Placement {
  /** The move file: one row per investor the import kept, with the values of its last row. */
  csv: string;
  /** Per investor placed, the row its values come from (for names in the summary). */
  rowOf: Map<string, number>;
  /** Rows kept by the import that were an earlier row's investor (same e-mail): placed once. */
  merged: number;
  skipped: Skipped[];
}

const lineOf = (row: number) => row + 1;

/**
 * The move file after an import: every row the import kept, by the id the import gave it (a
 * synchronous report names every row; after a job, the check's id of the row), in `stepId` with
 * `values`. A job lists its first 1,000 refused rows only: rows after the last one listed are not
 * placed when it refused more, as nobody can tell which of them it kept.
 */
export function placementOf(file: CrmFile, imported: Report, checked: Report | undefined, stepId: string, values: StepValue[]): Placement {
  const refused = imported.rows.filter((r) => r.outcome === 'refused');
  const refusedRows = new Set(refused.map((r) => r.row));
  const knownUpTo = refused.length < imported.summary.refused ? Math.max(0, ...refused.map((r) => r.row)) : Infinity;
  const idOf = new Map((imported.fromJob ? (checked?.rows ?? []) : imported.rows).map((r) => [r.row, r.id]));
  const rowOf = new Map<string, number>();
  let kept = 0;
  let unknown = 0;
  let noId = 0;
  for (let row = 1; row <= imported.summary.rows; row++) {
    if (refusedRows.has(row)) continue;
    if (row > knownUpTo) {
      unknown++;
      continue;
    }
    const id = idOf.get(row);
    if (!id) {
      noId++;
      continue;
    }
    kept++;
    rowOf.set(id, row);
  }
  const skipped: Skipped[] = [];
  if (refused.length > 0) skipped.push({ rows: refused.length, reason: 'refused by the import (listed above)' });
  if (unknown > 0) {
    skipped.push({
      rows: unknown,
      reason: `after line ${lineOf(knownUpTo)}: the import refused ${imported.summary.refused} rows and its job names the first ${refused.length} only, so which of these it kept is not known. Mend the file and import it again: rows already imported are unchanged`,
    });
  }
  if (noId > 0) skipped.push({ rows: noId, reason: "without an id from the service's check" });
  const unread = file.records.length - imported.summary.rows;
  if (imported.error && unread > 0) skipped.push({ rows: unread, reason: 'not reached by the import, which stopped (see above)' });
  const head = ['investorUserId', 'targetStepId', ...values.map((v) => v.key)];
  const rows = [...rowOf].map(([id, row]) => [id, stepId, ...values.map((v) => v.value(file.records[row - 1] ?? []))]);
  return { csv: toCsv(head, rows), rowOf, merged: kept - rowOf.size, skipped };
}

/** The moves the service refused, by reason (the investor's own id left out of it), each with its investors' ids. */
export function refusalsOf(moves: Report): { reason: string; ids: string[] }[] {
  const byReason = new Map<string, string[]>();
  for (const r of moves.rows) {
    if (r.outcome !== 'refused') continue;
    // The fields at fault when the service names them, else its detail.
    const fields = (r.problem?.errors ?? []).map((e) => `${e.field}: ${e.detail}`).join('; ');
    const text = fields || rowErrors(r);
    const reason = r.id ? text.replaceAll(r.id, 'the investor') : text;
    byReason.set(reason, [...(byReason.get(reason) ?? []), r.id ?? '']);
  }
  return [...byReason].map(([reason, ids]) => ({ reason, ids })).sort((a, b) => b.ids.length - a.ids.length);
}
