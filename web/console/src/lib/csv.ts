// CSV out of the console: the current view (filters applied) built in the browser with
// csv-stringify. Cells that a spreadsheet would run as a formula (=, +, -, @, tab, CR first) get a
// leading apostrophe, so an exported name like "=HYPERLINK(…)" stays text.
import { stringify } from 'csv-stringify/browser/esm/sync';

const FORMULA = /^[=+\-@\t\r]/;
export const neutralise = (value: string) => (FORMULA.test(value) ? `'${value}` : value);

export function toCsv(header: string[], rows: (string | number | null | undefined)[][]): string {
  return stringify([header, ...rows.map((row) => row.map((cell) => (cell == null ? '' : neutralise(String(cell)))))]);
}

export function download(filename: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
