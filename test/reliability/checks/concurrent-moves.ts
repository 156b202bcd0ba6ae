// Check 1, concurrent moves: two service instances on one database, 500 jump requests over 20
// investors fired at once, half of them conditional (`expectedCurrentStepId`, a guess that is often
// stale). Every request must be applied (201) or refused (409); every journey must stay linear;
// every applied request must be exactly one stored event, and nothing else stored.
import { createClient, type Received } from '../support/http.ts';
import { seedDeal } from '../support/fixtures.ts';
import { journeyFailures, journeys } from '../support/integrity.ts';
import { freshDatabase } from '../support/postgres.ts';
import { rng, seed } from '../support/random.ts';
import { newResult, type CheckResult } from '../support/report.ts';
import { startInstance } from '../support/service.ts';

const REQUESTS = 500;
const INVESTORS = 20;

export async function concurrentMoves(): Promise<CheckResult> {
  const result = newResult('1 concurrent moves');
  const started = performance.now();
  const db = await freshDatabase('moves');
  try {
    // A generous database timeout: 250 requests queue for each instance's 10 connections.
    const env = { DATABASE_TIMEOUT_MS: '30000' };
    const [a, b] = await Promise.all([startInstance({ databaseUrl: db.url, env }), startInstance({ databaseUrl: db.url, env })]);
    const clients = [createClient(a.url, { maxSockets: 256 }), createClient(b.url, { maxSockets: 256 })];
    const deal = await seedDeal(clients[0]!, db.adminToken, INVESTORS);
    if (!deal.workflow) {
      result.skipped.push('PUT /deals/deal/{dealId}/workflow is not served by this build');
      return result;
    }
    const random = rng(seed + 1);
    const positions: (string | null)[] = [null, ...deal.chain];
    const requests = Array.from({ length: REQUESTS }, (_, i) => {
      const body: Record<string, unknown> = { investorUserId: deal.investors[i % INVESTORS]!, targetStepId: random.pick(deal.chain), data: {} };
      if (i % 2 === 0) body.expectedCurrentStepId = random.pick(positions);
      return body;
    });
    const responses: Received[] = await Promise.all(
      requests.map((body, i) => clients[i % 2]!.post(`/deals/deal/${deal.dealId}/jump-to-step`, body, db.adminToken)),
    );
    const applied = new Map<string, { request: Record<string, unknown>; event: any }>();
    let refused = 0;
    let other = 0;
    let slowest = 0;
    responses.forEach((response, i) => {
      slowest = Math.max(slowest, response.ms);
      if (response.status === 201) {
        const event = response.json;
        if (applied.has(event?.id)) result.failures.push(`event ${event.id} returned twice`);
        applied.set(event?.id, { request: requests[i]!, event });
      } else if (response.status === 409) refused++;
      else {
        other++;
        if (other <= 5) result.failures.push(`request ${i}: ${response.status} ${response.error ?? ''} ${response.text.slice(0, 300)}`);
      }
    });
    if (other > 5) result.failures.push(`${other} requests neither applied nor refused with 409`);

    const stored = await journeys(db.pool, [deal.dealId]);
    const storedIds = new Set<string>();
    let duplicates = 0;
    for (const events of stored.values()) for (const e of events) storedIds.has(e.id) ? duplicates++ : storedIds.add(e.id);
    const lost = [...applied.keys()].filter((id) => !storedIds.has(id));
    const unacknowledged = [...storedIds].filter((id) => !applied.has(id));
    if (lost.length) result.failures.push(`${lost.length} applied moves not stored, e.g. ${lost[0]}`);
    if (unacknowledged.length) result.failures.push(`${unacknowledged.length} stored events no request was told about`);
    if (duplicates) result.failures.push(`${duplicates} duplicated events`);
    // A conditional move that was applied must have come from the position it expected.
    for (const { request, event } of applied.values()) {
      if ('expectedCurrentStepId' in request && event.fromStepId !== request.expectedCurrentStepId) {
        result.failures.push(`conditional move expected ${request.expectedCurrentStepId}, applied from ${event.fromStepId}`);
      }
    }
    result.failures.push(...(await journeyFailures(db.pool, [deal.dealId])));
    result.figures = {
      instances: 2,
      investors: INVESTORS,
      requests: REQUESTS,
      applied: applied.size,
      'refused 409': refused,
      other,
      'events stored': storedIds.size,
      'slowest ms': Math.round(slowest),
    };
    for (const c of clients) c.close();
    await Promise.all([a.stop(), b.stop()]);
    return result;
  } finally {
    result.ms = performance.now() - started;
    await db.drop();
  }
}
