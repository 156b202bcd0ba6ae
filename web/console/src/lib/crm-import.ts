// A CRM file imported in one request: POST /investors/import with its column map, the forms it is
// written in, the duplicate policy and the step its rows are placed in. The service creates and
// places each row together or not at all, and its dry run runs the same transaction rolled back, so
// the preview's counts are the import's. A file over ASYNC_IMPORT_BYTES goes as an import job
// (preview and import alike), whose report keeps the refused rows only (`fromJob`).
import { consoleApi, type ImportReport, type MappedImport } from './api.ts';
import { rowErrors } from './investor-import.ts';

/** A report as the console's import calls return it: `fromJob` when it names only the refused rows. */
export type Report = ImportReport & { fromJob?: boolean };
type ReportRow = Report['rows'][number];

/** The service's dry run of the whole file (onProgress: rows checked, for a job). */
export const checkCrmFile = (text: string, options: MappedImport, onProgress?: (rows: number) => void): Promise<Report> =>
  consoleApi.importMappedCsv(text, options, true, onProgress);

/** The import itself. */
export const importCrmFile = (text: string, options: MappedImport, onProgress?: (rows: number) => void): Promise<Report> =>
  consoleApi.importMappedCsv(text, options, false, onProgress);

/** Why a row was refused, the investor's own id left out. */
export const refusalOf = (r: ReportRow) => (r.id ? rowErrors(r).replaceAll(r.id, 'the investor') : rowErrors(r));

/** The counts of a report in words: the same words for the preview and the import. */
export function countsOf(report: Report, stepLabel: string | undefined, future: boolean): string {
  const s = report.summary;
  const n = (count: number) => count.toLocaleString('en-GB');
  const parts = future
    ? [`${n(s.created)} new`, `${n(s.updated)} to update`, `${n(s.unchanged)} unchanged`, `${n(s.refused)} refused`]
    : [`${n(s.created)} created`, `${n(s.updated)} updated`, `${n(s.unchanged)} unchanged`, `${n(s.refused)} refused`];
  if (stepLabel !== undefined) parts.push(`${n(s.placed ?? 0)} ${future ? 'to place' : 'placed'} in ${stepLabel}`);
  return parts.join(', ');
}
