// CSV statements (RFC 4180, csv-parse), with a column map given per import: which header names hold
// the date, the amount, the currency, the reference or remittance text, the counterparty, and the
// bank's own reference. A negative amount is a debit. Dates are YYYY-MM-DD.
import { parse } from 'csv-parse/sync';
import { CALENDAR_DATE_RULE, isCalendarDate } from './calendar-date.ts';
import { minorUnitsProblem } from './currency.ts';
import { AppError } from './errors.ts';
import { isStatementAmount, type ParsedStatement, type StatementLine } from './payment-line.ts';
import { csvColumnMaxima, textTooLong } from './statement-bounds.ts';

export interface CsvColumnMap {
  date: string;
  amount: string;
  currency: string;
  reference: string;
  counterparty?: string | undefined;
  counterpartyAccount?: string | undefined;
  bankReference?: string | undefined;
  valueDate?: string | undefined;
}

export interface CsvOptions {
  columns: CsvColumnMap;
  delimiter: ',' | ';' | '\t';
  decimalSeparator: '.' | ',';
  /** The account the statement is for (part of each line's identity); optional. */
  account?: string | undefined;
}

export const defaultCsvColumns: CsvColumnMap = {
  date: 'date',
  amount: 'amount',
  currency: 'currency',
  reference: 'reference',
  counterparty: 'counterparty',
  bankReference: 'bank_reference',
};

const bad = (detail: string, field = 'statement') => new AppError('validation', detail, { errors: [{ in: 'body', field, detail }] });

export function parseCsvStatement(text: string, options: CsvOptions): ParsedStatement {
  if (isJsonString(text)) {
    throw bad('The body is a JSON string, not CSV: send the CSV text itself as the body (Content-Type: text/csv), not JSON-encoded');
  }
  let records: Record<string, string>[];
  let header: string[] = [];
  try {
    // The header is read even when no row follows it, so that a header alone is checked too.
    records = parse(text, { columns: (names: string[]) => (header = names), bom: true, delimiter: options.delimiter, skip_empty_lines: true, trim: true });
  } catch (err) {
    throw bad(`The CSV statement cannot be read: ${(err as Error).message}`);
  }
  const { columns } = options;
  for (const [role, name] of Object.entries(columns)) {
    if (name !== undefined && !header.includes(name)) {
      throw new AppError('validation', `The CSV has no column "${name}" (mapped as ${role}); its columns are ${header.join(', ') || 'none'}`, {
        errors: [{ in: 'query', field: `${role}Column`, detail: `no column "${name}" in the CSV header` }],
      });
    }
  }
  const lines = records.map((record, i): StatementLine => {
    const row = `row ${i + 2}`;
    const get = (name: string | undefined) => (name === undefined ? null : record[name]?.trim() || null);
    // The text columns are held to the maximum of the camt element each stands for (Ustrd, Nm, AcctSvcrRef).
    for (const [role, maximum] of Object.entries(csvColumnMaxima)) {
      const name = columns[role as keyof typeof csvColumnMaxima];
      const value = get(name);
      const tooLong = value === null ? undefined : textTooLong(value, maximum);
      if (tooLong) throw bad(`${row}, column "${name}": the text is ${tooLong}`, `${row}.${name}`);
    }
    let amount = (get(columns.amount) ?? '').replace(/\s/g, '');
    if (options.decimalSeparator === ',') amount = amount.replace(/\./g, '').replace(',', '.');
    const negative = amount.startsWith('-');
    amount = amount.replace(/^[-+]/, '');
    if (!isStatementAmount(amount)) throw bad(`${row}: the amount ${JSON.stringify(get(columns.amount))} is not a decimal amount`);
    const currency = get(columns.currency)?.toUpperCase() ?? '';
    if (!/^[A-Z]{3}$/.test(currency)) throw bad(`${row}: the currency ${JSON.stringify(currency)} is not an ISO 4217 code`);
    const tooFine = minorUnitsProblem(amount, currency);
    if (tooFine) throw bad(`${row}, column "${columns.amount}": the amount ${amount} ${tooFine}`, `${row}.${columns.amount}`);
    const date = get(columns.date);
    if (!date || !isCalendarDate(date))
      throw bad(`${row}, column "${columns.date}": the date ${JSON.stringify(date)} ${CALENDAR_DATE_RULE}`, `${row}.${columns.date}`);
    const valueDate = get(columns.valueDate) ?? date;
    if (!isCalendarDate(valueDate)) {
      throw bad(`${row}, column "${columns.valueDate}": the value date ${JSON.stringify(valueDate)} ${CALENDAR_DATE_RULE}`, `${row}.${columns.valueDate}`);
    }
    const bankReference = get(columns.bankReference);
    const reference = get(columns.reference);
    return {
      direction: negative ? 'debit' : 'credit',
      reversal: false,
      amount,
      currency,
      bookingDate: date,
      valueDate,
      account: options.account ?? null,
      entryReference: bankReference,
      endToEndId: null,
      debtorName: get(columns.counterparty),
      debtorAccount: get(columns.counterpartyAccount),
      structuredReferences: [],
      remittance: reference ? [reference] : [],
      bankKey: bankReference,
      entryStatus: 'BOOK',
    };
  });
  return { format: 'csv', version: null, messageId: null, lines };
}

/** A CSV body sent JSON-encoded (as a generated client does with a string body): `"date,amount\n…"`. */
function isJsonString(text: string): boolean {
  const trimmed = text.trim();
  if (!(trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"'))) return false;
  try {
    return typeof JSON.parse(trimmed) === 'string';
  } catch {
    return false;
  }
}
