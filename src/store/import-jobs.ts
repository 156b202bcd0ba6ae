// Import jobs (migration 0023): created running, their progress and heartbeat renewed while they
// run, finished once with their outcome.
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface StoredJob {
  id: string;
  kind: string;
  dealId: string | null;
  dryRun: boolean;
  createdBy: string;
  status: string;
  bytes: number;
  progress: unknown;
  result: unknown;
  createdAt: Date;
  heartbeatAt: Date;
  finishedAt: Date | null;
}

type Row = DB['import_jobs'];

const toJob = (r: Row): StoredJob => ({
  id: r.id,
  kind: r.kind,
  dealId: r.deal_id,
  dryRun: r.dry_run,
  createdBy: r.created_by,
  status: r.status,
  bytes: Number(r.bytes),
  progress: r.progress,
  result: r.result,
  createdAt: r.created_at,
  heartbeatAt: r.heartbeat_at,
  finishedAt: r.finished_at,
});

export async function insertJob(db: Kysely<DB>, job: Omit<StoredJob, 'result' | 'finishedAt' | 'heartbeatAt' | 'status'>): Promise<StoredJob> {
  const row = await db
    .insertInto('import_jobs')
    .values({
      id: job.id,
      kind: job.kind,
      deal_id: job.dealId,
      dry_run: job.dryRun,
      created_by: job.createdBy,
      status: 'running',
      bytes: job.bytes,
      progress: JSON.stringify(job.progress),
      result: null,
      created_at: job.createdAt,
      heartbeat_at: job.createdAt,
      finished_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toJob(row);
}

export async function findJob(db: Kysely<DB>, id: string): Promise<StoredJob | undefined> {
  const row = await db.selectFrom('import_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toJob(row);
}

/** Renews a running job's heartbeat and progress. */
export async function touchJob(db: Kysely<DB>, id: string, progress: unknown, at: Date): Promise<void> {
  await db
    .updateTable('import_jobs')
    .set({ progress: JSON.stringify(progress), heartbeat_at: at })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .execute();
}

/** Finishes a running job; false when it was finished already (e.g. reported failed as stale). */
export async function finishJob(
  db: Kysely<DB>,
  id: string,
  outcome: { status: 'succeeded' | 'failed'; progress: unknown; result: unknown },
  at: Date,
): Promise<boolean> {
  const done = await db
    .updateTable('import_jobs')
    .set({ status: outcome.status, progress: JSON.stringify(outcome.progress), result: JSON.stringify(outcome.result), heartbeat_at: at, finished_at: at })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

/** Running jobs whose heartbeat is older than `before`: marks them failed with `result`; returns their ids. */
export async function failStaleJobs(db: Kysely<DB>, before: Date, result: unknown, at: Date): Promise<string[]> {
  const rows = await db
    .updateTable('import_jobs')
    .set({ status: 'failed', result: JSON.stringify(result), finished_at: at })
    .where('status', '=', 'running')
    .where('heartbeat_at', '<', before)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
