// `dealflow import investors FILE [--dry-run]` and `dealflow import moves FILE --deal ID [--dry-run]`:
// the imports of the HTTP API (same row parsing and checks, same operations), reading the file as a
// stream, as an import job it follows to the end (follow-job.ts). The per-row report goes to stdout
// as CSV (row, id, outcome, detail); the summary and, on a terminal, the job's progress go to stderr.
import { createReadStream, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { Config } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { ImportRowsOutcome } from '../operations/import-jobs.ts';
import type { RowReport } from '../operations/imports.ts';
import { withDatabase } from './command.ts';
import { dateStyles, numberStyles, separatorNames } from '../domain/written-forms.ts';
import { duplicatePolicies } from '../operations/import-readers/duplicates.ts';
import type { InvestorImportQuery } from '../operations/investor-import-options.ts';

export const importHelp = `dealflow import investors FILE [--dry-run] [--columns JSON] [--separator comma|semicolon|tab]
    [--numbers 1234.56|1,234.56|1.234,56] [--dates yyyy-mm-dd|dd.mm.yyyy|mm/dd/yyyy]
    [--duplicates last|first|sum|skip] [--deal <dealId> --step <stepId>]
dealflow import moves FILE --deal <dealId> [--dry-run]

investors: upserts the investor directory from a CSV file (the column map in docs/reference/imports.md,
the columns of the all-transactions CSV export) or an NDJSON file (*.ndjson, *.jsonl: one PUT /investors body
plus "id" per line). --columns reads a CSV of another shape (a CRM export) through a JSON object from
each of its headers to a column of the investor import, data.<field key> of the step given by --deal and
--step, or null, e.g. '{"name":"fullName","email":"contact.email","amount":"data.committed_amount"}'.
--separator (default: the header line's), --numbers and --dates say how the file is written;
--duplicates which row of an e-mail on several rows counts; --deal and --step place every row in that
step, created and placed together or not at all.
moves: moves investors of a deal from a CSV file (investorUserId, targetStepId, optional
expectedCurrentStepId, one column per field key) under the rules of jump-to-step.

Prints one line per row (row,id,outcome,detail: created, updated, unchanged or refused) and a
summary. Running the same file again changes nothing. --dry-run reports and writes nothing.
Exit status 0, or 2 when some rows were refused.`;

/** The staff principal of the command line: moves it makes name it as their author. */
const cliPrincipal = (): Principal => ({ userId: `cli:${userInfo().username}`, role: 'admin', tokenKey: 'cli' });

const detailOf = (r: RowReport) =>
  [
    r.errors ? r.errors.map((e) => `${e.field} ${e.detail}`).join('; ') : '',
    r.refusal ? [r.refusal.detail, ...(r.refusal.errors ?? []).map((e) => `${e.field}: ${e.detail}`)].join('; ') : '',
    r.placement === 'placed' ? `placed ${r.eventId}` : r.placement === 'unchanged' ? 'already placed' : !r.placement && r.eventId ? r.eventId : '',
    r.duplicateRows ? `e-mail on rows ${r.duplicateRows.join(', ')}` : '',
  ]
    .filter((part) => part !== '')
    .join('; ');

const FLAGS = {
  columns: 'columns',
  separator: 'separator',
  numbers: 'numbers',
  dates: 'dates',
  duplicates: 'duplicates',
  dealId: 'deal',
  stepId: 'step',
} as const;
const CHOICES: Partial<Record<keyof typeof FLAGS, readonly string[]>> = {
  separator: Object.keys(separatorNames),
  numbers: numberStyles,
  dates: dateStyles,
  duplicates: duplicatePolicies,
};

/** The investor import's options from the flags; a value outside a flag's choices is refused naming them. */
function investorQuery(values: Record<string, string | boolean | undefined>): InvestorImportQuery {
  const query: Record<string, string> = {};
  for (const [option, flag] of Object.entries(FLAGS) as [keyof typeof FLAGS, string][]) {
    const value = values[flag];
    if (typeof value !== 'string') continue;
    const choices = CHOICES[option];
    if (choices && !choices.includes(value))
      throw new AppError('validation', `--${flag} must be one of ${choices.join(', ')}`, {
        errors: [{ in: 'body', field: `--${flag}`, detail: `must be one of ${choices.join(', ')}` }],
      });
    query[option] = value;
  }
  return query as InvestorImportQuery;
}

export async function runImport(config: Config, values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> {
  const [what, file] = positionals;
  if ((what !== 'investors' && what !== 'moves') || !file) {
    process.stderr.write(`${importHelp}\n`);
    return 1;
  }
  const deal = values.deal;
  if (what === 'moves' && typeof deal !== 'string') throw new AppError('validation', 'dealflow import moves needs --deal <dealId>');
  // Loaded here, not at the top: `dealflow --help` starts without the import machinery.
  const [
    { stringify },
    { neutralise },
    { investorRows, moveRows },
    { newUuid, systemClock },
    { importInvestors, importMoves },
    { importRowsJob },
    { runAsJob },
    { investorImportOptions },
  ] = await Promise.all([
    import('csv-stringify/sync'),
    import('../domain/spreadsheet-cell.ts'),
    import('../operations/import-readers/rows.ts'),
    import('../operations/deps.ts'),
    import('../operations/imports.ts'),
    import('../operations/import-jobs.ts'),
    import('./follow-job.ts'),
    import('../operations/investor-import-options.ts'),
  ]);
  const size = statSync(file).size;
  const open = () => createReadStream(file);
  const dryRun = values['dry-run'] === true;
  const started = Date.now();
  const job = await withDatabase(config, async ({ db }) => {
    const deps = { db, clock: systemClock, newId: newUuid };
    const principal = cliPrincipal();
    const options = what === 'investors' ? await investorImportOptions(deps, principal, investorQuery(values), (o) => `--${FLAGS[o]}`, 'body') : undefined;
    // Rows are checked as they are read (a line over 1 MiB, bytes that are not UTF-8: the import
    // stops with a problem naming the line), as over HTTP.
    const reports =
      what === 'investors'
        ? importInvestors(deps, principal, investorRows(open, /\.(nd)?jsonl?$/i.test(file) ? 'ndjson' : 'csv', options!.reader), {
            dryRun,
            ...(options!.placement ? { placement: options!.placement } : {}),
          })
        : importMoves(deps, principal, String(deal), moveRows(open()), { dryRun });
    const printRow = (report: RowReport) =>
      process.stdout.write(stringify([[report.row, report.id ?? '', report.outcome, detailOf(report)].map((c) => neutralise(String(c)))]));
    return runAsJob(deps, principal, { kind: what, ...(what === 'moves' ? { dealId: String(deal) } : {}), dryRun, bytes: size }, (progress) => {
      process.stdout.write(stringify([['row', 'id', 'outcome', 'detail']]));
      return importRowsJob(reports, progress, { dryRun, keep: (r) => r, onRow: printRow });
    });
  });
  const { summary } = job.outcome as ImportRowsOutcome;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    `${dryRun ? 'Dry run, nothing written: ' : ''}${summary.rows} rows in ${seconds} s: ${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.refused} refused\n`,
  );
  return summary.refused > 0 ? 2 : 0;
}
