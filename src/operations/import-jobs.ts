// Import jobs: an import that runs after its request has been answered (202 Accepted with the
// job's Location), so that no connection has to stay open for the length of a long import, and
// the caller learns the outcome whatever the time it takes. A job is a row of import_jobs: created
// `running`, its progress and heartbeat renewed every JOB_HEARTBEAT_MS while it runs, then
// `succeeded` or `failed` with its outcome, once.
//
// A process that stops (a crash, a deploy) while a job runs leaves it `running` with a heartbeat
// that no longer moves: once the heartbeat is older than JOB_STALE_MS the job is reported `failed`
// (the outcome says the import was interrupted), when it is read and when a process starts. It is
// not resumed: its file was held by the process that stopped. Every import may be sent again
// safely (a statement already on file finishes its pending lines and adds nothing; investor and
// move rows already applied are `unchanged`), which is what the outcome tells the caller to do.
import { AppError, type FieldError, notFound } from '../domain/errors.ts';
import { actorOf, isStaff, type Principal } from '../domain/principal.ts';
import * as store from '../store/import-jobs.ts';
import type { Deps } from './deps.ts';
import { count, emptySummary, type ImportSummary, type RowReport } from './imports.ts';

export const jobKinds = ['statement', 'investors', 'moves'] as const;
export type JobKind = (typeof jobKinds)[number];
export const jobStatuses = ['running', 'succeeded', 'failed'] as const;
export type JobStatus = (typeof jobStatuses)[number];

/** How often a running job writes its progress and heartbeat. */
export const JOB_HEARTBEAT_MS = 2000;
/** A running job whose heartbeat is older than this belongs to a process that stopped. */
export const JOB_STALE_MS = 30_000;

/** What a job has done so far: rows (investors, moves) or statement lines handled. */
export interface JobProgress {
  /** parsing, storing, matching (statements); reading (investor and move files); done. */
  stage: string;
  done: number;
  /** When known (a statement's lines once parsed). */
  total: number | null;
}

/** A failure as kept with the job: the AppError's kind, detail and members (rendered as a problem by http). */
export interface JobError {
  kind: AppError['kind'];
  detail: string;
  errors?: FieldError[];
  extensions?: Record<string, unknown>;
}

export interface ImportJob {
  id: string;
  kind: JobKind;
  dealId: string | null;
  dryRun: boolean;
  createdBy: string;
  status: JobStatus;
  bytes: number;
  progress: JobProgress;
  /** Succeeded: the import's outcome (as the synchronous request answers it). */
  outcome: unknown;
  /** Failed: why. */
  error: JobError | null;
  createdAt: string;
  finishedAt: string | null;
}

type Stored = { outcome?: unknown; error?: JobError } | null;

