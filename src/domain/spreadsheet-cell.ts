// The defence of CSV exports against spreadsheet formula injection (OWASP "CSV Injection"): a cell
// that a spreadsheet could read as a formula is written with a leading apostrophe, which shows it
// as text and evaluates nothing. A formula starts with = + - @; spreadsheets also read one after
// leading white space (" =1+1", "\n=1+1", a no-break or ideographic space) and in full-width or
// small forms (＝ ＋ － ＠, ﹦ ﹢ ﹣ ﹫), which NFKC folds to the ASCII characters; a cell starting
// with a tab, a carriage return or a line feed is neutralised whatever follows. A plain number
// ("-5", "-1250.50") is left alone: a spreadsheet reads it as the number it is, and an apostrophe
// would turn an amount column into text. Imports undo the apostrophe (unneutralise), so an export
// read back gives the values that were exported.

const CONTROL_START = /^[\t\r\n]/;
const FORMULA_START = /^[=+\-@]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/** Whether a spreadsheet could take `cell` for a formula (plain numbers included). */
function startsLikeFormula(cell: string): boolean {
  if (CONTROL_START.test(cell)) return true;
  // NFKC folds full-width and small forms to ASCII (＝ → =) and odd spaces to a space.
  return FORMULA_START.test(cell.normalize('NFKC').replace(/^\s+/, ''));
}

export function neutralise(cell: string): string {
  return startsLikeFormula(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

export function unneutralise(cell: string): string {
  return cell.startsWith("'") && startsLikeFormula(cell.slice(1)) ? cell.slice(1) : cell;
}
