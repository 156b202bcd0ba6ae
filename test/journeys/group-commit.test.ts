// Group commit of single moves (operations/move-groups.ts): moves of one deal that arrive while a
// transaction of that deal is in flight commit together, each with its own answer. The tests hold
// the deal's first move in flight (another transaction locks the deal's workflow row, which every
// move of the deal takes FOR SHARE; on PGlite that transaction holds the one connection), send the
// rest meanwhile, and read which transaction wrote each journey (journeys.feed_xid) to see the groups.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { systemClock, newUuid } from '../../src/operations/deps.ts';
import { GROUP_MAX_MOVES, MoveGroups } from '../../src/operations/move-groups.ts';
import { commitWatch, isOutcomeUnknown } from '../../src/store/errors.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { client, type Client, expectProblem, startApp } from '../support/app.ts';
import { verify } from '../support/audit.ts';
import { createDeal, type TestDeal } from '../support/deals.ts';

type Answer = Awaited<ReturnType<Client['post']>>;

describe('group commit of single moves', () => {
  const t = startApp();
  const admin = t.admin;

  const url = (deal: TestDeal) => `/deals/deal/${deal.dealId}/jump-to-step`;
  const move = (deal: TestDeal, investorUserId: string, step: string, data: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({
    investorUserId,
    targetStepId: deal.step(step),
    data,
    ...extra,
  });

  /**
   * Sends `first` and, while its transaction waits on the deal's workflow row locked here, `rest`:
   * they queue behind it and go as the next group(s). Answers in the order sent (first, then rest).
   */
  async function heldThenGrouped(deal: TestDeal, first: () => Promise<Answer>, rest: (() => Promise<Answer>)[]): Promise<Answer[]> {
    let sent: Promise<Answer>[] = [];
    await t.database.db.transaction().execute(async (trx) => {
      await sql`select 1 from workflows where deal_id = ${deal.dealId} for update`.execute(trx);
      sent.push(first());
      await sleep(100);
      sent = [...sent, ...rest.map((send) => send())];
      await sleep(400);
    });
    return Promise.all(sent);
  }

  /** The transaction that last moved each investor of the deal. */
  const writers = async (dealId: string) => {
    const { rows } = await sql<{ investor_user_id: string; xid: string }>`
      select investor_user_id, feed_xid::text as xid from journeys where deal_id = ${dealId}`.execute(t.database.db);
    return new Map(rows.map((r) => [r.investor_user_id, r.xid]));
  };

  const journeyOf = async (deal: TestDeal, investor: string) =>
    (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`)).body.journey as { id: string; toStepId: string }[];

  test('moves that arrive together commit in one transaction, each answered with its own event, outbox entry and audit entry', async () => {
    const deal = await createDeal(admin);
    const blocker = await deal.addInvestor();
    const investors = await Promise.all(Array.from({ length: 8 }, () => deal.addInvestor()));
    const bodies = investors.map((investor, i) =>
      i % 2 === 0
        ? move(deal, investor, 'interest', { note: `note ${i}` })
        : move(deal, investor, 'commitment', { committed_amount: `${i}000.00`, currency: 'EUR' }),
    );
    // Two callers: each event is recorded under the caller that asked for it.
    const other = client(t.app, (await createToken(t.database.db, { name: 'second admin', role: 'admin' })).token);
    const callerOf = (i: number) => (i % 3 === 0 ? other : admin);
    assert.equal((await other.get(`/deals/deal/${deal.dealId}/workflow-status`)).status, 200); // its token looked up (and cached) before
    const [held, ...answers] = await heldThenGrouped(
      deal,
      () => admin.post(url(deal), move(deal, blocker, 'interest')),
      bodies.map((body, i) => () => callerOf(i).post(url(deal), body)),
    );
    assert.equal(held!.status, 201, held!.text);
    assert.notEqual(answers[0]!.body.createdByUserId, answers[1]!.body.createdByUserId);
    answers.forEach((answer, i) => {
      assert.equal(answer.status, 201, answer.text);
      assert.equal(answer.body.createdByUserId, answers[callerOf(i) === other ? 0 : 1]!.body.createdByUserId);
      assert.equal(answer.body.toStepId, bodies[i]!.targetStepId);
      assert.deepEqual(answer.body.data, bodies[i]!.data);
      assert.equal(answer.body.fromStepId, null);
    });
    const xids = await writers(deal.dealId);
    const grouped = new Set(investors.map((investor) => xids.get(investor)));
    assert.equal(grouped.size, 1, 'the waiting moves committed in one transaction');
    assert.notEqual(xids.get(blocker), [...grouped][0], 'the move in flight committed on its own');
    // Each move has its event, its outbox entry (with the event it announces) and its audit entry.
    for (const [i, investor] of investors.entries())
      assert.deepEqual(
        (await journeyOf(deal, investor)).map((e) => e.id),
        [answers[i]!.body.id],
      );
    const { rows: outbox } = await sql<{ id: string }>`select payload->'event'->>'id' as id from outbox where deal_id = ${deal.dealId}`.execute(t.database.db);
    assert.deepEqual(outbox.map((r) => r.id).sort(), [held!.body.id, ...answers.map((a) => a.body.id)].sort());
    const { rows: audit } = await sql<{
      n: number;
    }>`select count(*)::int as n from audit_log where deal_id = ${deal.dealId} and type = 'journey.moved'`.execute(t.database.db);
    assert.equal(audit[0]!.n, investors.length + 1);
    assert.equal((await verify(t.database.db, { dealId: deal.dealId })).code, 0);
  });

  test(`a group holds at most ${GROUP_MAX_MOVES} moves and one move per investor; an investor's moves keep their order`, async () => {
    const deal = await createDeal(admin);
    const blocker = await deal.addInvestor();
    const investors = await Promise.all(Array.from({ length: GROUP_MAX_MOVES + 5 }, () => deal.addInvestor()));
    const twice = investors[0]!;
    const sends = [
      ...investors.map((investor) => () => admin.post(url(deal), move(deal, investor, 'interest'))),
      // The same investor again, expecting the step its first move takes it to: only after it.
      () =>
        admin.post(url(deal), move(deal, twice, 'commitment', { committed_amount: '1.00', currency: 'EUR' }, { expectedCurrentStepId: deal.step('interest') })),
    ];
    const [held, ...answers] = await heldThenGrouped(deal, () => admin.post(url(deal), move(deal, blocker, 'interest')), sends);
    for (const answer of [held!, ...answers]) assert.equal(answer.status, 201, answer.text);
    const xids = await writers(deal.dealId);
    const sizes = new Map<string, number>();
    for (const investor of investors.slice(1)) sizes.set(xids.get(investor)!, (sizes.get(xids.get(investor)!) ?? 0) + 1);
    assert.ok(Math.max(...sizes.values()) <= GROUP_MAX_MOVES, `groups of ${[...sizes.values()].join(', ')}`);
    assert.ok(Math.max(...sizes.values()) > 1, 'moves were grouped');
    assert.deepEqual(
      (await journeyOf(deal, twice)).map((e) => e.toStepId),
      [deal.step('interest'), deal.step('commitment')],
    );
  });

  test("a refusal inside a group is that move's own answer and writes nothing; the others are made", async () => {
    const deal = await createDeal(admin);
    const blocker = await deal.addInvestor();
    const [okA, okB, unknownStep, missing, stale, lowKyc] = await Promise.all(Array.from({ length: 6 }, () => deal.addInvestor({ kycCheckLevel: 1 })));
    await deal.move(stale!, 'interest');
    const [held, ...answers] = await heldThenGrouped(deal, () => admin.post(url(deal), move(deal, blocker, 'interest')), [
      () => admin.post(url(deal), move(deal, okA!, 'interest')),
      () => admin.post(url(deal), { ...move(deal, unknownStep!, 'interest'), targetStepId: `${deal.dealId}.nowhere` }),
      () => admin.post(url(deal), move(deal, missing!, 'commitment')),
      () => admin.post(url(deal), move(deal, stale!, 'commitment', { committed_amount: '5.00', currency: 'EUR' }, { expectedCurrentStepId: null })),
      () => admin.post(url(deal), move(deal, lowKyc!, 'kyc', { kyc_ref: 'K-1' })),
      () => admin.post(url(deal), move(deal, `inv-${randomUUID()}`, 'interest')),
      () => admin.post(url(deal), move(deal, okB!, 'commitment', { committed_amount: '7.00', currency: 'EUR' })),
    ]);
    assert.equal(held!.status, 201);
    assert.equal(answers[0]!.status, 201, answers[0]!.text);
    expectProblem(answers[1]!, 404);
    assert.deepEqual(expectProblem(answers[2]!, 422).missingFields, ['committed_amount', 'currency']);
    expectProblem(answers[3]!, 409);
    expectProblem(answers[4]!, 422);
    expectProblem(answers[5]!, 404);
    assert.equal(answers[6]!.status, 201, answers[6]!.text);
    const xids = await writers(deal.dealId);
    assert.equal(xids.get(okA!), xids.get(okB!), 'the allowed moves committed together');
    for (const refused of [unknownStep!, missing!, lowKyc!]) {
      assert.equal(xids.has(refused), false, 'a refused first move leaves no journey');
      assert.deepEqual(await journeyOf(deal, refused), []);
    }
    assert.equal((await journeyOf(deal, stale!)).length, 1);
  });

  test('Idempotency-Keys inside a group: each key answered once, a repeat in the same queue replays, a refused key is free again, another request with a key is a 422', async () => {
    const deal = await createDeal(admin);
    const blocker = await deal.addInvestor();
    const [a, b, c, d] = await Promise.all(Array.from({ length: 4 }, () => deal.addInvestor()));
    const key = () => `group-${randomUUID()}`;
    const [kA, kB, kC] = [key(), key(), key()];
    const bodyA = move(deal, a!, 'interest', { note: 'a' });
    const refusedB = move(deal, b!, 'commitment');
    const bodyC = move(deal, c!, 'interest');
    const [held, firstA, againA, answerB, answerC, otherC, plain] = await heldThenGrouped(deal, () => admin.post(url(deal), move(deal, blocker, 'interest')), [
      () => admin.post(url(deal), bodyA, { 'idempotency-key': kA }),
      () => admin.post(url(deal), bodyA, { 'idempotency-key': kA }),
      () => admin.post(url(deal), refusedB, { 'idempotency-key': kB }),
      () => admin.post(url(deal), bodyC, { 'idempotency-key': kC }),
      () => admin.post(url(deal), move(deal, d!, 'interest'), { 'idempotency-key': kC }),
      () => admin.post(url(deal), move(deal, d!, 'commitment', { committed_amount: '3.00', currency: 'EUR' })),
    ]);
    assert.equal(held!.status, 201);
    assert.equal(firstA!.status, 201, firstA!.text);
    assert.equal(firstA!.headers['idempotent-replayed'], undefined);
    assert.equal(againA!.status, 201, againA!.text);
    assert.equal(againA!.headers['idempotent-replayed'], 'true');
    assert.equal(againA!.text, firstA!.text);
    expectProblem(answerB!, 422);
    assert.equal(answerC!.status, 201, answerC!.text);
    expectProblem(otherC!, 422);
    assert.equal(plain!.status, 201, plain!.text);
    const xids = await writers(deal.dealId);
    assert.equal(xids.get(a!), xids.get(c!), 'the keyed moves committed together');
    // Retries: the answered keys replay byte for byte, the refused one runs again.
    const replayA = await admin.post(url(deal), bodyA, { 'idempotency-key': kA });
    assert.equal(replayA.headers['idempotent-replayed'], 'true');
    assert.equal(replayA.text, firstA!.text);
    const replayC = await admin.post(url(deal), bodyC, { 'idempotency-key': kC });
    assert.equal(replayC.text, answerC!.text);
    const retryB = await admin.post(url(deal), move(deal, b!, 'commitment', { committed_amount: '9.00', currency: 'EUR' }), { 'idempotency-key': kB });
    assert.equal(retryB.status, 201, retryB.text);
    assert.equal((await journeyOf(deal, a!)).length, 1);
    assert.equal((await journeyOf(deal, c!)).length, 1);
    assert.deepEqual(
      (await journeyOf(deal, d!)).map((e) => e.toStepId),
      [deal.step('commitment')],
    );
    const { rows } = await sql<{ status: string; n: number }>`select status, count(*)::int as n from idempotency_keys
      where key = any(${[kA, kB, kC]}::text[]) group by status`.execute(t.database.db);
    assert.deepEqual(rows, [{ status: 'done', n: 3 }]);
  });

  test('a group the database fails is rolled back and its moves run one by one: only the move the database refuses fails', async () => {
    const deal = await createDeal(admin);
    const blocker = await deal.addInvestor();
    const investors = await Promise.all(Array.from({ length: 5 }, () => deal.addInvestor()));
    const bad = investors[2]!;
    // A real database error for one move: a constraint its event breaks (added for this deal only).
    const constraint = `no_events_of_${bad.replace(/[^a-z0-9]/gi, '_')}`.slice(0, 60);
    await sql.raw(`alter table workflow_events add constraint ${constraint} check (investor_user_id <> '${bad}') not valid`).execute(t.database.db);
    try {
      const keyOfBad = `bad-${randomUUID()}`;
      const [held, ...answers] = await heldThenGrouped(
        deal,
        () => admin.post(url(deal), move(deal, blocker, 'interest')),
        investors.map((investor) => () => admin.post(url(deal), move(deal, investor, 'interest'), investor === bad ? { 'idempotency-key': keyOfBad } : {})),
      );
      assert.equal(held!.status, 201);
      investors.forEach((investor, i) => {
        if (investor === bad) expectProblem(answers[i]!, 500);
        else assert.equal(answers[i]!.status, 201, answers[i]!.text);
      });
      const xids = await writers(deal.dealId);
      const made = investors.filter((investor) => investor !== bad);
      assert.equal(new Set(made.map((investor) => xids.get(investor))).size, made.length, 'each move ran in a transaction of its own');
      assert.equal(xids.has(bad), false);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from idempotency_keys where key = ${keyOfBad}`.execute(t.database.db);
      assert.equal(rows[0]!.n, 0, 'the failed move keeps no key');
    } finally {
      await sql.raw(`alter table workflow_events drop constraint ${constraint}`).execute(t.database.db);
    }
    assert.equal((await verify(t.database.db, { dealId: deal.dealId })).code, 0);
  });
  test('a group whose commit was cut off: every move of it answers outcome-unknown, none is run again to a false "nothing applied"', async () => {
    const deal = await createDeal(admin);
    const investors = await Promise.all(Array.from({ length: 3 }, () => deal.addInvestor()));
    // The group's transaction commits, and its COMMIT is then answered as cut off (a commit waiting
    // for a synchronous standby that is gone); while that lasts every later transaction times out.
    const real = t.database.db;
    let transactions = 0;
    const db = new Proxy(real, {
      get(target, name, receiver) {
        if (name !== 'transaction') return Reflect.get(target, name, receiver);
        return () => ({
          execute: async (work: (trx: unknown) => Promise<unknown>) => {
            transactions++;
            if (transactions > 1) throw new Error('Query read timeout');
            const result = await target.transaction().execute(work as never);
            return commitWatch()
              .watch('commit', Promise.reject(new Error('Connection terminated unexpectedly')))
              .then(() => result);
          },
        });
      },
    }) as typeof real;
    const groups = new MoveGroups({ db, clock: systemClock, newId: newUuid });
    const principal = { userId: 'group-test', role: 'admin' as const, tokenKey: 'group-test' };
    const answers = await Promise.allSettled(
      investors.map((investor) => groups.move(principal, deal.dealId, { investorUserId: investor, targetStepId: deal.step('interest'), data: {} })),
    );
    assert.equal(transactions, 1, 'the moves went as one group, and were not run again');
    for (const answer of answers) {
      assert.equal(answer.status, 'rejected');
      assert.ok(isOutcomeUnknown((answer as PromiseRejectedResult).reason), String((answer as PromiseRejectedResult).reason));
    }
    // The commit landed: each move is there once.
    const xids = await writers(deal.dealId);
    assert.equal(new Set(investors.map((investor) => xids.get(investor))).size, 1);
    assert.equal((await verify(real, { dealId: deal.dealId })).code, 0);
  });
});
