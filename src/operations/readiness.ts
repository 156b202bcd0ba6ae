// Whether this instance can serve: the database answers a statement (GET /readyz). A failure is a
// value, not a throw: the probe answers 503 with the reason, and nothing is logged as an error.
import type { Deps } from './deps.ts';
import { ping } from '../store/readiness.ts';

export type DatabaseReadiness = { answers: true } | { answers: false; reason: string };

export async function checkDatabase(deps: Pick<Deps, 'db'>): Promise<DatabaseReadiness> {
  try {
    await ping(deps.db);
    return { answers: true };
  } catch (err) {
    return { answers: false, reason: (err as Error).message };
  }
}
