// Whether this instance can serve: a write commits on the database (GET /readyz). A failure is a
// value, not a throw: the probe answers 503 with the reason, and nothing is logged as an error.
//
// The answer is bounded (READINESS_BOUND_MS): a load balancer probing with a short timeout gets a
// 503, not a timeout, when the database hangs. A commit can hang where a read answers (a
// synchronous standby that is gone, as on a restored copy of a formation's node), so the probe
// commits, and at most one such commit per database is in flight: probes that arrive while it
// hangs report how long it has been waiting instead of piling more onto the pool.
import type { Deps } from './deps.ts';
import { commitHeartbeat } from '../store/readiness.ts';
import type { Db } from '../store/schema.ts';

export type DatabaseReadiness = { answers: true } | { answers: false; reason: string };

/** How long after its arrival /readyz has answered, 503 when the database has not shown it commits. */
export const READINESS_BOUND_MS = 1000;
/** Of that bound, the part kept for writing the answer after the last wait. */
export const READINESS_ANSWER_MS = 150;

interface Heartbeat {
  startedAt: number;
  done: Promise<DatabaseReadiness>;
}

const inFlight = new WeakMap<Db, Heartbeat>();

export async function checkDatabase(deps: Pick<Deps, 'db'>, boundMs = READINESS_BOUND_MS): Promise<DatabaseReadiness> {
  let beat = inFlight.get(deps.db);
  if (beat === undefined) {
    const started: Heartbeat = {
      startedAt: Date.now(),
      done: commitHeartbeat(deps.db).then(
        (): DatabaseReadiness => ({ answers: true }),
        (err: unknown): DatabaseReadiness => ({ answers: false, reason: (err as Error).message }),
      ),
    };
    started.done.finally(() => inFlight.delete(deps.db));
    inFlight.set(deps.db, started);
    beat = started;
  }
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, boundMs));
  });
  try {
    const answer = await Promise.race([beat.done, bound]);
    return answer ?? { answers: false, reason: `a commit has not completed in ${Date.now() - beat.startedAt} ms` };
  } finally {
    clearTimeout(timer);
  }
}

/** `work`'s result, or `fallback` when it has not settled within `ms` (or failed). */
export async function within<T>(ms: number, work: Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), Math.max(0, ms));
  });
  try {
    return await Promise.race([work.catch(() => fallback), bound]);
  } finally {
    clearTimeout(timer);
  }
}
