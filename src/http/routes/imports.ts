// POST /investors/import and POST /deals/deal/{dealId}/jump-to-step/import. The body (text/csv, or
// application/x-ndjson for investors) is first written to a temporary file as it arrives, checked
// on the way (import-readers/limits.ts: a line or record over 1 MiB is a 413, bytes that are not
// UTF-8 a 400, both naming the line; the connection is then closed and nothing is stored). Then:
// - above IMPORT_JOB_THRESHOLD bytes, or with `Prefer: respond-async`, the import runs as an import
//   job: 202 Accepted with its Location (import-jobs.ts), once its first rows are handled (so a
//   header that does not fit is still a 400);
// - otherwise the answer is a JSON report written as the rows are handled: one entry per row, in
//   file order, then the summary. A problem found before the first row (bad header, unknown media
//   type) is an ordinary problem response; one found later ends the report with `error`.
import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { importRowsJob, startImportJob } from '../../operations/import-jobs.ts';
import { MAX_RECORD_BYTES, type Spooled } from '../../operations/import-readers/limits.ts';
import { spoolUpload } from '../spool-upload.ts';
import type { Principal } from '../../domain/principal.ts';
import { errorOf } from '../../operations/bulk-moves.ts';
import { count, emptySummary, importInvestors, importMoves, type RowReport } from '../../operations/imports.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { errorToProblem } from '../errors.ts';
import { type ImportFormat, investorRows, moveRows } from '../../operations/import-readers/rows.ts';
import { problemOf } from '../problems.ts';
import { ExternalId } from '../schemas/common.ts';
import { DryRunQuery } from '../schemas/moves.ts';
import { type InvestorImportQuery, investorImportOptions } from '../../operations/investor-import-options.ts';
import { duplicatePolicies } from '../../operations/import-readers/duplicates.ts';
import { dateStyles, numberStyles, separatorNames } from '../../domain/written-forms.ts';
import { Accepted, acceptJob, holdConnection, prefersAsync } from './import-jobs.ts';
import { ImportReport } from './import-report.ts';

const CSV = 'text/csv';
const NDJSON = 'application/x-ndjson';

const formatOf = (request: FastifyRequest, allowed: string[]): ImportFormat => {
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (!allowed.includes(type) || !(request.body instanceof Readable)) {
    throw new AppError('unsupported-media-type', `Send the file as ${allowed.join(' or ')}`);
  }
  return type === NDJSON ? 'ndjson' : 'csv';
};

const reportJson = (r: RowReport) =>
  JSON.stringify({
    row: r.row,
    id: r.id,
    outcome: r.outcome,
    ...(r.errors ? { errors: r.errors } : {}),
    ...(r.refusal ? { problem: problemOf(errorOf(r.refusal)) } : {}),
    ...(r.eventId ? { eventId: r.eventId } : {}),
    ...(r.placement ? { placement: r.placement } : {}),
    ...(r.duplicateRows ? { duplicateRows: r.duplicateRows } : {}),
  });

/**
 * What an investor import asks for, checked before the file is read: its format, how to read it and
 * where to place its rows (a CSV's options only), the dry run, and who asks.
 */
async function investorImportOf(ctx: AppContext, request: FastifyRequest<{ Querystring: { dryRun?: boolean } & InvestorImportQuery }>) {
  const format = formatOf(request, [CSV, NDJSON]);
  const { dryRun, ...query } = request.query;
  if (format !== 'csv' && Object.keys(query).length > 0)
    throw new AppError('validation', 'A column map, forms and a placement apply to a CSV file only', {
      errors: Object.keys(query).map((field) => ({ in: 'query', field, detail: 'applies to text/csv only' })),
    });
  const principal = principalOf(request);
  const { reader, placement } = await investorImportOptions(ctx, principal, query);
  return { format, reader, principal, options: { dryRun: dryRun === true, ...(placement ? { placement } : {}) } };
}

