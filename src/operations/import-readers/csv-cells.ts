// Spreadsheet formula injection (OWASP "CSV Injection") in CSV cells, for the exports that write
// them (http/csv.ts, the CLI's reports) and the imports that read them back: a cell that starts
// with =, +, -, @, tab or carriage return is written with a leading apostrophe, which spreadsheets
// show as text and do not evaluate. A plain number ("-5", "-1250.50") is left alone: a spreadsheet
// reads it as the number it is and evaluates nothing, and an apostrophe would turn an amount column
// into text. Imports undo the apostrophe (unneutralise), so an export read back gives the values
// that were exported.
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

export function neutralise(cell: string): string {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

export function unneutralise(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}
