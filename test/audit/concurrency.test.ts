// The audit log under concurrency (PostgreSQL only: PGlite runs one query at a time): 240 moves of
// one deal's investors sent at once over two app instances, with a sealer running in each, leave
// every journey's chain linear (1, 2, 3… each linked to the one before), and the checkpoints cover
// every entry exactly once, in an order `verify` recomputes.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { type Api, buildApp } from '../../src/http/app.ts';
import { sealAll, startSealer } from '../../src/operations/audit.ts';
import { verifyAudit } from '../../src/operations/audit-verify.ts';
import { Caches } from '../../src/operations/caches.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { client, type Client, skipUnlessPostgres, startApp, testDatabaseUrl } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';

describe('audit chains and checkpoints under concurrent moves (two instances)', { skip: skipUnlessPostgres }, () => {
  let second: Database;
  let secondApp: Api;
  let caches: Caches;
  let two: Client;
  const t = startApp({
    env: { DATABASE_TIMEOUT_MS: '60000' },
    beforeClose: async () => {
      await secondApp.close();
      caches.close();
      await second.close();
    },
  });
  const one = t.admin;
  before(async () => {
    second = await openDatabase({ ...loadConfig({ DATABASE_TIMEOUT_MS: '60000' }), databaseUrl: testDatabaseUrl! }, { schema: t.database.schema! });
    caches = new Caches();
    secondApp = await buildApp({ db: second.db, config: t.config, clock: systemClock, newId: newUuid, caches });
    await secondApp.ready();
    two = client(secondApp, t.adminToken);
  });

  test('240 concurrent moves: every chain linear, the checkpoints cover all of them', async () => {
    const deal = await createDeal(one);
    const investors = await Promise.all(Array.from({ length: 60 }, () => deal.addInvestor()));
    const log = { warn: (obj: object, msg: string) => assert.fail(`${msg}: ${JSON.stringify(obj)}`) };
    const sealers = [startSealer({ db: t.database.db, clock: systemClock }, 5, log), startSealer({ db: second.db, clock: systemClock }, 7, log)];
    // Four moves per investor, all sent at once, alternating instances: each investor's moves race
    // for its journey row; some are refused (409: not from the position they found), none is lost.
    const path = ['interest', 'commitment', 'withdrawn', 'interest'];
    const data: Record<string, Record<string, string>> = { commitment: { committed_amount: '100.00', currency: 'EUR' } };
    const responses = await Promise.all(
      investors.flatMap((investor, i) =>
        path.map((step, j) =>
          ((i + j) % 2 === 0 ? one : two).post(`/deals/deal/${deal.dealId}/jump-to-step`, {
            investorUserId: investor,
            targetStepId: deal.step(step),
            data: data[step] ?? {},
          }),
        ),
      ),
    );
    assert.equal(responses.length, 240);
    const statuses = responses.map((r) => r.status);
    assert.ok(
      statuses.every((s) => s === 201 || s === 409 || s === 422),
      `statuses: ${[...new Set(statuses)].join(', ')}`,
    );
    const moved = statuses.filter((s) => s === 201).length;
    assert.ok(moved >= 60, `${moved} moves succeeded`);
    await Promise.all(sealers.map((s) => s.stop()));

    const db = t.database.db;
    const { rows } = await sql<{ chain: string; seq: string; prev_hash: string; hash: string; type: string }>`
      select chain, seq, prev_hash, hash, type from audit_log where deal_id = ${deal.dealId} and chain like 'journey:%' order by chain, seq`.execute(db);
    assert.equal(rows.length, moved, 'one entry per successful move, and nothing else');
    const byChain = Map.groupBy(rows, (r) => r.chain);
    assert.equal(byChain.size, investors.length);
    for (const [chain, entries] of byChain) {
      entries.forEach((e, i) => {
        assert.equal(Number(e.seq), i + 1, `${chain} is numbered without gaps`);
        assert.equal(e.prev_hash, i === 0 ? '0'.repeat(64) : entries[i - 1]!.hash, `${chain} #${i + 1} links to the entry before`);
      });
    }
    const events = await sql<{ n: string }>`select count(*) as n from workflow_events where deal_id = ${deal.dealId}`.execute(db);
    assert.equal(Number(events.rows[0]!.n), moved);

    // The next checkpoint covers all of them (another session's open transaction may hold it back a moment).
    let report = await verifyAudit({ db });
    for (let i = 0; i < 1200 && report.unsealed > 0; i++) {
      await sealAll({ db, clock: systemClock });
      await new Promise((resolve) => setTimeout(resolve, 50));
      report = await verifyAudit({ db });
    }
    assert.ok(report.ok, JSON.stringify(report.mismatch));
    assert.equal(report.unsealed, 0);
    const covered = await sql<{ n: string }>`select coalesce(sum(size), 0) as n from audit_checkpoints`.execute(db);
    const total = await sql<{ n: string }>`select count(*) as n from audit_log`.execute(db);
    assert.equal(Number(covered.rows[0]!.n), Number(total.rows[0]!.n), 'the checkpoints together cover every entry exactly once');
    assert.ok(report.checkpoints >= 1);
  });
});