/** Sends the report as it is produced; the first row is awaited first so early problems are 4xx. */
async function sendReport(reply: FastifyReply, reports: AsyncGenerator<RowReport>, dryRun: boolean, done: () => Promise<void>) {
  let first: IteratorResult<RowReport>;
  try {
    first = await reports.next();
  } catch (err) {
    await done();
    throw err;
  }
  const summary = emptySummary();
  const body = async function* () {
    yield `{"dryRun":${dryRun},"rows":[`;
    let error: unknown;
    try {
      for (let next = first, separator = ''; !next.done; next = await reports.next(), separator = ',') {
        count(summary, next.value);
        yield separator + reportJson(next.value);
      }
    } catch (err) {
      error = err;
    } finally {
      await done();
    }
    yield `],"summary":${JSON.stringify(summary)}`;
    if (error !== undefined) {
      const appError = errorToProblem(error, 0);
      if (appError.kind === 'internal') reply.log.error({ err: error }, 'import failed');
      yield `,"error":${JSON.stringify(problemOf(appError, String(reply.request.id)))}`;
    }
    yield '}';
  };
  return reply.code(200).type('application/json; charset=utf-8').send(Readable.from(body()));
}

/** The body held in a file (http/spool-upload.ts): CSV or NDJSON, within the import's limits. */
function spoolBody(request: FastifyRequest, reply: FastifyReply, ctx: AppContext, format: ImportFormat): Promise<Spooled> {
  return spoolUpload(request, reply, {
    quoted: format === 'csv',
    header: format === 'csv',
    maxRecordBytes: MAX_RECORD_BYTES,
    maxBytes: ctx.config.importBodyLimit,
    what: format === 'csv' ? 'The CSV' : 'The NDJSON file',
  });
}

/**
 * Runs an import from its spooled file: as a job (202) when the file is above the threshold or the
 * client asked for one, else with the streamed report.
 */
/** A move import's request read: CSV only, and what the import is (deal, dry run, who). */
function moveImportOf(request: FastifyRequest<{ Params: { dealId: string }; Querystring: { dryRun?: boolean } }>) {
  formatOf(request, [CSV]);
  return { kind: 'moves' as const, dealId: request.params.dealId, dryRun: request.query.dryRun === true, principal: principalOf(request) };
}

async function runImport(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  file: Spooled,
  spec: { kind: 'investors' | 'moves'; dealId?: string; dryRun: boolean; principal: Principal },
  start: (file: Spooled) => AsyncGenerator<RowReport>,
) {
  const reports = start(file);
  holdConnection(request);
  if (file.bytes <= ctx.config.importJobThreshold && !prefersAsync(request)) {
    return sendReport(reply, reports, spec.dryRun, file.remove);
  }
  // The first rows are handled before the answer, so a header that does not fit is still a 400.
  let first: IteratorResult<RowReport>;
  try {
    first = await reports.next();
  } catch (err) {
    await file.remove();
    throw err;
  }
  const rest = async function* () {
    for (let next = first; !next.done; next = await reports.next()) yield next.value;
  };
  const job = await startImportJob(
    ctx,
    spec.principal,
    { kind: spec.kind, dealId: spec.dealId, dryRun: spec.dryRun, bytes: file.bytes },
    (progress) => importRowsJob(rest(), progress, { dryRun: spec.dryRun, keep: (r) => JSON.parse(reportJson(r)) }),
    file.remove,
  );
  return acceptJob(request, reply, ctx, job);
}

