// Round trips per operation, counted at the driver (every statement the pool sends, BEGIN and
// COMMIT included), so that a change that adds one shows here. The counts are for the usual case:
// the deal's workflow in this instance's cache and no lock that had to wait; the token's lookup,
// when its cache entry has run out, is not counted.
// PostgreSQL only: the count comes from the `pg` pool (PGlite has none).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createDeal } from '../support/deals.ts';
import { investorBody, subscriptionBody, uniqueAssetId, uniqueId } from '../support/fixtures.ts';
import type { Client } from '../support/app.ts';
import { skipUnlessPostgres } from '../support/app.ts';
import { startCountingApp } from '../support/counting-app.ts';

describe('statements per operation (PostgreSQL)', { skip: skipUnlessPostgres }, () => {
  const counting = startCountingApp();
  let admin: Client;
  before(() => {
    admin = counting.admin();
  });

  /** The statements `call` sent, once a first call has warmed the caches (token, workflow). */
  async function statementsOf(call: () => Promise<{ status: number; text: string }>, status: number): Promise<string[]> {
    counting.take();
    const response = await call();
    assert.equal(response.status, status, response.text);
    // The token cache lives 10 s: on a slow machine a lookup of the token may fall inside the
    // call. It is authentication's, not the operation's, so it is left out of the count.
    return counting
      .take()
      .filter((s) => !/"api_tokens"/.test(s))
      .map((s) => s.replace(/\s+/g, ' ').slice(0, 80));
  }

  test('a move: begin, generic plans, one load, one write (its batch row for undo included), commit', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    await deal.move(await deal.addInvestor(), 'interest'); // this instance now caches the workflow
    const move =
      (step: string, data: Record<string, string> = {}) =>
      () =>
        admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step(step), data });
    // A first move also creates the journey row (the insert leaves it locked by the move).
    const first = await statementsOf(move('interest'), 201);
    assert.equal(first.length, 6, first.join('\n'));
    assert.match(first[3]!, /^insert into "journeys"/);
    const statements = await statementsOf(move('commitment', { committed_amount: '100.00', currency: 'EUR' }), 201);
    assert.deepEqual(statements.length, 5, statements.join('\n'));
    assert.match(statements[1]!, /plan_cache_mode/);
    assert.match(statements[2]!, /prepared:move-load/);
    assert.match(statements[3]!, /prepared:move-write/);
    assert.match(statements[4]!, /^commit/i);
  });

  test('an event edit: begin, one load, one write, commit', async () => {
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    await deal.move(investor, 'interest');
    const moved = await deal.move(investor, 'commitment', { committed_amount: '100.00', currency: 'EUR' });
    const statements = await statementsOf(() => admin.post(`/deals/event/${moved.id}/edit`, { committed_amount: '150.00', currency: 'EUR' }), 200);
    assert.equal(statements.length, 4, statements.join('\n'));
    assert.match(statements[1]!, /prepared:edit-load/);
    assert.match(statements[2]!, /prepared:edit-write/);
  });

  test('a subscription: one statement, which is its own transaction; with a new Idempotency-Key the same, the key stored by it', async () => {
    const assetId = uniqueAssetId();
    assert.equal((await admin.put(`/portfolio/assets/${assetId}`, { name: 'Fund', currency: 'EUR' })).status, 201);
    const investor = uniqueId('inv');
    assert.equal((await admin.put(`/investors/${investor}`, investorBody())).status, 201);
    const body = subscriptionBody(assetId, investor);
    const book = (headers?: Record<string, string>) => () => admin.post('/portfolio/transactions/subscriptions', body, headers);
    const plain = await statementsOf(book(), 201);
    assert.equal(plain.length, 1, plain.join('\n'));
    assert.match(plain[0]!, /prepared:subscription-insert /);
    const key = { 'idempotency-key': uniqueId('key') };
    const keyed = await statementsOf(book(key), 201);
    assert.equal(keyed.length, 1, keyed.join('\n'));
    assert.match(keyed[0]!, /prepared:subscription-insert-keyed/);
    // A replay: the statement finds the key held and writes nothing; one read of the stored response.
    const replay = await statementsOf(book(key), 201);
    assert.equal(replay.length, 2, replay.join('\n'));
    assert.match(replay[1]!, /"idempotency_keys"/);
  });
});
