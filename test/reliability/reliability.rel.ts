// `npm run test:reliability`: the reliability and security suite (docs/reliability.md). Needs PostgreSQL (the
// shared server gets fresh databases of ours only; the outage check runs its own cluster) and skips,
// saying so, without one. Each check prints its figures; the run ends with one summary table and
// fails on any loss, leak, hang or 5xx. Named *.rel.ts so `npm test` never picks it up.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { accessControl } from './checks/access-control.ts';
import { concurrentMoves } from './checks/concurrent-moves.ts';
import { crashes } from './checks/crashes.ts';
import { groupCrash } from './checks/group-crash.ts';
import { hostileInput } from './checks/hostile-input.ts';
import { imports } from './checks/imports.ts';
import { limits } from './checks/limits.ts';
import { crashRetry, moneyRules } from './checks/money-and-recovery.ts';
import { outage } from './checks/outage.ts';
import { retries } from './checks/retries.ts';
import { destroyAllClusters } from './support/cluster.ts';
import { takeContractMismatches } from './support/http.ts';
import { dropAll, serverUnavailable } from './support/postgres.ts';
import { seed } from './support/random.ts';
import { type CheckResult, record, summaryTable } from './support/report.ts';
import { stopAll } from './support/service.ts';

const unavailable = await serverUnavailable();
if (unavailable) process.stdout.write(`reliability suite skipped: ${unavailable}\n`);

const only = process.env.RELIABILITY_ONLY?.split(',').map((s) => s.trim());
const checks: [string, () => Promise<CheckResult>, number][] = [
  ['1', concurrentMoves, 180_000],
  ['2', retries, 240_000],
  ['3', hostileInput, 900_000],
  ['4', crashes, 900_000],
  ['5', outage, 180_000],
  ['6', accessControl, 180_000],
  ['7', limits, 180_000],
  ['8', imports, 900_000],
  ['money', moneyRules, 180_000],
  ['crash-retry', crashRetry, 300_000],
  ['group-crash', groupCrash, 300_000],
];

describe('reliability and security', { skip: unavailable ?? false }, () => {
  before(() => process.stdout.write(`reliability seed ${seed} (replay with RELIABILITY_SEED=${seed})\n`));
  after(async () => {
    // Even when a check failed half-way: no service process, cluster or database outlives the run.
    await stopAll();
    await dropAll();
    destroyAllClusters();
    process.stdout.write(`\n${summaryTable()}\n\nseed ${seed}\n`);
  });

  for (const [number, run, timeout] of checks) {
    const skip = only && !only.includes(number) ? 'not in RELIABILITY_ONLY' : false;
    test(`check ${number}: ${run.name}`, { timeout, skip }, async () => {
      let result: CheckResult;
      try {
        result = await run();
      } catch (err) {
        // A check that could not finish is a failure of its own, still reported in the table.
        result = { check: `${number} ${run.name}`, figures: {}, failures: [`did not finish: ${(err as Error)?.stack ?? err}`], skipped: [], ms: 0 };
      }
      // Every answer of the check matched openapi.json, or the differences fail it.
      result.failures.push(...takeContractMismatches().map((m) => `contract: ${m}`));
      record(result);
      await stopAll();
      assert.deepEqual(result.failures, [], `${result.check}: ${result.failures.length} failure(s)`);
    });
  }
});
