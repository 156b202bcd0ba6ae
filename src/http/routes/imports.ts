// POST /investors/import and POST /deals/deal/{dealId}/jump-to-step/import: streamed imports. The
// body (text/csv, or application/x-ndjson for investors) is handed on as a stream, not buffered;
// the answer is a JSON report written as the rows are handled: one entry per row, in file order,
// then the summary. A problem found before the first row (bad header, unknown media type) is an
// ordinary problem response; one found later (the CSV breaks off) ends the report with `error`.
import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { errorOf } from '../../operations/bulk-moves.ts';
import { count, emptySummary, importInvestors, importMoves, importOutcomes, type RowReport } from '../../operations/imports.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { errorToProblem } from '../errors.ts';
import { type ImportFormat, investorRows, moveRows } from '../import-streams.ts';
import { problemOf } from '../problems.ts';
import { ExternalId } from '../schemas/common.ts';
import { DryRunQuery, MoveProblem } from './bulk-moves.ts';

const CSV = 'text/csv';
const NDJSON = 'application/x-ndjson';

const RowReportSchema = Type.Object({
  row: Type.Integer({ description: 'data row, from 1' }),
  id: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.Union(importOutcomes.map((o) => Type.Literal(o))),
  errors: Type.Optional(Type.Array(Type.Object({ in: Type.String(), field: Type.String(), detail: Type.String() }))),
  problem: Type.Optional(MoveProblem),
  eventId: Type.Optional(Type.String()),
});

const ImportReport = Type.Object({
  dryRun: Type.Boolean(),
  rows: Type.Array(RowReportSchema),
  summary: Type.Object({ rows: Type.Integer(), created: Type.Integer(), updated: Type.Integer(), unchanged: Type.Integer(), refused: Type.Integer() }),
  error: Type.Optional(MoveProblem),
});

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
async function sendReport(reply: FastifyReply, reports: AsyncGenerator<RowReport>, dryRun: boolean) {
  const first = await reports.next();
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
            'text/csv with the column map of the README (the columns of the all-transactions CSV export), or application/x-ndjson with one ' +
            'PUT /investors body plus "id" per line. Each row: created, updated, unchanged (equal to the stored entry: nothing written) or ' +
            'refused (errors name the fields). ?dryRun=true: the same report, nothing written.',
          querystring: DryRunQuery,
          response: { 200: ImportReport },
        },
      },
      async (request, reply) => {
        const format = formatOf(request, [CSV, NDJSON]);
        const dryRun = request.query.dryRun === true;
        return sendReport(reply, importInvestors(ctx, principalOf(request), investorRows(request.body as Readable, format), { dryRun }), dryRun);
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
          response: { 200: ImportReport },
        },
      },
      async (request, reply) => {
        formatOf(request, [CSV]);
        const dryRun = request.query.dryRun === true;
        return sendReport(reply, importMoves(ctx, principalOf(request), request.params.dealId, moveRows(request.body as Readable), { dryRun }), dryRun);
      },
    );
  });
}
