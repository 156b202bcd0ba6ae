// The crash-retry scenario, shared by test/idempotency/crash-retry.test.ts (PGlite and PostgreSQL)
// and the reliability suite's crash-retry check: a bulk move with an Idempotency-Key, the service
// SIGKILLed while the batch runs, restarted, and the same request retried (honouring 409 and
// Retry-After) until it gets its final answer. Measures how long after the restart that answer came,
// and checks the batch was applied exactly once.
import { randomUUID } from 'node:crypto';
import { investorBody } from '../../support/fixtures.ts';
import { workflowBody } from '../../support/workflows.ts';
import { type Answer, caller } from './caller.ts';
import type { Instance } from './service.ts';

export interface CrashRetryOutcome {
  /** From the restarted service's readiness to the retry's final answer. */
  elapsedMs: number;
  /** 409s the retry got before it. */
  conflicts: number;
  /** How long after sending the batch the service was killed. */
  killedAfterMs: number;
  failures: string[];
}

/**
 * Runs the scenario on `service` (restarted in place). `keyStatus` reads the key's row while the
 * service is down. Undefined when every kill came after the batch had committed (nothing caught).
 */
export async function killMidBulkAndRetry(
  service: Instance,
  token: string,
  keyStatus: (key: string) => Promise<string | undefined>,
  moves = 1000,
): Promise<CrashRetryOutcome | undefined> {
  const { call, must } = caller(service, token);

  // A kill after the batch committed tests nothing: then again with new investors and an earlier kill.
  for (let attempt = 0, delayMs = 400; attempt < 4; attempt++, delayMs = Math.max(50, delayMs / 2)) {
    const dealId = `crash-${randomUUID()}`;
    must('PUT deal', await call('PUT', `/deals/deal/${dealId}`, { name: 'Crash retry', currency: 'EUR' }), 201);
    must('PUT workflow', await call('PUT', `/deals/deal/${dealId}/workflow`, workflowBody(dealId)), 200, 201);
    const investors = Array.from({ length: moves }, () => `crash-inv-${randomUUID()}`);
    const ndjson = investors.map((id) => JSON.stringify({ id, ...investorBody() })).join('\n');
    must('POST /investors/import', await call('POST', '/investors/import', ndjson, {}, 'application/x-ndjson'), 200);

    const key = `bulk-${randomUUID()}`;
    const body = { moves: investors.map((investorUserId) => ({ investorUserId, targetStepId: `${dealId}.interest`, data: {} })) };
    const bulk = () => call('POST', `/deals/deal/${dealId}/jump-to-step/bulk`, body, { 'idempotency-key': key });
    const first = bulk().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    await service.kill();
    await first;
    if ((await keyStatus(key)) !== 'in-progress') continue;

    await service.restart();
    const restarted = performance.now();
    const failures: string[] = [];
    let answer: Answer;
    let conflicts = 0;
    for (;;) {
      answer = await bulk();
      if (answer.status !== 409) break;
      conflicts++;
      if (performance.now() - restarted > 90_000) {
        failures.push('the retry was still refused 90 s after the restart');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? 1) * 1000));
    }
    const elapsedMs = performance.now() - restarted;
    if (answer.status !== 200) failures.push(`the retry's answer: ${answer.status} ${answer.text.slice(0, 300)}`);
    else {
      const results = answer.json?.results ?? [];
      if (results.length !== moves || !results.every((r: any) => r.status === 201)) failures.push(`the retry's answer is not ${moves} moves made`);
      const replay = await bulk();
      if (replay.headers.get('idempotent-replayed') !== 'true' || replay.text !== answer.text) failures.push('a further retry does not replay the answer');
      let events = 0;
      for (let page = 1; ; page++) {
        const listed = await call('GET', `/deals/deal/${dealId}/all-investor-workflows?limit=100&page=${page}`);
        for (const entry of listed.json.output) {
          if (entry.journey.length !== 1) failures.push(`investor ${entry.investor.id} has ${entry.journey.length} events`);
          events += entry.journey.length;
        }
        if (page >= listed.json.totalPages) break;
      }
      if (events !== moves) failures.push(`${events} events for ${moves} moves`);
    }
    return { elapsedMs, conflicts, killedAfterMs: delayMs, failures };
  }
  return undefined;
}
