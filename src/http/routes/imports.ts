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
import { MAX_RECORD_BYTES, spool, type Spooled } from '../../operations/import-readers/limits.ts';
import type { Principal } from '../../domain/principal.ts';
import { errorOf } from '../../operations/bulk-moves.ts';
import { count, emptySummary, importInvestors, importMoves, type RowReport } from '../../operations/imports.ts';
import type { Api, AppContext } from '../context.ts';
import type { Readable as ReadableType } from 'node:stream';
import { principalOf } from '../auth.ts';
import { errorToProblem } from '../errors.ts';
import { type ImportFormat, investorRows, moveRows } from '../../operations/import-readers/rows.ts';
import { problemOf } from '../problems.ts';
import { ExternalId } from '../schemas/common.ts';
import { DryRunQuery } from './bulk-moves.ts';
import { parseColumnMap } from '../../operations/import-readers/column-map.ts';
import { Accepted, acceptJob, holdConnection, prefersAsync } from './import-jobs.ts';
import { ImportReport } from './import-report.ts';

const CSV = 'text/csv';
const NDJSON = 'application/x-ndjson';

const formatOf = (request: FastifyRequest, allowed: string[]): ImportFormat => {
  const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
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
  });

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

/**
 * The body held in a file (limits.ts). A refusal closes the connection: the rest of the upload is
 * not read, and a client still sending learns of the refusal instead of waiting for its end.
 */
async function spoolBody(request: FastifyRequest, reply: FastifyReply, ctx: AppContext, format: ImportFormat): Promise<Spooled> {
  try {
    return await spool(request.body as ReadableType, {
      quoted: format === 'csv', header: format === 'csv', maxRecordBytes: MAX_RECORD_BYTES, maxBytes: ctx.config.importBodyLimit,
      what: format === 'csv' ? 'The CSV' : 'The NDJSON file',
    });
  } catch (err) {
    reply.header('Connection', 'close');
    throw err;
  }
}

/**
 * Runs an import from its spooled file: as a job (202) when the file is above the threshold or the
 * client asked for one, else with the streamed report.
 */
async function runImport(
  request: FastifyRequest, reply: FastifyReply, ctx: AppContext, file: Spooled,
  spec: { kind: 'investors' | 'moves'; dealId?: string; dryRun: boolean; principal: Principal },
  start: (input: ReadableType) => AsyncGenerator<RowReport>,
) {
  const reports = start(file.open());
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
  const job = await startImportJob(ctx, spec.principal, { kind: spec.kind, dealId: spec.dealId, dryRun: spec.dryRun, bytes: file.bytes }, (progress) =>
    importRowsJob(rest(), progress, { dryRun: spec.dryRun, keep: (r) => JSON.parse(reportJson(r)) }), file.remove);
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
            'fullName is split into forename and surname, and rows with the same e-mail are one investor (docs/reference/imports.md).',
          querystring: Type.Object({
            ...DryRunQuery.properties,
            columns: Type.Optional(
              Type.String({
                maxLength: 10_000,
                description: 'JSON object: header of the file → column of the investor import (e.g. "fullName", "contact.email", "remoteId") or null',
                examples: ['{"name":"fullName","email":"contact.email","amount":null}'],
              }),
            ),
          }),
          response: { 200: ImportReport, 202: Accepted },
        },
      },
      async (request, reply) => {
        const format = formatOf(request, [CSV, NDJSON]);
        const dryRun = request.query.dryRun === true;
        const columns = request.query.columns === undefined ? undefined : parseColumnMap(request.query.columns);
        if (columns !== undefined && format !== 'csv') throw new AppError('validation', 'A column map applies to a CSV file only', { errors: [{ in: 'query', field: 'columns', detail: 'applies to text/csv only' }] });
        const principal = principalOf(request);
        const file = await spoolBody(request, reply, ctx, format);
        return runImport(request, reply, ctx, file, { kind: 'investors', dryRun, principal }, (input) => importInvestors(ctx, principal, investorRows(input, format, columns), { dryRun }));
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
        formatOf(request, [CSV]);
        const dryRun = request.query.dryRun === true;
        const principal = principalOf(request);
        const file = await spoolBody(request, reply, ctx, 'csv');
        const { dealId } = request.params;
        return runImport(request, reply, ctx, file, { kind: 'moves', dealId, dryRun, principal }, (input) => importMoves(ctx, principal, dealId, moveRows(input), { dryRun }));
      },
    );
  });
}