export function importRoutes(app: Api, ctx: AppContext) {
  return app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // Hand the body on as the raw stream; the routes below read it row by row.
    scope.addContentTypeParser([CSV, NDJSON], (_request, payload, done) => done(null, payload));

    scope.post(
      '/investors/import',
      {
        schema: {
          tags: ['management'],
          operationId: 'importInvestors',
          summary: 'Import investors into the directory from CSV or NDJSON (upserts), with a per-row report',
          description:
            'text/csv with the column map of docs/reference/imports.md (the columns of the all-transactions CSV export), or application/x-ndjson with one ' +
            'PUT /investors body plus "id" per line. Each row: created, updated, unchanged (equal to the stored entry: nothing written) or ' +
            'refused (errors name the fields). ?dryRun=true: the same report, nothing written. ' +
            '?columns=: a CSV of another shape (a CRM export), read through a JSON object from each of its headers to a column of the ' +
            'investor import or null (read past); ids are then derived from the CRM id or the e-mail when no column gives them, a ' +
            'fullName is split into forename and surname, and rows with the same e-mail are one investor, the row that counts chosen by ?duplicates= ' +
            '(docs/reference/imports.md). ?separator=, ?numbers=, ?dates=: how the file is written (a European export: semicolon, 1.234,56, dd.mm.yyyy). ' +
            '?dealId=&stepId=: every row is also moved to that step with the data.* columns as its fields, created and placed together or not at all ' +
            '(a refused move refuses the row, nothing of it written); the dry run runs the same checks.',
          querystring: Type.Object({
            ...DryRunQuery.properties,
            columns: Type.Optional(
              Type.String({
                maxLength: 10_000,
                description:
                  'JSON object: header of the file → column of the investor import (e.g. "fullName", "contact.email", "remoteId"), data.<field key> of the step the rows are placed in (with dealId and stepId), or null',
                examples: ['{"name":"fullName","email":"contact.email","amount":null}'],
              }),
            ),
            separator: Type.Optional(
              Type.Union(
                Object.keys(separatorNames).map((s) => Type.Literal(s)),
                { description: 'CSV column separator; unless given, the one the header line uses (comma, semicolon or tab)' },
              ),
            ),
            numbers: Type.Optional(
              Type.Union(
                numberStyles.map((s) => Type.Literal(s)),
                { description: 'how the file writes amounts and numbers of data.* columns (default 1234.56)' },
              ),
            ),
            dates: Type.Optional(
              Type.Union(
                dateStyles.map((s) => Type.Literal(s)),
                {
                  description:
                    'how the file writes dates of data.* columns and contact.dateOfBirth (default yyyy-mm-dd; day- and month-first dates may use . / or -)',
                },
              ),
            ),
            duplicates: Type.Optional(
              Type.Union(
                duplicatePolicies.map((s) => Type.Literal(s)),
                { description: 'rows of a column-mapped file with the same e-mail: last (default), first, sum (amounts added up) or skip (none imported)' },
              ),
            ),
            dealId: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 128,
                pattern: '^[A-Za-z0-9._:@-]+$',
                description: 'place every row in a step of this deal: created and placed together or not at all',
              }),
            ),
            stepId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'the step of dealId the rows are placed in' })),
          }),
          response: { 200: ImportReport, 202: Accepted },
        },
      },
      async (request, reply) => {
        const { format, reader, principal, options } = await investorImportOf(ctx, request);
        const run = (input: Spooled) => importInvestors(ctx, principal, investorRows(input.open, format, reader), options);
        return runImport(request, reply, ctx, await spoolBody(request, reply, ctx, format), { kind: 'investors', dryRun: options.dryRun, principal }, run);
      },
    );

    scope.post(
      '/deals/deal/:dealId/jump-to-step/import',
      {
        schema: {
          tags: ['journeys'],
          operationId: 'importMoves',
          summary: 'Import moves of a deal from CSV: the bulk rules, in batches, with a per-row report',
          description:
            'text/csv with columns investorUserId, targetStepId, optional expectedCurrentStepId, and one column per field key (an empty ' +
            'cell supplies nothing). Each row: created (the move was applied; eventId), unchanged (the investor already stands at the target ' +
            'with the same data) or refused (problem: what a single move would get). ?dryRun=true: nothing written.',
          params: Type.Object({ dealId: ExternalId }),
          querystring: DryRunQuery,
          response: { 200: ImportReport, 202: Accepted },
        },
      },
      async (request, reply) => {
        const spec = moveImportOf(request);
        const run = (input: Spooled) => importMoves(ctx, spec.principal, spec.dealId, moveRows(input.open()), { dryRun: spec.dryRun });
        return runImport(request, reply, ctx, await spoolBody(request, reply, ctx, 'csv'), spec, run);
      },
    );
  });
}
