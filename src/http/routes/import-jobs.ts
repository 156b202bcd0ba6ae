// GET /imports/jobs/{jobId}: an import that answered 202 Accepted (a statement, an investor or a
// move file above IMPORT_JOB_THRESHOLD, or sent with `Prefer: respond-async`), followed to its end.
// Also the pieces the import routes share: when to answer with a job, the 202 itself, and holding
// the connection open while a synchronous import works.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { getImportJob, type ImportJob as ImportJobView } from '../../operations/import-jobs.ts';
import type { Api, AppContext } from '../context.ts';
import { principalOf } from '../auth.ts';
import { problemOf } from '../problems.ts';
import { ExternalId, Timestamp } from '../schemas/common.ts';
import { StatementImport } from '../schemas/payments.ts';
import { ImportJobProblem } from '../schemas/problems.ts';
import { ImportReport } from './import-report.ts';

export const ImportJob = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    kind: Type.Union([Type.Literal('statement'), Type.Literal('investors'), Type.Literal('moves')]),
    dealId: Type.Union([ExternalId, Type.Null()], { description: 'moves: the deal' }),
    dryRun: Type.Boolean(),
    status: Type.Union([Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
    bytes: Type.Integer({ description: 'size of the file sent' }),
    progress: Type.Object({
      stage: Type.String({ description: 'queued, parsing, storing, matching (statements), reading (investor and move files), done' }),
      done: Type.Integer({ description: 'rows handled (investor and move files); statement lines at the end of a stage' }),
      total: Type.Union([Type.Integer(), Type.Null()], { description: "statements: the file's lines, once parsed" }),
    }),
    statementImport: Type.Optional(StatementImport),
    report: Type.Optional(ImportReport),
    problem: Type.Optional(ImportJobProblem),
    createdAt: Timestamp,
    finishedAt: Type.Union([Timestamp, Type.Null()]),
  },
  {
    $id: 'ImportJob',
    title: 'ImportJob',
    description:
      'running, then succeeded (statementImport: what a synchronous statement import answers; report: the summary of an investor or move ' +
      'file, with its refused rows, at most 1,000) or failed (problem: why; report: what was done before, for investor and move files). A job ' +
      'whose process stopped is failed with problem.interrupted = true: send the file again.',
  },
);

export function jobJson(job: ImportJobView) {
  const outcome = job.outcome as Record<string, unknown> | null;
  return {
    id: job.id,
    kind: job.kind,
    dealId: job.dealId,
    dryRun: job.dryRun,
    status: job.status,
    bytes: job.bytes,
    progress: job.progress,
    ...(outcome && job.kind === 'statement' ? { statementImport: outcome } : {}),
    ...(outcome && job.kind !== 'statement' ? { report: outcome } : {}),
    ...(job.error
      ? { problem: problemOf(new AppError(job.error.kind, job.error.detail, { errors: job.error.errors, extensions: job.error.extensions })) }
      : {}),
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
  };
}

/** Whether the client asked for an asynchronous answer (RFC 7240 `Prefer: respond-async`). */
export const prefersAsync = (request: FastifyRequest) =>
  String(request.headers.prefer ?? '')
    .split(',')
    .some((p) => p.trim().toLowerCase().split(';')[0] === 'respond-async');

/** 202 Accepted with the job's Location (and RFC 7240's Preference-Applied when it was asked for). */
export function acceptJob(request: FastifyRequest, reply: FastifyReply, ctx: AppContext, job: ImportJobView) {
  if (prefersAsync(request)) reply.header('Preference-Applied', 'respond-async');
  return reply.code(202).header('Location', `${ctx.config.basePath}/imports/jobs/${job.id}`).header('Retry-After', '1').send(jobJson(job));
}

/**
 * A synchronous import answers when it is done, however long that is: the body has arrived, so
 * the socket's idle timeout (connectionTimeout, REQUEST_TIMEOUT_MS), which guards against clients
 * that send slowly, must not cut the connection while the import works and writes nothing yet.
 * Node sets the socket's timeouts again for the next request on the connection.
 */
export function holdConnection(request: FastifyRequest) {
  const socket = request.raw.socket as { setTimeout?: (ms: number) => void } | undefined;
  if (typeof socket?.setTimeout === 'function') socket.setTimeout(0);
}

/** The 202 answer of the import routes, for their OpenAPI documents. */
export const Accepted = ImportJob;

export function importJobRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/imports/jobs/:jobId',
    {
      // Only staff start imports (the import routes are admin routes), so only staff follow them: an
      // investor is refused every id alike, learning nothing of which exist.
      config: { roles: ['admin'] },
      schema: {
        tags: ['management'],
        operationId: 'getImportJob',
        summary: 'An import job: its progress while it runs, then its outcome',
        description: 'Staff (admin) only, as the imports that start jobs are; an unknown id is a 404.',
        params: Type.Object({ jobId: Type.String({ format: 'uuid' }) }),
        response: { 200: ImportJob },
      },
    },
    async (request, reply) => {
      const job = await getImportJob(ctx, principalOf(request), request.params.jobId);
      if (job.status === 'running') reply.header('Retry-After', '1');
      return jobJson(job) as never;
    },
  );
}
