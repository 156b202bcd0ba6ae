// Single moves with Idempotency-Keys, many at once (so they commit in groups: operations/move-groups.ts),
// the service SIGKILLed while they run, restarted, and every move retried with its key until it
// gets a final answer. Nothing acknowledged may be lost (each acknowledged move is replayed byte
// for byte), nothing doubled (one event per investor), nothing left unanswered.
import { randomUUID } from 'node:crypto';
import { investorBody } from '../../support/fixtures.ts';
import { workflowBody } from '../../support/workflows.ts';
import { type Answer, caller } from './caller.ts';
import type { Instance } from './service.ts';

export interface GroupCrashOutcome {
  moves: number;
  /** Moves answered 201 before the kill. */
  acknowledged: number;
  /** Moves whose request was cut by the kill (no answer). */
  cut: number;
  failures: string[];
}

export async function killDuringGroupsAndRetry(
  service: Instance,
  token: string,
  options: { moves?: number; concurrency?: number } = {},
): Promise<GroupCrashOutcome> {
  const moves = options.moves ?? 300;
  const concurrency = options.concurrency ?? 30;
  const { call, must } = caller(service, token);

  const dealId = `group-crash-${randomUUID()}`;
  must('PUT deal', await call('PUT', `/deals/deal/${dealId}`, { name: 'Group crash', currency: 'EUR' }), 201);
  must('PUT workflow', await call('PUT', `/deals/deal/${dealId}/workflow`, workflowBody(dealId)), 200, 201);
  const investors = Array.from({ length: moves }, () => `gc-inv-${randomUUID()}`);
  const ndjson = investors.map((id) => JSON.stringify({ id, ...investorBody() })).join('\n');
  must('POST /investors/import', await call('POST', '/investors/import', ndjson, {}, 'application/x-ndjson'), 200);

  // One move per investor, each with its key; a repeat of a move already made would be a 409
  // (the investor is at the step), so a key whose answer was lost shows as such.
  const requests = investors.map((investorUserId, i) => ({
    key: `gc-${randomUUID()}`,
    body: { investorUserId, targetStepId: `${dealId}.interest`, data: { note: `move ${i}` } },
  }));
  const move = (r: (typeof requests)[number]) => call('POST', `/deals/deal/${dealId}/jump-to-step`, r.body, { 'idempotency-key': r.key });

  const acknowledged = new Map<number, Answer>();
  let cut = 0;
  let next = 0;
  let killing: Promise<void> | undefined;
  // The kill comes once a tenth of the moves are acknowledged, with the others in flight or waiting.
  const killAt = Math.max(1, Math.floor(moves / 10));
  const lane = async () => {
    while (next < requests.length && !killing) {
      const index = next++;
      try {
        const answer = await move(requests[index]!);
        if (answer.status === 201) acknowledged.set(index, answer);
        if (acknowledged.size >= killAt) killing ??= service.kill();
      } catch {
        cut++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  await killing;

  await service.restart();
  const failures: string[] = [];
  const restarted = performance.now();
  const retried: Answer[] = [];
  let at = 0;
  const retryLane = async () => {
    while (at < requests.length) {
      const index = at++;
      let answer = await move(requests[index]!);
      while (answer.status === 409 && answer.headers.get('retry-after') && performance.now() - restarted < 90_000) {
        await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after')) * 1000));
        answer = await move(requests[index]!);
      }
      retried[index] = answer;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, retryLane));

  for (const [index, answer] of retried.entries()) {
    if (answer.status !== 201) {
      failures.push(`move ${index}: the retry answered ${answer.status} ${answer.text.slice(0, 200)}`);
      continue;
    }
    const first = acknowledged.get(index);
    if (first && (answer.text !== first.text || answer.headers.get('idempotent-replayed') !== 'true'))
      failures.push(`move ${index}: acknowledged before the kill, but the retry did not replay that answer`);
  }
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
  const ids = new Set(retried.filter((a) => a.status === 201).map((a) => a.json?.id));
  if (ids.size !== moves) failures.push(`${ids.size} distinct events answered for ${moves} moves`);
  return { moves, acknowledged: acknowledged.size, cut, failures };
}
