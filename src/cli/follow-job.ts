// The command line's imports run as import jobs (operations/import-jobs.ts), as big imports over
// HTTP do: the job is on record while it runs (staff see it at GET /imports/jobs/{jobId}, with its
// progress) and keeps its outcome. The command follows its job to the end, drawing its progress on
// a terminal, and answers with the outcome.
import { AppError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { Deps } from '../operations/deps.ts';
import { getImportJob, type ImportJob, jobsSettled, type JobKind, type JobWork, startImportJob } from '../operations/import-jobs.ts';

export async function runAsJob(
  deps: Deps,
  principal: Principal,
  spec: { kind: JobKind; dealId?: string; dryRun: boolean; bytes: number },
  work: JobWork,
): Promise<ImportJob> {
  const started = Date.now();
  let drawn = 0;
  const job = await startImportJob(deps, principal, spec, (progress) =>
    work((p) => {
      progress(p);
      if (process.stderr.isTTY && Date.now() - drawn > 200) {
        drawn = Date.now();
        const of = p.total === null ? '' : ` of ${p.total}`;
        process.stderr.write(`\rimport job ${job.id}: ${p.stage} ${p.done}${of} (${((Date.now() - started) / 1000).toFixed(0)} s)   `);
      }
    }),
  );
  if (process.stderr.isTTY) process.stderr.write(`import job ${job.id} started\n`);
  await jobsSettled();
  if (process.stderr.isTTY) process.stderr.write('\n');
  const done = await getImportJob(deps, principal, job.id);
  // A failed job answers with its problem, even when it kept what was done before the failure.
  if (done.status === 'failed' && done.error) {
    throw new AppError(done.error.kind, done.error.detail, { errors: done.error.errors, extensions: done.error.extensions });
  }
  return done;
}
