// `dealflow reconcile FILE`: imports a bank statement as POST /payments/statements does (the same
// operation, the same checks of the file's bytes), on the database the service uses, as an import
// job it follows to the end (follow-job.ts), and prints what became of its lines.
import { readFileSync, statSync } from 'node:fs';
import type { Principal } from '../domain/principal.ts';
import { AppError } from '../domain/errors.ts';
import { defaultCsvColumns } from '../domain/statement-csv.ts';
import { InputCheck, MAX_RECORD_BYTES } from '../operations/import-readers/limits.ts';
import type { ImportResult, StatementInput } from '../operations/statement-import.ts';
import { type Command, withDatabase } from './command.ts';

const column = (name: string) => ({ type: 'string' as const, description: name });

export const reconcileCommand: Command = {
  summary: 'import a bank statement (camt.053/camt.054 XML or CSV) and reconcile it',
  help: `dealflow reconcile <FILE> [--format xml|csv] [CSV options]

Imports a bank statement as POST /payments/statements does: ISO 20022 camt.053 or camt.054
(versions 001.02 to 001.08) when the file ends in .xml, CSV when it ends in .csv (or --format).
Matched credits move their investors to the deal's payment step (as "reconciliation"); the rest
wait in the queue (GET /payments/lines?status=queued). Importing the same file again changes
nothing.

CSV options (the column names in the file's header row):
  --date-column NAME           booking date, YYYY-MM-DD (default "${defaultCsvColumns.date}")
  --value-date-column NAME     value date (default: the booking date)
  --amount-column NAME         amount; negative is a debit (default "${defaultCsvColumns.amount}")
  --currency-column NAME       ISO 4217 (default "${defaultCsvColumns.currency}")
  --reference-column NAME      reference or remittance text (default "${defaultCsvColumns.reference}")
  --counterparty-column NAME   payer's name
  --counterparty-account-column NAME
  --bank-reference-column NAME the bank's reference of the line (else lines are identified by a hash)
  --delimiter comma|semicolon|tab   (default comma)
  --decimal-separator point|comma   (default point)
  --account ID                 the account the statement is for`,
  options: {
    format: { type: 'string' },
    'date-column': column('date'),
    'value-date-column': column('value date'),
    'amount-column': column('amount'),
    'currency-column': column('currency'),
    'reference-column': column('reference'),
    'counterparty-column': column('counterparty'),
    'counterparty-account-column': column('counterparty account'),
    'bank-reference-column': column('bank reference'),
    delimiter: { type: 'string' },
    'decimal-separator': { type: 'string' },
    account: { type: 'string' },
  },
  async run(config, values, positionals) {
    const [file] = positionals;
    if (!file || positionals.length > 1) {
      process.stderr.write(`${this.help}\n`);
      return 1;
    }
    const size = statSync(file).size;
    if (size > config.statementBodyLimit)
      throw new AppError('payload-too-large', `${file} is ${size} bytes, more than STATEMENT_BODY_LIMIT (${config.statementBodyLimit})`);
    const format = (values.format as string | undefined) ?? (file.toLowerCase().endsWith('.csv') ? 'csv' : 'xml');
    if (format !== 'xml' && format !== 'csv') throw new AppError('validation', '--format must be xml or csv');
    // UTF-8 only, and a CSV record at most MAX_RECORD_BYTES, as over HTTP.
    const bytes = readFileSync(file);
    const check = new InputCheck({
      quoted: format === 'csv',
      header: format === 'csv',
      ...(format === 'csv' ? { maxRecordBytes: MAX_RECORD_BYTES } : {}),
      what: file,
    });
    check.push(bytes);
    check.end();
    const text = bytes.toString('utf8');
    const str = (key: string) => values[key] as string | undefined;
    const input: StatementInput =
      format === 'xml'
        ? { kind: 'xml', text }
        : {
            kind: 'csv',
            text,
            csv: {
              columns: {
                date: str('date-column') ?? defaultCsvColumns.date,
                amount: str('amount-column') ?? defaultCsvColumns.amount,
                currency: str('currency-column') ?? defaultCsvColumns.currency,
                reference: str('reference-column') ?? defaultCsvColumns.reference,
                counterparty: str('counterparty-column'),
                counterpartyAccount: str('counterparty-account-column'),
                bankReference: str('bank-reference-column'),
                valueDate: str('value-date-column'),
              },
              delimiter: ({ comma: ',', semicolon: ';', tab: '\t' } as const)[(str('delimiter') ?? 'comma') as 'comma'] ?? ',',
              decimalSeparator: str('decimal-separator') === 'comma' ? ',' : '.',
              account: str('account'),
            },
          };
    const [{ newUuid, systemClock }, { importStatement }, { runAsJob }] = await Promise.all([
      import('../operations/deps.ts'),
      import('../operations/statement-import.ts'),
      import('./follow-job.ts'),
    ]);
    const principal: Principal = { userId: 'cli', role: 'admin', tokenKey: 'cli' };
    const result = await withDatabase(config, async ({ db }) => {
      const job = await runAsJob(
        { db, clock: systemClock, newId: newUuid },
        principal,
        { kind: 'statement', dryRun: false, bytes: bytes.length },
        async (progress) => ({
          outcome: await importStatement({ db, clock: systemClock, newId: newUuid }, principal, input, { onProgress: progress }),
        }),
      );
      return job.outcome as ImportResult;
    });
    const { statement } = result;
    process.stdout.write(
      `${result.duplicate ? 'Imported before (nothing changed)' : 'Imported'}: ${statement.format} statement ${statement.id}` +
        `${statement.messageId ? ` (${statement.messageId})` : ''}, ${statement.lineCount} line(s), ${statement.newLineCount} new.\n` +
        `Outcomes: ${
          Object.entries(result.outcomes)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ') || 'none'
        }\n` +
        `Statuses: ${
          Object.entries(result.statuses)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ') || 'none'
        }\n`,
    );
  },
};
