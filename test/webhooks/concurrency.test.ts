// Several writers and several dispatchers against one PostgreSQL: writers of one deal do not wait
// for each other, and two dispatchers deliver each entry exactly once to a receiver that answers 200.
// PGlite runs one query at a time, so these run on PostgreSQL only.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { inTransaction } from '../../src/operations/deps.ts';
import { createDispatcher } from '../../src/operations/webhook-dispatcher.ts';
import { newWebhookSecret } from '../../src/operations/webhook-signature.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { client, skipUnlessPostgres, startApp, testDatabaseUrl } from '../support/app.ts';
import { commitStepEntered, dealWithTriggers, depsOf, eventually, feedCaughtUp, startReceiver } from '../support/webhooks.ts';

describe('webhooks under concurrency (PostgreSQL)', { skip: skipUnlessPostgres }, () => {
  let second: Database;
  const t = startApp({ beforeClose: () => second.close() });
  before(async () => {
    // Another instance: its own pool on the same schema.
    second = await openDatabase({ ...loadConfig({}), databaseUrl: testDatabaseUrl! }, { schema: t.database.schema! });
  });

  test('two dispatchers deliver each entry exactly once', async () => {
    const receiver = await startReceiver(() => 200);
    const dispatchers = [t.database.db, second.db].map((db) => createDispatcher({ db, batchSize: 3, pollMs: 10 }));
    try {
      const deps = depsOf(t.database.db);
      const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, { s: [{ kind: 'webhook', url: receiver.url, secret: newWebhookSecret() }] });
      for (const d of dispatchers) d.start();
      const count = 40;
      const ids = new Set<string>();
      // Written while both dispatchers scan, from two pools at once.
      await Promise.all(
        [t.database.db, second.db].map(async (db, k) => {
          for (let i = 0; i < count / 2; i++) ids.add(await commitStepEntered(depsOf(db), dealId, 's', `inv-${k}-${i}`));
        }),
      );
      await eventually(
        async () => {
          const { pending } = await t.database.db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<string>().as('pending'))
            .where('deal_id', '=', dealId)
            .where('delivered_at', 'is', null)
            .executeTakeFirstOrThrow();
          return Number(pending) === 0 ? true : undefined;
        },
        20_000,
        'every delivery to be delivered',
      );
      for (const d of dispatchers) await d.stop();

      const perId = new Map<string, number>();
      for (const r of receiver.received) perId.set(String(r.headers['webhook-id']), (perId.get(String(r.headers['webhook-id'])) ?? 0) + 1);
      assert.equal(ids.size, count);
      assert.deepEqual(new Set(perId.keys()), ids);
      assert.deepEqual(
        [...perId.values()].filter((n) => n !== 1),
        [],
        'no entry received twice',
      );
      assert.equal(receiver.received.length, count);
      const attempts = await t.database.db.selectFrom('webhook_deliveries').select('attempts').where('deal_id', '=', dealId).execute();
      assert.ok(attempts.every((a) => a.attempts === 1));
    } finally {
      for (const d of dispatchers) await d.stop();
      await receiver.close();
    }
  });

  test('concurrent writers of one deal get distinct numbers and none waits for another', async () => {
    const deps = depsOf(t.database.db);
    const dealId = await dealWithTriggers(client(t.app, t.adminToken), deps, {});
    await Promise.all(Array.from({ length: 16 }, (_, i) => commitStepEntered(depsOf(i % 2 ? second.db : t.database.db), dealId, 's', `inv-${i}`)));
    const rows = await t.database.db.selectFrom('outbox').select('sequence').where('deal_id', '=', dealId).execute();
    assert.equal(new Set(rows.map((r) => r.sequence)).size, 16);
  });

  test('a later writer commits without waiting, and the feed shows it only once the earlier one has ended', async () => {
    const admin = client(t.app, t.adminToken);
    const dealId = await dealWithTriggers(admin, depsOf(t.database.db), {});
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let firstId: string | undefined;
    // A appends, then keeps its transaction open.
    const first = inTransaction(depsOf(t.database.db), async (tx) => {
      const { recordStepEntered } = await import('../../src/operations/outbox-events.ts');
      firstId = await recordStepEntered(tx, {
        dealId,
        investorUserId: 'inv-a',
        event: { id: tx.newId(), fromStepId: null, toStepId: 'a', data: {}, createdByUserId: 'ops', createdAt: tx.clock().toISOString() },
      });
      await held;
    });
    await eventually(async () => firstId, 5000, 'A to append');
    // B, on the other instance, commits while A is still open: no counter row to wait for.
    const secondId = await commitStepEntered(depsOf(second.db), dealId, 'b', 'inv-b');
    const committed = await t.database.db.selectFrom('outbox').select('id').where('id', '=', secondId).execute();
    assert.equal(committed.length, 1, 'B committed before A ended');
    assert.deepEqual((await admin.get(`/deals/deal/${dealId}/events`)).body.output, [], 'B is held back while A, which may still write before it, runs');
    release();
    await first;
    await feedCaughtUp(t.database.db);
    const feed = (await admin.get(`/deals/deal/${dealId}/events`)).body.output;
    assert.deepEqual(
      feed.map((e: any) => e.id),
      [firstId, secondId],
    );
  });
});
