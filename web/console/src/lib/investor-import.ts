// An investor file checked by the service before it is imported: the dry run of its rows, built on
// the stored entries of the investors already in the directory.
import { ApiError, consoleApi, type ImportReport, type Investor } from './api.ts';
import { toRecord } from './investor-record.ts';
import type { ReportRow, Row } from './investor-csv.ts';

type RecordWithId = Investor;

/** The service's check of the rows that can be sent: the bodies to import and its dry-run report. */
export type Check = { status: 'checking' } | { status: 'error'; message: string } | { status: 'ready'; records: RecordWithId[]; report: ImportReport };

export const rowErrors = (r: ReportRow | undefined) =>
  (r?.errors ?? r?.problem?.errors ?? []).map((e) => `${e.field}: ${e.detail}`).join('; ') || r?.problem?.detail || 'refused';

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
export async function checkRows(rows: Row[]): Promise<{ records: RecordWithId[]; report: ImportReport }> {
  let records = rows.map((r) => ({ id: r.input.id, ...toRecord(r.input) }));
  let report = await consoleApi.importInvestors(records, true);
  const existing = report.rows.filter((r) => r.outcome === 'updated' || r.outcome === 'unchanged').map((r) => r.row - 1);
  if (existing.length > 0) {
    const stored = await inParallel(existing, 4, (i) =>
      consoleApi.getInvestor(rows[i]!.input.id).catch((e) => (e instanceof ApiError && e.status === 404 ? undefined : Promise.reject(e))),
    );
    records = [...records];
    existing.forEach((i, k) => {
      if (stored[k]) records[i] = { id: rows[i]!.input.id, ...toRecord(rows[i]!.input, stored[k]) };
    });
    report = await consoleApi.importInvestors(records, true);
  }
  return { records, report };
}
