// The feed's promise under real concurrency: many writers (moves through the HTTP edge on two
// pools, some held open, some rolled back, one process killed mid-transaction) and many readers polling
// with their cursors at the same time. Every reader ends with exactly the feed read afresh from the
// start: no entry missed, none seen twice, none appearing behind a cursor (it would be missing from
// the reader's list, or out of place in it). Every committed move is in the feed, nothing of a
// rolled-back or killed one is, and each journey's entries follow the order of its moves.
// PostgreSQL only: PGlite runs one query at a time.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { inTransaction, newUuid } from '../../src/operations/deps.ts';
import { moveToStep } from '../../src/operations/journeys.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { skipUnlessPostgres, startApp, testDatabaseUrl } from '../support/app.ts';
import { eventually, feedCaughtUp } from '../support/webhooks.ts';
import { createDeal, type TestDeal } from '../support/deals.ts';

const staff = { userId: 'ops-feed', role: 'admin' as const, tokenKey: 'test' };

// Targets whose required data is given, so a move is a 201 or a 409 (never a 422).
const targets: [string, Record<string, string>][] = [
  ['interest', {}],
  ['commitment', { committed_amount: '100.00', currency: 'EUR' }],
  ['kyc', { kyc_ref: 'K' }],
  ['documents', { signed: 'yes' }],
  ['payment', {}],
  ['withdrawn', {}],
];

interface FeedEntry {
  id: string;
  sequence: number;
  data: { investorUserId: string; event: { id: string } };
}

describe('the feed under concurrent writers and readers (PostgreSQL)', { skip: skipUnlessPostgres }, () => {
  let second: Database;
  const t = startApp({ env: { DATABASE_TIMEOUT_MS: '30000' }, beforeClose: () => second.close() });
  const admin = t.admin;
  before(async () => {
    second = await openDatabase(
      { ...loadConfig({ DATABASE_TIMEOUT_MS: '30000' }), databaseUrl: testDatabaseUrl! },
      { schema: t.database.schema!, onPoolError: () => {} },
    );
  });

  /** A move in a transaction held open for `holdMs` (so later writers commit first), then committed or rolled back. */
  async function slowMove(db: Database['db'], deal: TestDeal, investor: string, holdMs: number, rollback: boolean): Promise<string | undefined> {
    const [name, data] = targets[Math.floor(Math.random() * targets.length)]!;
    try {
      return await inTransaction({ db, clock: () => new Date(), newId: newUuid }, async (tx) => {
        const event = await moveToStep(tx, staff, deal.dealId, { investorUserId: investor, targetStepId: deal.step(name), data });
        await sql`select pg_sleep(${holdMs / 1000})`.execute(tx.db);
        if (rollback) throw new Error('rolled back on purpose');
        return event.id;
      });
    } catch (err) {
      if ((err as Error).message === 'rolled back on purpose' || (err as { kind?: string }).kind === 'conflict') return undefined;
      throw err;
    }
  }

  test('no reader misses an entry or sees one appear behind its cursor', async () => {
    const deal = await createDeal(admin);
    const investors = await Promise.all(Array.from({ length: 6 }, () => deal.addInvestor()));
    const victimInvestor = await deal.addInvestor();
    const committed = new Set<string>(); // event ids of committed moves
    const lost = new Set<string>(); // entries that must never show: rolled back or killed
    let writing = true;

    // The killed writer: a first move in another process, its transaction held open until the
    // process is killed; it got its transaction id before most writers, so it holds the feed back.
    const victim = spawn(
      process.execPath,
      [fileURLToPath(new URL('./killed-writer.ts', import.meta.url)), testDatabaseUrl!, t.database.schema!, deal.dealId, victimInvestor, deal.step('interest')],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let victimOut = '';
    victim.stdout.on('data', (chunk: Buffer) => (victimOut += chunk.toString()));
    const victimEvent = await eventually(async () => /written (\S+)/.exec(victimOut)?.[1], 20_000, 'the killed writer to write');

    const writers = Array.from({ length: 8 }, async (_, w) => {
      const db = w % 2 ? second.db : t.database.db;
      for (let i = 0; i < 15; i++) {
        const investor = investors[(w + i) % investors.length]!;
        if (i % 5 === 4) {
          const id = await slowMove(db, deal, investor, 5 + Math.random() * 40, i % 10 === 9);
          if (id) committed.add(id);
          continue;
        }
        const [name, data] = targets[(w * 7 + i) % targets.length]!;
        const response = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step(name), data });
        assert.ok(response.status === 201 || response.status === 409, `${response.status} ${response.text}`);
        if (response.status === 201) committed.add(response.body.id);
      }
    });

    const readers = Array.from({ length: 5 }, async (_, r) => {
      const seen: FeedEntry[] = [];
      let cursor = 0;
      const readPage = async () => {
        const page = await admin.get(`/deals/deal/${deal.dealId}/events?after=${cursor}&limit=${1 + ((r + seen.length) % 7)}`);
        assert.equal(page.status, 200, page.text);
        seen.push(...page.body.output);
        cursor = page.body.lastSequence;
        return page.body.hasMore as boolean;
      };
      while (writing) await readPage();
      await feedCaughtUp(t.database.db);
      while (await readPage());
      return seen;
    });

    // Kill it while the others write.
    await new Promise((resolve) => setTimeout(resolve, 100));
    victim.kill('SIGKILL');
    await once(victim, 'exit');
    lost.add(victimEvent);

    await Promise.all(writers);
    writing = false;
    const views = await Promise.all(readers);

    await feedCaughtUp(t.database.db);
    const whole: FeedEntry[] = [];
    for (let cursor = 0; ; ) {
      const page = (await admin.get(`/deals/deal/${deal.dealId}/events?after=${cursor}&limit=100`)).body;
      whole.push(...page.output);
      cursor = page.lastSequence;
      if (!page.hasMore) break;
    }
    const wholeIds = whole.map((e) => e.id);
    assert.equal(new Set(wholeIds).size, wholeIds.length, 'each entry once');
    assert.deepEqual(new Set(whole.map((e) => e.data.event.id)), committed, 'every committed move, and nothing else');
    assert.ok(!whole.some((e) => lost.has(e.data.event.id)));
    // Moves to a step the investor cannot reach from where they stand are 409s; enough succeed.
    assert.ok(committed.size >= 10, `only ${committed.size} moves committed`);
    for (const [r, seen] of views.entries()) {
      assert.deepEqual(
        seen.map((e) => e.id),
        wholeIds,
        `reader ${r} saw the feed exactly, in order`,
      );
    }

    // Each journey's entries in the order of its moves (its events, oldest first).
    for (const investor of investors) {
      const journey = (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey.map((e: any) => e.id);
      assert.deepEqual(
        whole.filter((e) => e.data.investorUserId === investor).map((e) => e.data.event.id),
        journey,
        `journey of ${investor}`,
      );
    }
  });
});
