// Check group-crash: 1,000 single moves with Idempotency-Keys, 50 at a time, committing in groups;
// the service SIGKILLed a tenth of the way, restarted, every move retried with its key. Nothing
// acknowledged lost, nothing made twice (test/reliability/support/group-crash.ts).
import { killDuringGroupsAndRetry } from '../support/group-crash.ts';
import { freshDatabase } from '../support/postgres.ts';
import { newResult, type CheckResult } from '../support/report.ts';
import { startInstance } from '../support/service.ts';

export async function groupCrash(): Promise<CheckResult> {
  const result = newResult('group-crash');
  const started = performance.now();
  const db = await freshDatabase('groupcrash');
  try {
    const service = await startInstance({ databaseUrl: db.url });
    const outcome = await killDuringGroupsAndRetry(service, db.adminToken, { moves: 1000, concurrency: 50 });
    result.failures.push(...outcome.failures);
    if (outcome.acknowledged === 0 || outcome.acknowledged === outcome.moves) result.failures.push('the kill did not come while moves were running');
    result.figures['moves'] = outcome.moves;
    result.figures['acknowledged before the kill'] = outcome.acknowledged;
    result.figures['cut by the kill'] = outcome.cut;
    await service.stop();
  } finally {
    result.ms = performance.now() - started;
    await db.drop();
  }
  return result;
}
