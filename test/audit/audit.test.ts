// The tamper-evident audit log: entries chained per journey and workflow, checkpoints, the
// database refusing to rewrite history, `dealflow verify` catching a superuser's change or a deleted
// entry, the audit routes, and erasure keeping the chains verifiable. Runs on PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { verifyInclusion } from '../../src/domain/audit.ts';
import { SYSTEM_PRINCIPAL } from '../../src/operations/audit-entries.ts';
import { eraseFromCommandLine } from '../../src/operations/erasure.ts';
import { newUuid } from '../../src/operations/deps.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, type TestDeal } from '../support/deals.ts';
import { behindTheBack as behindTheBackOn, sealEverything as sealEverythingOn, verify as verifyOn } from '../support/audit.ts';
import { subscriptionBody, uniqueAssetId } from '../support/fixtures.ts';

describe('audit log', () => {
  const t = startApp();
  const admin = t.admin;
  let deal: TestDeal;
  let investor: string;
  let commitment: { id: string };
  before(async () => {
    deal = await createDeal(admin);
    investor = await deal.addInvestor();
    await deal.move(investor, 'interest');
    commitment = await deal.move(investor, 'commitment', { committed_amount: '25000.00', currency: 'EUR' });
    const edited = await admin.post(`/deals/event/${commitment.id}/edit`, { committed_amount: '30000.00', currency: 'EUR' });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
  });

  const db = () => t.database.db;
  const verify = (options: { dealId?: string; seal?: boolean } = {}) => verifyOn(db(), options);
  const sealEverything = () => sealEverythingOn(db());
  const entries = async (chain: string) =>
    (
      await sql<{ seq: string; type: string; change: any; hash: string; prev_hash: string }>`
      select seq, type, change, hash, prev_hash from audit_log where chain = ${chain} order by seq`.execute(db())
    ).rows;
  /** As a superuser behind the service's back: the append-only trigger off for one statement. */
  const behindTheBack = (table: string, statement: string) => behindTheBackOn(db(), table, statement);

  test('moves, the edit and the workflow are chained entries; the journey row holds the head', async () => {
    const chain = `journey:${deal.dealId}/${investor}`;
    const rows = await entries(chain);
    assert.deepEqual(
      rows.map((r) => [Number(r.seq), r.type]),
      [
        [1, 'journey.moved'],
        [2, 'journey.moved'],
        [3, 'event.edited'],
      ],
    );
    assert.equal(rows[0]!.prev_hash, '0'.repeat(64));
    for (let i = 1; i < rows.length; i++) assert.equal(rows[i]!.prev_hash, rows[i - 1]!.hash);
    assert.deepEqual(rows[2]!.change.newData, { committed_amount: '30000.00', currency: 'EUR' });
    assert.equal(rows[1]!.change.eventId, commitment.id);
    const head = await sql<{ audit_seq: string; audit_head: string }>`select audit_seq, audit_head from journeys
      where deal_id = ${deal.dealId} and investor_user_id = ${investor}`.execute(db());
    assert.equal(Number(head.rows[0]!.audit_seq), 3);
    assert.equal(head.rows[0]!.audit_head, rows[2]!.hash);
    const workflow = await entries(`workflow:${deal.dealId}`);
    assert.deepEqual(
      workflow.map((r) => r.type),
      ['workflow.applied'],
    );
    assert.ok((await entries('tokens')).length >= 1, 'the admin token of the test app');
    // No directory personal data in what is hashed.
    const all = JSON.stringify([...rows, ...workflow]);
    assert.ok(!all.includes('@'), 'no e-mail address in the entries');
  });

  test('verify passes; a checkpoint covers every entry; the deal audit gives proofs that check', async () => {
    await sealEverything();
    const before = await verify();
    assert.equal(before.code, 0, before.output);
    assert.match(before.output, /OK: \d+ entries in \d+ chains, \d+ checkpoints, 0 entries not yet in a checkpoint/);
    const checkpoints = await admin.get('/audit/checkpoints?limit=100');
    assert.equal(checkpoints.status, 200);
    assert.ok(checkpoints.body.output.length >= 1);
    const page = await admin.get(`/deals/deal/${deal.dealId}/audit?limit=100`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.equal(page.body.output.length, 4, 'three journey entries and the workflow');
    for (const entry of page.body.output) {
      assert.ok(entry.inclusion, `entry ${entry.chain} #${entry.seq} is sealed`);
      const { leafIndex, treeSize, path, root } = entry.inclusion;
      assert.ok(verifyInclusion(entry.hash, leafIndex, treeSize, path, root), `proof of ${entry.chain} #${entry.seq}`);
      assert.ok(!verifyInclusion(entry.prevHash, leafIndex, treeSize, path, root));
    }
    expectProblem(await admin.get('/deals/deal/no-such-deal/audit'), 404);
    const investorClient = client(t.app, await t.investorToken(investor));
    expectProblem(await investorClient.get(`/deals/deal/${deal.dealId}/audit`), 403);
    expectProblem(await investorClient.get('/audit/checkpoints'), 403);
  });

  test('the database refuses UPDATE, DELETE and TRUNCATE on every history table', async () => {
    const refused = async (statement: string) => {
      await assert.rejects(sql.raw(statement).execute(db()), (err: { code?: string }) => err.code === '42501', statement);
    };
    await refused(`update audit_log set type = 'x'`);
    await refused(`delete from audit_log`);
    await refused(`truncate audit_log`);
    assert.ok((await sql`select 1 from audit_checkpoints`.execute(db())).rows.length > 0, 'a row to refuse the change of');
    await refused(`update audit_checkpoints set root = 'x'`);
    await refused(`delete from audit_checkpoints`);
    await refused(`update event_revisions set data = '{}'`);
    await refused(`delete from event_revisions`);
    await refused(`truncate event_revisions cascade`);
    await refused(`delete from workflow_events where id = '${commitment.id}'`);
    await refused(`truncate workflow_events cascade`);
    // The cache column may not take data no revision of this transaction holds, nor may any other column change.
    await refused(`update workflow_events set data = '{"committed_amount":"1.00","currency":"EUR"}' where id = '${commitment.id}'`);
    await refused(`update workflow_events set to_step_id = from_step_id where id = '${commitment.id}'`);
    // Not even to the newest revision's data, when an earlier transaction wrote that revision.
    await refused(
      `update workflow_events set data = (select data from event_revisions where event_id = '${commitment.id}' order by revision desc limit 1) where id = '${commitment.id}'`,
    );
    const verified = await verify();
    assert.equal(verified.code, 0, verified.output);
  });

  test('verify names an entry a superuser changed with the trigger disabled, and passes again once restored', async () => {
    const chain = `journey:${deal.dealId}/${investor}`;
    const original = (await entries(chain))[1]!.change;
    await behindTheBack(
      'audit_log',
      `update audit_log set change = jsonb_set(change, '{data,committed_amount}', '"99999.00"') where chain = '${chain}' and seq = 2`,
    );
    const tampered = await verify();
    assert.equal(tampered.code, 1, tampered.output);
    assert.match(tampered.output, new RegExp(`MISMATCH at entry ${chain.replace(/[.]/g, '\\.')} #2: its content does not match its hash`));
    const dealOnly = await verify({ dealId: deal.dealId });
    assert.equal(dealOnly.code, 1);
    await behindTheBack('audit_log', `update audit_log set change = '${JSON.stringify(original)}'::jsonb where chain = '${chain}' and seq = 2`);
    assert.equal((await verify()).code, 0);
  });

  test('verify names the entry whose event history a superuser changed: a revision, or the current data', async () => {
    const chain = `journey:${deal.dealId}/${investor}`;
    await behindTheBack(
      'event_revisions',
      `update event_revisions set data = '{"committed_amount":"1.00","currency":"EUR"}' where event_id = '${commitment.id}' and revision = 2`,
    );
    const revision = await verify();
    assert.equal(revision.code, 1, revision.output);
    assert.match(
      revision.output,
      new RegExp(`MISMATCH at entry ${chain.replace(/[.]/g, '\\.')} #3: the event's revision 2 no longer says what the edit recorded`),
    );
    await behindTheBack(
      'event_revisions',
      `update event_revisions set data = '{"committed_amount":"30000.00","currency":"EUR"}' where event_id = '${commitment.id}' and revision = 2`,
    );
    assert.equal((await verify()).code, 0);
    await db()
      .transaction()
      .execute(async (trx) => {
        await sql.raw(`alter table workflow_events disable trigger workflow_events_cache_only`).execute(trx);
        await sql.raw(`update workflow_events set data = '{"committed_amount":"1.00","currency":"EUR"}' where id = '${commitment.id}'`).execute(trx);
        await sql.raw(`alter table workflow_events enable trigger workflow_events_cache_only`).execute(trx);
      });
    const cache = await verify({ dealId: deal.dealId });
    assert.equal(cache.code, 1, cache.output);
    assert.match(cache.output, /#2: the event's current data is not its newest revision/);
    await db()
      .transaction()
      .execute(async (trx) => {
        await sql.raw(`alter table workflow_events disable trigger workflow_events_cache_only`).execute(trx);
        await sql.raw(`update workflow_events set data = '{"committed_amount":"30000.00","currency":"EUR"}' where id = '${commitment.id}'`).execute(trx);
        await sql.raw(`alter table workflow_events enable trigger workflow_events_cache_only`).execute(trx);
      });
    assert.equal((await verify()).code, 0);
  });

  test('verify catches a whole entry deleted behind the service: in the middle, or the last of its chain', async () => {
    const chain = `journey:${deal.dealId}/${investor}`;
    const keep = await sql<Record<string, unknown>>`select * from audit_log where chain = ${chain} order by seq`.execute(db());
    await behindTheBack('audit_log', `delete from audit_log where chain = '${chain}' and seq = 2`);
    const middle = await verify();
    assert.equal(middle.code, 1);
    assert.match(middle.output, /entry 2 is missing/);
    await behindTheBack('audit_log', `delete from audit_log where chain = '${chain}' and seq = 3`);
    const row = keep.rows[1]!;
    await sql`insert into audit_log (chain, seq, position, xid, type, principal, token_id, at, change, deal_id, prev_hash, hash)
      values (${row.chain}, ${row.seq}, ${row.position}, ${row.xid}::text::xid8, ${row.type}, ${row.principal}, ${row.token_id}, ${row.at}, ${JSON.stringify(row.change)}::jsonb,
        ${row.deal_id}, ${row.prev_hash}, ${row.hash})`.execute(db());
    const last = await verify();
    assert.equal(last.code, 1);
    assert.match(last.output, /the recorded head is entry 3 .* but the chain ends at entry 2/);
    const third = keep.rows[2]!;
    await sql`insert into audit_log (chain, seq, position, xid, type, principal, token_id, at, change, deal_id, prev_hash, hash)
      values (${third.chain}, ${third.seq}, ${third.position}, ${third.xid}::text::xid8, ${third.type}, ${third.principal}, ${third.token_id}, ${third.at},
        ${JSON.stringify(third.change)}::jsonb, ${third.deal_id}, ${third.prev_hash}, ${third.hash})`.execute(db());
    assert.equal((await verify()).code, 0);
  });

  test('a checkpoint catches an entry dropped with its chain rewritten to hide it', async () => {
    // A move after the last checkpoint, sealed; then its entry is removed and the head set back.
    const other = await deal.addInvestor();
    await deal.move(other, 'interest');
    await sealEverything();
    const chain = `journey:${deal.dealId}/${other}`;
    const kept = (await sql<Record<string, unknown>>`select *, xid::text as xid_text from audit_log where chain = ${chain}`.execute(db())).rows[0]!;
    await behindTheBack('audit_log', `delete from audit_log where chain = '${chain}'`);
    await sql`update journeys set audit_seq = 0, audit_head = null where deal_id = ${deal.dealId} and investor_user_id = ${other}`.execute(db());
    const caught = await verify();
    assert.equal(caught.code, 1, caught.output);
    assert.match(
      caught.output,
      /MISMATCH at checkpoint \d+: it covers \d+ entries, but \d+ are in its range now \(an entry was removed: position (\d+), sealed, is not in the log\)/,
    );
    assert.equal(caught.output.match(/position (\d+), sealed/)![1], String(kept.position), 'verify names the removed entry');
    await sql`insert into audit_log (chain, seq, position, xid, type, principal, token_id, at, change, deal_id, prev_hash, hash)
      values (${kept.chain}, ${kept.seq}, ${kept.position}, ${kept.xid_text}::xid8, ${kept.type}, ${kept.principal}, ${kept.token_id}, ${kept.at},
        ${JSON.stringify(kept.change)}::jsonb, ${kept.deal_id}, ${kept.prev_hash}, ${kept.hash})`.execute(db());
    await sql`update journeys set audit_seq = 1, audit_head = ${kept.hash} where deal_id = ${deal.dealId} and investor_user_id = ${other}`.execute(db());
    assert.equal((await verify()).code, 0);
  });

  test('erasure: 409 during retention, override with a reason, tombstone in the directory, verify still passes', async () => {
    const erased = await deal.addInvestor({ forename: 'Grace', surname: 'Hopperzz' });
    await deal.move(erased, 'interest');
    const search = async () => (await admin.get(`/deals/deal/${deal.dealId}/all-investor-workflows?query=hopperzz`)).body.output.length;
    assert.equal(await search(), 1);
    await deal.move(erased, 'commitment', { committed_amount: '5000.00', currency: 'EUR' });
    const assetId = uniqueAssetId();
    assert.equal((await admin.put(`/portfolio/assets/${assetId}`, { name: 'Acme Series A', currency: 'EUR' })).status, 201);
    const booked = await admin.post(
      '/portfolio/transactions/subscriptions',
      subscriptionBody(assetId, erased, { description: 'Grace Hopperzz, first tranche' }),
    );
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const refused = expectProblem(await admin.post(`/investors/${erased}/erasure`, {}), 409);
    assert.match(refused.detail, /retained until \d{4}-\d\d-\d\dT.*5 years after their last event/);
    expectProblem(await admin.post(`/investors/${erased}/erasure`, { overrideRetention: true }), 400);
    expectProblem(await admin.post('/investors/no-such-investor/erasure', {}), 404);
    expectProblem(await client(t.app, await t.investorToken(erased)).post(`/investors/${erased}/erasure`, {}), 403);
    const done = await admin.post(`/investors/${erased}/erasure`, { overrideRetention: true, reason: 'court order 2026/17' });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.overrideRetention, true);
    const entry = await admin.get(`/investors/${erased}`);
    assert.equal(entry.status, 200);
    assert.equal(entry.body.contact.fullName, 'Erased investor');
    assert.equal(entry.body.contact.contact.email, null);
    assert.equal(await search(), 0, 'the name is gone from the search copies too');
    const journey = await admin.get(`/deals/deal/${deal.dealId}/investor-data/${erased}`);
    assert.equal(journey.body.journey[1].data.committed_amount, '5000.00', 'amounts stay');
    const booking = await sql<{
      description: string | null;
      total: string;
    }>`select description, total::text from subscriptions where id = ${booked.body.id}`.execute(db());
    assert.deepEqual(booking.rows[0], { description: null, total: String(booked.body.total) }, "the booking's description is cleared, its amounts stay");
    const again = await admin.post(`/investors/${erased}/erasure`);
    assert.equal(again.status, 200);
    assert.equal(again.body.erasedAt, done.body.erasedAt, 'erasing again answers the first erasure');
    const directory = await entries('directory');
    assert.equal(directory.at(-1)!.type, 'investor.erased');
    const verified = await verify({ seal: true });
    assert.equal(verified.code, 0, verified.output);
  });

  test('a subscription booking is an entry of its own chain, written with the booking', async () => {
    const assetId = uniqueAssetId();
    assert.equal((await admin.put(`/portfolio/assets/${assetId}`, { name: 'Acme Series A', currency: 'EUR' })).status, 201);
    const booked = await admin.post('/portfolio/transactions/subscriptions', subscriptionBody(assetId, investor));
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const [entry] = await entries(`subscription:${booked.body.id}`);
    assert.equal(entry?.type, 'subscription.booked');
    assert.equal(entry.change.total, String(booked.body.total));
    assert.equal(entry.change.investorUserId, investor);
    const bookings = async () =>
      Number((await sql<{ n: string }>`select count(*) as n from audit_log where chain like 'subscription:%'`.execute(db())).rows[0]!.n);
    const before = await bookings();
    const refused = await admin.post('/portfolio/transactions/subscriptions', subscriptionBody(assetId, 'no-such-investor'));
    assert.equal(refused.status, 404);
    assert.equal(await bookings(), before, 'no entry for a booking that was refused');
    assert.equal((await verify()).code, 0);
  });

  test('erasure after the retention period needs no override', async () => {
    const later = await deal.addInvestor();
    await deal.move(later, 'interest');
    const deps = { db: db(), clock: () => new Date(Date.now() + 6 * 366 * 86_400_000), newId: newUuid };
    const outcome = await eraseFromCommandLine(deps, SYSTEM_PRINCIPAL, later, {}, 5);
    assert.ok('erasure' in outcome, 'no deal holds the erasure for a second admin');
    const done = outcome.erasure;
    assert.equal(done.overrideRetention, false);
    assert.ok(done.retainedUntil && done.retainedUntil < done.erasedAt);
    assert.equal((await verify()).code, 0);
  });
});
