// Check 2, retries: 200 idempotency keys × 5 concurrent identical requests each, spread over two
// instances, on subscriptions and on jumps. Exactly one effect per key; every answer is the first
// response (201), its replay (`Idempotent-Replayed: true`, same body) or a 409 "still running";
// and a later retry of every key replays the very same response.
import { randomUUID } from 'node:crypto';
import { createClient, type Client, type Received, sleep } from '../support/http.ts';
import { seedAsset, seedDeal, seedInvestor, subscriptionBody } from '../support/fixtures.ts';
import { journeyFailures } from '../support/integrity.ts';
import { findTable, freshDatabase, type FreshDatabase } from '../support/postgres.ts';
import { newResult, type CheckResult } from '../support/report.ts';
import { startInstance } from '../support/service.ts';

const KEYS = 200;
const RETRIES = 5;

interface KeyOutcome {
  key: string;
  responses: Received[];
}

async function storm(clients: Client[], token: string, path: string, bodies: unknown[]): Promise<KeyOutcome[]> {
  const keys = bodies.map(() => `rel-${randomUUID()}`);
  const all = await Promise.all(
    bodies.flatMap((body, k) =>
      Array.from({ length: RETRIES }, (_, r) =>
        clients[(k + r) % clients.length]!.post(path, body, token, { 'idempotency-key': keys[k]! }).then((response) => ({ k, response })),
      ),
    ),
  );
  const outcomes = keys.map((key) => ({ key, responses: [] as Received[] }));
  for (const { k, response } of all) outcomes[k]!.responses.push(response);
  return outcomes;
}

/** Tallies a storm; returns the first response body of every key. */
function tally(outcomes: KeyOutcome[], result: CheckResult, label: string) {
  let firsts = 0;
  let replays = 0;
  let inFlight = 0;
  const firstBody = new Map<string, any>();
  for (const { key, responses } of outcomes) {
    for (const r of responses) {
      if (r.status === 201 && r.headers['idempotent-replayed'] === 'true') replays++;
      else if (r.status === 201) {
        firsts++;
        if (firstBody.has(key)) result.failures.push(`${label}: key ${key} ran twice (two first responses)`);
        firstBody.set(key, r.json);
      } else if (r.status === 409) inFlight++;
      else result.failures.push(`${label}: key ${key}: ${r.status} ${r.error ?? ''} ${r.text.slice(0, 200)}`);
    }
    const replayed = responses.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === 'true');
    for (const r of replayed) {
      if (firstBody.has(key) && JSON.stringify(r.json) !== JSON.stringify(firstBody.get(key))) {
        result.failures.push(`${label}: key ${key}: a replay differs from the first response`);
      }
    }
  }
  return { firsts, replays, inFlight, firstBody };
}

/** Keys whose storm got only 409s are retried until they run, as a client would (bounded). */
async function settle(
  client: Client,
  token: string,
  path: string,
  outcomes: KeyOutcome[],
  bodies: unknown[],
  first: Map<string, any>,
  result: CheckResult,
  label: string,
) {
  let finalReplays = 0;
  for (const [k, { key }] of outcomes.entries()) {
    let response: Received | undefined;
    for (let attempt = 0; attempt < 5; attempt++) {
      response = await client.post(path, bodies[k], token, { 'idempotency-key': key });
      if (response.status !== 409) break;
      await sleep(50 * (attempt + 1));
    }
    if (response?.status !== 201) {
      result.failures.push(`${label}: a later retry of ${key} got ${response?.status} ${response?.text.slice(0, 200)}`);
      continue;
    }
    if (first.has(key)) {
      if (response.headers['idempotent-replayed'] !== 'true') result.failures.push(`${label}: a later retry of ${key} was not a replay`);
      else if (JSON.stringify(response.json) !== JSON.stringify(first.get(key))) result.failures.push(`${label}: the replay of ${key} differs`);
      else finalReplays++;
    } else first.set(key, response.json);
  }
  return finalReplays;
}

