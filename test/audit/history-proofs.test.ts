// The history the one-entry chains describe is append-only in the database (migration 0018), the
// checkpoints' kept Merkle trees give the deal audit's proofs, and `verify --deal` checks one deal:
// its chains and its entries' inclusion proofs, not the platform's other deals. PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { proofNodes, verifyInclusion } from '../../src/domain/audit.ts';
import { fillCheckpointTrees } from '../../src/operations/audit.ts';
import { startApp } from '../support/app.ts';
import { createDeal, type TestDeal } from '../support/deals.ts';
import { behindTheBack, sealEverything, verify } from '../support/audit.ts';
import { subscriptionBody, uniqueAssetId } from '../support/fixtures.ts';
import { fill, fixture, payingDeal, postStatement } from '../support/payments.ts';

describe('append-only history, kept trees and verify --deal', () => {
  const t = startApp();
  const admin = t.admin;
  let x: TestDeal;
  let y: TestDeal;
  let xInvestor: string;
  let yInvestor: string;
  let subscriptionId: string;
  before(async () => {
    x = await createDeal(admin);
    y = await createDeal(admin);
    xInvestor = await x.addInvestor();
    yInvestor = await y.addInvestor();
    for (const [deal, investor] of [
      [x, xInvestor],
      [y, yInvestor],
    ] as const) {
      await deal.move(investor, 'interest');
      await deal.move(investor, 'commitment', { committed_amount: '1000.00', currency: 'EUR' });
    }
    const assetId = uniqueAssetId();
    assert.equal((await admin.put(`/portfolio/assets/${assetId}`, { name: 'Acme Series A', currency: 'EUR' })).status, 201);
    const booked = await admin.post('/portfolio/transactions/subscriptions', {
      ...subscriptionBody(assetId, xInvestor),
      description: 'Booked for Ada Lovelace',
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    subscriptionId = booked.body.id;
    // A statement: payment decisions and allocations.
    const paying = await payingDeal(admin);
    const imported = await postStatement(t, fill(fixture('camt.053.001.02.xml'), paying));
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    await sealEverything(db());
  });

  const db = () => t.database.db;
  const firstEntry = async (deal: TestDeal, investor: string) =>
    (
      await sql<{ chain: string; seq: string; position: string; change: unknown }>`select chain, seq, position, change from audit_log
      where chain = ${`journey:${deal.dealId}/${investor}`} order by seq limit 1`.execute(db())
    ).rows[0]!;
  const refused = async (statement: string) => {
    await assert.rejects(sql.raw(statement).execute(db()), (err: { code?: string }) => err.code === '42501', statement);
  };

  test('the database refuses UPDATE, DELETE and TRUNCATE on bookings, payment decisions and allocations, workflow versions and the kept trees', async () => {
    for (const table of ['subscriptions', 'payment_line_decisions', 'payment_allocations', 'workflow_versions', 'audit_tree_leaves', 'audit_tree_nodes']) {
      const { rows } = await sql.raw<{ n: string }>(`select count(*) as n from ${table}`).execute(db());
      assert.ok(Number(rows[0]!.n) > 0, `${table} has rows to refuse the change of`);
      await refused(`delete from ${table}`);
      await refused(`truncate ${table} cascade`);
    }
    await refused(`update subscriptions set total = total + 1 where id = '${subscriptionId}'`);
    await refused(`update subscriptions set description = 'another text' where id = '${subscriptionId}'`);
    await refused(`update subscriptions set description = null, fee = fee + 1 where id = '${subscriptionId}'`);
    await refused(`update payment_line_decisions set reason = 'rewritten'`);
    await refused(`update payment_allocations set amount = amount * 2`);
    await refused(`update workflow_versions set structure = '{}'::jsonb`);
    await refused(`update audit_tree_nodes set hash = 'x'`);
    await refused(`update audit_tree_leaves set entry_hash = 'x'`);
    // Erasing the free text (it may name a person, and no entry hashes it) stays possible.
    await sql`update subscriptions set description = null where id = ${subscriptionId}`.execute(db());
    const { rows } = await sql<{
      description: string | null;
      total: string;
    }>`select description, total::text from subscriptions where id = ${subscriptionId}`.execute(db());
    assert.equal(rows[0]!.description, null);
    const verified = await verify(db());
    assert.equal(verified.code, 0, verified.output);
  });

  test('the deal audit proves each entry from the kept tree, and from the entries when a checkpoint has no tree yet', async () => {
    const proofs = async () => {
      const page = await admin.get(`/deals/deal/${x.dealId}/audit?limit=100`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.ok(page.body.output.length >= 3);
      return page.body.output as {
        hash: string;
        inclusion: { leafIndex: number; treeSize: number; path: string[]; root: string; checkpoint: number } | null;
      }[];
    };
    const checks = (entries: Awaited<ReturnType<typeof proofs>>) =>
      entries.map((e) => e.inclusion !== null && verifyInclusion(e.hash, e.inclusion.leafIndex, e.inclusion.treeSize, e.inclusion.path, e.inclusion.root));
    const kept = await proofs();
    assert.ok(checks(kept).every(Boolean), 'every proof from the kept tree checks');

    // The proof is read from the stored nodes: a node changed behind the service's back breaks it.
    // A stored node (level 1 or above) on that entry's own path: which leaves a deal's entries get
    // depends on the order the checkpoint sealed them in, so the node is found from the proof.
    const storedNodeOnPath = (e: (typeof kept)[number]) => proofNodes(e.inclusion!.leafIndex, e.inclusion!.treeSize).find((n) => n.level > 0);
    const some = kept.find((e) => storedNodeOnPath(e) !== undefined)!;
    const cp = some.inclusion!.checkpoint;
    const node = storedNodeOnPath(some)!;
    await behindTheBack(
      db(),
      'audit_tree_nodes',
      `update audit_tree_nodes set hash = repeat('0', 64) where checkpoint = ${cp} and level = ${node.level} and index = ${node.index}`,
    );
    assert.ok(
      checks(await proofs()).some((ok) => !ok),
      'a changed node fails a proof',
    );
    const full = await verify(db());
    assert.equal(full.code, 1);
    assert.match(full.output, new RegExp(`MISMATCH at checkpoint ${cp}: the Merkle tree kept for its inclusion proofs is not the tree of its entries`));
    const dealOnly = await verify(db(), { dealId: x.dealId });
    assert.equal(dealOnly.code, 1, dealOnly.output);
    assert.match(dealOnly.output, new RegExp(`its inclusion proof does not lead to the root of checkpoint ${cp}`));

    // A checkpoint without its tree (as one sealed before trees were kept): proofs come from its
    // entries, and the sealer's fill-in writes the tree again.
    await behindTheBack(db(), 'audit_tree_nodes', `delete from audit_tree_nodes where checkpoint = ${cp}`);
    await behindTheBack(db(), 'audit_tree_leaves', `delete from audit_tree_leaves where checkpoint = ${cp}`);
    assert.ok(checks(await proofs()).every(Boolean), 'every proof rebuilt from the entries checks');
    assert.equal((await verify(db(), { dealId: x.dealId })).code, 0);
    await fillCheckpointTrees({ db: db() }, 0);
    const { rows } = await sql<{ n: string }>`select count(*) as n from audit_tree_leaves where checkpoint = ${cp}`.execute(db());
    assert.ok(Number(rows[0]!.n) > 0, 'the tree is filled in');
    assert.ok(checks(await proofs()).every(Boolean));
    const again = await verify(db());
    assert.equal(again.code, 0, again.output);
  });

  test("verify --deal X: another deal's tampered entry is not its concern (the full verify names it); X's is", async () => {
    const yEntry = await firstEntry(y, yInvestor);
    await behindTheBack(
      db(),
      'audit_log',
      `update audit_log set change = jsonb_set(change, '{toStepId}', '"elsewhere"') where chain = '${yEntry.chain}' and seq = 1`,
    );
    const dealX = await verify(db(), { dealId: x.dealId });
    assert.equal(dealX.code, 0, dealX.output);
    assert.match(
      dealX.output,
      /^OK: \d+ entries in \d+ chains; \d+ of them proved in their checkpoints, 0 not yet in a checkpoint; the chain of \d+ checkpoints/,
    );
    const full = await verify(db());
    assert.equal(full.code, 1, full.output);
    assert.match(full.output, new RegExp(`MISMATCH at entry ${yEntry.chain.replace(/[.]/g, '\\.')} #1: its content does not match its hash`));
    assert.equal((await verify(db(), { dealId: y.dealId })).code, 1);

    const xEntry = await firstEntry(x, xInvestor);
    await behindTheBack(
      db(),
      'audit_log',
      `update audit_log set change = jsonb_set(change, '{toStepId}', '"elsewhere"') where chain = '${xEntry.chain}' and seq = 1`,
    );
    const tampered = await verify(db(), { dealId: x.dealId });
    assert.equal(tampered.code, 1, tampered.output);
    assert.match(tampered.output, new RegExp(`MISMATCH at entry ${xEntry.chain.replace(/[.]/g, '\\.')} #1: its content does not match its hash`));
    for (const e of [xEntry, yEntry]) {
      await behindTheBack(db(), 'audit_log', `update audit_log set change = '${JSON.stringify(e.change)}'::jsonb where chain = '${e.chain}' and seq = 1`);
    }
    assert.equal((await verify(db())).code, 0);
  });

  test("verify --deal X catches X's sealed entry removed with its chain rewritten to hide it", async () => {
    const later = await x.addInvestor();
    await x.move(later, 'interest');
    await sealEverything(db());
    const chain = `journey:${x.dealId}/${later}`;
    await behindTheBack(db(), 'audit_log', `delete from audit_log where chain = '${chain}'`);
    await sql`update journeys set audit_seq = 0, audit_head = null where deal_id = ${x.dealId} and investor_user_id = ${later}`.execute(db());
    const report = await verify(db(), { dealId: x.dealId });
    assert.equal(report.code, 1, report.output);
    assert.match(
      report.output,
      /MISMATCH at checkpoint \d+: its leaf \d+ \(position \d+, an entry of this deal\) has no entry in the log any more \(an entry was removed\)/,
    );
    assert.equal((await verify(db(), { dealId: y.dealId })).code, 0, 'not the concern of another deal');
  });
});