const view = (job: store.StoredJob): ImportJob => {
  const result = job.result as Stored;
  return {
    id: job.id,
    kind: job.kind as JobKind,
    dealId: job.dealId,
    dryRun: job.dryRun,
    createdBy: job.createdBy,
    status: job.status as JobStatus,
    bytes: job.bytes,
    progress: job.progress as JobProgress,
    outcome: result?.outcome ?? null,
    error: result?.error ?? null,
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
};

export const errorOfJob = (err: unknown): JobError =>
  err instanceof AppError
    ? { kind: err.kind, detail: err.message, ...(err.errors ? { errors: err.errors } : {}), ...(err.extensions ? { extensions: err.extensions } : {}) }
    : { kind: 'internal', detail: 'The import failed on an unexpected error' };

const interrupted = (): Stored => ({
  error: {
    kind: 'database-unavailable',
    detail:
      'The import was interrupted: the process running it stopped before it finished. Send the file again: rows already applied are reported unchanged, nothing is applied twice.',
    extensions: { interrupted: true },
  },
});

/**
 * Reports failed the running jobs whose process stopped: heartbeat older than JOB_STALE_MS, or
 * with `all` every running job (at the start of the only process of an embedded database, any job
 * still running was left by one that stopped).
 */
export async function failStaleJobs(deps: Deps, options: { all?: boolean } = {}): Promise<string[]> {
  const now = deps.clock();
  return store.failStaleJobs(deps.db, options.all ? new Date(now.getTime() + 1) : new Date(now.getTime() - JOB_STALE_MS), interrupted(), now);
}

/**
 * A job as its creator (or staff) may see it. An investor sees only jobs they created: any other
 * is "does not exist", so that no one learns of jobs not theirs.
 */
export async function getImportJob(deps: Deps, principal: Principal, id: string): Promise<ImportJob> {
  let job = await store.findJob(deps.db, id);
  if (!job || (!isStaff(principal) && job.createdBy !== actorOf(principal))) throw notFound('Import job', id);
  if (job.status === 'running' && deps.clock().getTime() - job.heartbeatAt.getTime() > JOB_STALE_MS) {
    await failStaleJobs(deps);
    job = (await store.findJob(deps.db, id))!;
  }
  return view(job);
}

/** The work of a job: reports progress as it goes; resolves with the outcome, or throws the failure. */
export type JobWork = (progress: (p: JobProgress) => void) => Promise<{ outcome: unknown; failed?: JobError }>;

const running = new Set<Promise<void>>();

/** Resolves once every job this process started has finished (for an orderly shutdown and tests). */
export async function jobsSettled(): Promise<void> {
  while (running.size > 0) await Promise.allSettled([...running]);
}

/**
 * Creates a running job and starts `work` in the background; returns the job as created. The
 * outcome is written when the work ends; `cleanup` runs after it whatever happens.
 */
export async function startImportJob(
  deps: Deps,
  principal: Principal,
  spec: { kind: JobKind; dealId?: string; dryRun: boolean; bytes: number },
  work: JobWork,
  cleanup: () => Promise<void> = async () => {},
): Promise<ImportJob> {
  const id = deps.newId();
  let progress: JobProgress = { stage: 'queued', done: 0, total: null };
  const job = await store.insertJob(deps.db, {
    id,
    kind: spec.kind,
    dealId: spec.dealId ?? null,
    dryRun: spec.dryRun,
    createdBy: actorOf(principal),
    bytes: spec.bytes,
    progress,
    createdAt: deps.clock(),
  });
  const task = (async () => {
    const beat = setInterval(() => {
      store.touchJob(deps.db, id, progress, deps.clock()).catch(() => {});
    }, JOB_HEARTBEAT_MS);
    beat.unref();
    try {
      let outcome: { status: 'succeeded' | 'failed'; result: Stored };
      try {
        const done = await work((p) => {
          progress = p;
        });
        outcome = done.failed
          ? { status: 'failed', result: { outcome: done.outcome, error: done.failed } }
          : { status: 'succeeded', result: { outcome: done.outcome } };
      } catch (err) {
        outcome = { status: 'failed', result: { error: errorOfJob(err) } };
      }
      clearInterval(beat);
      progress = { ...progress, stage: 'done' };
      await store.finishJob(deps.db, id, { status: outcome.status, progress, result: outcome.result }, deps.clock()).catch(() => {});
    } finally {
      clearInterval(beat);
      await cleanup().catch(() => {});
    }
  })();
  running.add(task);
  void task.finally(() => running.delete(task));
  return view(job);
}

/** Refused rows an investor or move import job keeps in its report; the summary counts them all. */
export const JOB_REFUSED_ROWS = 1000;

/** The outcome of an investor or move import job: the summary, and its first refused rows. */
export interface ImportRowsOutcome {
  dryRun: boolean;
  rows: unknown[];
  summary: ImportSummary;
}

/**
 * The work of an investor or move import job, for the HTTP import and the command line alike: reads
 * the row reports to the end, counting the summary, keeping the first JOB_REFUSED_ROWS refused rows
 * (as `keep` renders them) and reporting progress after each row; `onRow` sees every row as it
 * goes. A failure part-way ends the job failed with what was done before it.
 */
export async function importRowsJob(
  reports: AsyncIterable<RowReport>,
  progress: (p: JobProgress) => void,
  options: { dryRun: boolean; keep: (report: RowReport) => unknown; onRow?: (report: RowReport) => void },
): Promise<{ outcome: ImportRowsOutcome; failed?: JobError }> {
  const summary = emptySummary();
  const rows: unknown[] = [];
  const outcome = { dryRun: options.dryRun, rows, summary };
  try {
    for await (const report of reports) {
      count(summary, report);
      if (report.outcome === 'refused' && rows.length < JOB_REFUSED_ROWS) rows.push(options.keep(report));
      options.onRow?.(report);
      progress({ stage: 'reading', done: summary.rows, total: null });
    }
  } catch (err) {
    return { outcome, failed: errorOfJob(err) };
  }
  return { outcome };
}