export async function retries(): Promise<CheckResult> {
  const result = newResult('2 retries');
  const started = performance.now();
  let db: FreshDatabase | undefined;
  try {
    db = await freshDatabase('retries');
    const env = { DATABASE_TIMEOUT_MS: '30000' };
    const [a, b] = await Promise.all([startInstance({ databaseUrl: db.url, env }), startInstance({ databaseUrl: db.url, env })]);
    const clients = [createClient(a.url, { maxSockets: 256 }), createClient(b.url, { maxSockets: 256 })];
    const admin = db.adminToken;

    // Subscriptions.
    const assetId = await seedAsset(clients[0]!, admin);
    const subscriptions = await findTable(db.pool, 'subscription');
    if (assetId === undefined || !subscriptions) result.skipped.push('subscriptions: PUT /portfolio/assets/{assetId} is not served by this build');
    else {
      const investor = await seedInvestor(clients[0]!, admin);
      const sourceIds = Array.from({ length: KEYS }, (_, i) => `rel-src-${i}-${randomUUID().slice(0, 8)}`);
      const bodies = sourceIds.map((s, i) => subscriptionBody(assetId, investor, s, 1 + (i % 7)));
      const path = '/portfolio/transactions/subscriptions';
      const outcomes = await storm(clients, admin, path, bodies);
      const t = tally(outcomes, result, 'subscriptions');
      const finalReplays = await settle(clients[1]!, admin, path, outcomes, bodies, t.firstBody, result, 'subscriptions');
      const { rows } = await db.pool.query(`select source_id, count(*)::int as n from ${subscriptions} where source_id = any($1) group by source_id`, [
        sourceIds,
      ]);
      const effects = rows.reduce((n, r) => n + r.n, 0);
      for (const r of rows) if (r.n !== 1) result.failures.push(`subscriptions: ${r.n} effects for one key (source_id ${r.source_id})`);
      if (rows.length !== KEYS) result.failures.push(`subscriptions: ${KEYS - rows.length} keys without their effect`);
      // The same key with another body is refused (422), and changes nothing.
      const other = await clients[0]!.post(path, { ...bodies[0]!, description: 'changed' }, admin, { 'idempotency-key': outcomes[0]!.key });
      if (other.status !== 422) result.failures.push(`subscriptions: same key, other body got ${other.status}, expected 422`);
      Object.assign(result.figures, {
        'subscription keys': KEYS,
        'subscription requests': KEYS * RETRIES,
        'subscription effects': effects,
        'subscription replays': t.replays + finalReplays,
        'subscription 409 in flight': t.inFlight,
      });
    }

    // Jumps: each key is one investor's first move; a duplicate effect would be a second event.
    const idempotency = await findTable(db.pool, 'idempot');
    const deal = await seedDeal(clients[0]!, admin, idempotency ? KEYS : 0);
    if (!deal.workflow) result.skipped.push('jumps: PUT /deals/deal/{dealId}/workflow is not served by this build');
    else if (!idempotency) result.skipped.push('jumps: Idempotency-Key is not supported by this build');
    else {
      const path = `/deals/deal/${deal.dealId}/jump-to-step`;
      const bodies = deal.investors.map((investorUserId) => ({ investorUserId, targetStepId: deal.chain[1], data: { committed_amount: '1000.00' } }));
      const outcomes = await storm(clients, admin, path, bodies);
      const t = tally(outcomes, result, 'jumps');
      const finalReplays = await settle(clients[1]!, admin, path, outcomes, bodies, t.firstBody, result, 'jumps');
      const { rows } = await db.pool.query(`select investor_user_id, count(*)::int as n from workflow_events where deal_id = $1 group by investor_user_id`, [
        deal.dealId,
      ]);
      const effects = rows.reduce((n, r) => n + r.n, 0);
      for (const r of rows) if (r.n !== 1) result.failures.push(`jumps: ${r.n} events for one key (investor ${r.investor_user_id})`);
      if (rows.length !== KEYS) result.failures.push(`jumps: ${KEYS - rows.length} keys without their effect`);
      result.failures.push(...(await journeyFailures(db.pool, [deal.dealId])));
      Object.assign(result.figures, {
        'jump keys': KEYS,
        'jump requests': KEYS * RETRIES,
        'jump effects': effects,
        'jump replays': t.replays + finalReplays,
        'jump 409 in flight': t.inFlight,
      });
    }
    for (const c of clients) c.close();
    await Promise.all([a.stop(), b.stop()]);
    return result;
  } finally {
    result.ms = performance.now() - started;
    await db?.drop();
  }
}
