// Check 4, crashes: under a steady write load (new deals, new investors, jumps, idempotent
// subscriptions, as far as the routes exist) the service is killed with SIGKILL at random moments
// 20 times and restarted. Afterwards every acknowledged write must be stored as acknowledged, and
// nothing half written: no event without its journey position, no journey out of step with its
// events, no payment reference missing, no subscription without its idempotency record. Then the
// first start of the embedded database is killed at random moments (first-start-kills.ts).
import { randomUUID } from 'node:crypto';
import { createClient, type Client, sleep } from '../support/http.ts';
import { seedAsset, seedDeal, seedInvestor, subscriptionBody } from '../support/fixtures.ts';
import { investorBody } from '../../support/fixtures.ts';
import { journeyFailures } from '../support/integrity.ts';
import { findTable, freshDatabase } from '../support/postgres.ts';
import { rng, seed } from '../support/random.ts';
import { newResult, type CheckResult } from '../support/report.ts';
import { startInstance } from '../support/service.ts';
import { firstStartKills } from './first-start-kills.ts';

const KILLS = Number(process.env.RELIABILITY_KILLS || 20);
const LANES = 6;

export async function crashes(): Promise<CheckResult> {
  const result = newResult('4 crashes');
  const started = performance.now();
  const db = await freshDatabase('crashes');
  try {
    const service = await startInstance({ databaseUrl: db.url });
    let client: Client = createClient(service.url);
    const admin = db.adminToken;
    const deal = await seedDeal(client, admin, 30);
    const assetId = await seedAsset(client, admin);
    const subscriber = assetId !== undefined ? await seedInvestor(client, admin) : undefined;
    if (!deal.workflow) result.skipped.push('jumps: PUT /deals/deal/{dealId}/workflow is not served by this build');
    if (assetId === undefined) result.skipped.push('subscriptions: PUT /portfolio/assets/{assetId} is not served by this build');

    const acked = {
      deals: new Map<string, string>(),
      investors: new Map<string, string>(),
      events: new Set<string>(),
      subscriptions: new Map<string, string>(),
    };
    const sentKeys: string[] = [];
    let attempts = 0;
    let failedInFlight = 0;
    const unexpected: string[] = [];
    let running = true;
    const random = rng(seed + 4);

    const lane = async (n: number) => {
      let i = 0;
      while (running) {
        const kind = (n + i++) % 4;
        attempts++;
        const failedBefore = failedInFlight;
        try {
          if (kind === 0) {
            const id = `crash-deal-${randomUUID()}`;
            const name = `Deal ${id.slice(-6)}`;
            const r = await client.put(`/deals/deal/${id}`, { name }, admin);
            if (r.status === 201) acked.deals.set(id, name);
            else if (r.status === 0 || r.status === 503) failedInFlight++;
            else unexpected.push(`PUT deal: ${r.status} ${r.text.slice(0, 200)}`);
          } else if (kind === 1) {
            const id = `crash-inv-${randomUUID()}`;
            const body = investorBody({ forename: 'Crash', surname: id.slice(-6) });
            const r = await client.put(`/investors/${id}`, body, admin);
            if (r.status === 201) acked.investors.set(id, body.remoteId);
            else if (r.status === 0 || r.status === 503) failedInFlight++;
            else unexpected.push(`PUT investor: ${r.status} ${r.text.slice(0, 200)}`);
          } else if (kind === 2 && deal.workflow) {
            const investorUserId = deal.investors[(n * 5 + i) % deal.investors.length]!;
            const r = await client.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId, targetStepId: random.pick(deal.chain), data: {} }, admin);
            if (r.status === 201) acked.events.add(r.json.id);
            else if (r.status === 0 || r.status === 503) failedInFlight++;
            else if (r.status !== 409) unexpected.push(`jump: ${r.status} ${r.text.slice(0, 200)}`);
          } else if (kind === 3 && assetId !== undefined && subscriber) {
            const key = `crash-${randomUUID()}`;
            sentKeys.push(key);
            const r = await client.post('/portfolio/transactions/subscriptions', subscriptionBody(assetId, subscriber, key), admin, { 'idempotency-key': key });
            if (r.status === 201) acked.subscriptions.set(String(r.json.id), key);
            else if (r.status === 0 || r.status === 503 || r.status === 409) failedInFlight++;
            else unexpected.push(`subscription: ${r.status} ${r.text.slice(0, 200)}`);
          } else await sleep(5);
        } catch (err) {
          unexpected.push(`lane ${n}: ${(err as Error).message}`);
        }
        // While the service is down, requests fail at once: back off instead of spinning.
        if (failedInFlight !== failedBefore) await sleep(25);
      }
    };
    const lanes = Array.from({ length: LANES }, (_, n) => lane(n));
    let restartMs = 0;
    for (let k = 0; k < KILLS; k++) {
      await sleep(200 + random.int(1000));
      await service.kill();
      const t = performance.now();
      await service.restart();
      restartMs = Math.max(restartMs, performance.now() - t);
      // A fresh agent: the old sockets died with the process.
      const old = client;
      client = createClient(service.url);
      old.close();
    }
    await sleep(500);
    running = false;
    await Promise.all(lanes);

    // Every acknowledged write is there, as acknowledged.
    const { rows: deals } = await db.pool.query('select id, name from deals where id = any($1)', [[...acked.deals.keys()]]);
    const storedDeals = new Map(deals.map((d) => [d.id, d.name]));
    const lostDeals = [...acked.deals].filter(([id, name]) => storedDeals.get(id) !== name);
    const { rows: investors } = await db.pool.query('select id, remote_id from investors where id = any($1)', [[...acked.investors.keys()]]);
    const storedInvestors = new Map(investors.map((d) => [d.id, d.remote_id]));
    const lostInvestors = [...acked.investors].filter(([id, remote]) => storedInvestors.get(id) !== remote);
    const { rows: events } = await db.pool.query('select id::text from workflow_events where id::text = any($1)', [[...acked.events]]);
    const lostEvents = acked.events.size - events.length;
    if (lostDeals.length) result.failures.push(`${lostDeals.length} acknowledged deals missing or different, e.g. ${lostDeals[0]![0]}`);
    if (lostInvestors.length) result.failures.push(`${lostInvestors.length} acknowledged investors missing or different`);
    if (lostEvents) result.failures.push(`${lostEvents} acknowledged jumps missing`);
    let lostSubscriptions = 0;
    let withoutRecord = 0;
    const subscriptions = await findTable(db.pool, 'subscription');
    const idempotency = await findTable(db.pool, 'idempot');
    if (subscriptions && acked.subscriptions.size > 0) {
      const { rows } = await db.pool.query(`select id::text, source_id from ${subscriptions} where source_id = any($1)`, [sentKeys]);
      const stored = new Set(rows.map((r) => r.id));
      lostSubscriptions = [...acked.subscriptions.keys()].filter((id) => !stored.has(id)).length;
      if (lostSubscriptions) result.failures.push(`${lostSubscriptions} acknowledged subscriptions missing`);
      if (idempotency) {
        // Every stored subscription, acknowledged or not, has its idempotency record.
        for (const r of rows) {
          const { rows: found } = await db.pool.query(`select 1 from ${idempotency} t where t::text like '%' || $1 || '%' limit 1`, [r.source_id]);
          if (found.length === 0) withoutRecord++;
        }
        if (withoutRecord) result.failures.push(`${withoutRecord} subscriptions without their idempotency record`);
      } else result.skipped.push('no idempotency table found');
    }
    result.failures.push(...(await journeyFailures(db.pool, [deal.dealId])));
    if (unexpected.length) result.failures.push(`${unexpected.length} unexpected answers, e.g. ${unexpected.slice(0, 3).join(' | ')}`);
    result.figures = {
      kills: KILLS,
      'write attempts': attempts,
      'acknowledged deals': acked.deals.size,
      'acknowledged investors': acked.investors.size,
      'acknowledged jumps': acked.events.size,
      'acknowledged subscriptions': acked.subscriptions.size,
      'failed in flight': failedInFlight,
      lost: lostDeals.length + lostInvestors.length + lostEvents + lostSubscriptions,
      'half written': withoutRecord + result.failures.filter((f) => f.includes('journey') || f.includes('revision') || f.includes('reference')).length,
      'slowest restart ms': Math.round(restartMs),
    };
    client.close();
    await service.stop();
    if (process.env.RELIABILITY_SKIP_FIRST_START !== '1') {
      const first = await firstStartKills();
      result.failures.push(...first.failures);
      result.figures = { ...result.figures, ...first.figures };
    }
    return result;
  } finally {
    result.ms = performance.now() - started;
    await db.drop();
  }
}
