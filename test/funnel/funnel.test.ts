// GET /deals/deal/{dealId}/funnel and …/funnel/daily: figures against a fixture computed by hand,
// filters, CSV, security, the upkeep off the move's transaction (a move only notes its journey;
// upkeeps racing moves and each other apply every move once), the kept tables row by row against
// a deal recomputed (a rebuild, the catch-up of a long backlog), and a property: after random moves
// the kept figures sum to the deal's investors and equal a recount from the stays and a rebuild
// from the events.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { newUuid } from '../../src/operations/deps.ts';
import { catchUpFunnel } from '../../src/operations/funnel.ts';
import { seedScale } from '../../src/operations/seed.ts';
import { applyPendingFunnel, catchUpFunnelByRebuild, findFunnelBacklog, rebuildFunnel } from '../../src/store/funnel-upkeep.ts';
import { sql } from 'kysely';
import { client, expectProblem, skipUnlessPostgres, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { investorBody } from '../support/fixtures.ts';
import { applyDealByUpkeep, emptyKeptFunnel, followWholeLog, keptFunnel, keptTables } from '../support/funnel.ts';
import { workflowBody } from '../support/workflows.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-01-01T08:00:00.000Z');

describe('funnel', () => {
  const t = startApp({ clock: () => new Date(now) });
  const admin = t.admin;
  let now = T0;

  const stepOf = (funnel: any, stepId: string) => funnel.steps.find((s: any) => s.stepId === stepId);

  test('figures of a hand-computed fixture: standing, entered, conversions, time in step, committed money, pending requests, and the daily series', async () => {
    const deal = await createDeal(admin);
    const s = deal.step;
    const [a, b, c, d] = [await deal.addInvestor(), await deal.addInvestor(), await deal.addInvestor(), await deal.addInvestor({ classes: ['professional'] })];
    // Day 1 (1 January): A interest → commitment (+1 h) → KYC (+3 h); B straight to commitment, withdrawn at +2 h.
    now = T0;
    await deal.move(a, 'interest');
    await deal.move(b, 'commitment', { committed_amount: '500.00', currency: 'USD' });
    now = T0 + HOUR;
    await deal.move(a, 'commitment', { committed_amount: '1000.00', currency: 'EUR' });
    now = T0 + 2 * HOUR;
    await deal.move(b, 'withdrawn');
    now = T0 + 3 * HOUR;
    await deal.move(a, 'kyc', { kyc_ref: 'K-A' });
    // Day 2: C interest → commitment (+4 h), with a pending edit request; D interest.
    now = T0 + 24 * HOUR;
    await deal.move(c, 'interest');
    await deal.move(d, 'interest');
    now = T0 + 28 * HOUR;
    const cCommitment = await deal.move(c, 'commitment', { committed_amount: '250.50', currency: 'EUR' });
    const request = await admin.post('/deals/request-to-edit', {
      workflowEventId: cCommitment.id,
      type: 'Investment Amount',
      reason: 'more',
      newData: { committed_amount: '300.00' },
    });
    assert.equal(request.status, 201, JSON.stringify(request.body));

    const response = await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true`);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const funnel = response.body;
    assert.equal(funnel.investors, 4);
    assert.equal(funnel.workflowVersion, 1);
    assert.deepEqual(
      funnel.steps.map((x: any) => x.stepId),
      ['interest', 'commitment', 'kyc', 'withdrawn', 'documents', 'payment', 'complete'].map(s),
    );
    assert.deepEqual(stepOf(funnel, s('interest')), {
      stepId: s('interest'),
      label: 'Interest',
      type: 'default',
      current: true,
      standing: 1,
      entered: 3,
      left: 2,
      conversions: [{ toStepId: s('commitment'), investors: 2, rate: 0.6667 }],
      // Stays of 1 h (A) and 4 h (C): nearest rank, ceil(0.5 × 2) = 1st and ceil(0.9 × 2) = 2nd.
      timeInStep: { medianMs: HOUR, p90Ms: 4 * HOUR },
      committed: [],
      pendingEditRequests: 0,
    });
    assert.deepEqual(stepOf(funnel, s('commitment')), {
      stepId: s('commitment'),
      label: 'Commitment',
      type: 'default',
      current: true,
      standing: 1,
      entered: 3,
      left: 2,
      conversions: [
        { toStepId: s('kyc'), investors: 1, rate: 0.3333 },
        { toStepId: s('withdrawn'), investors: 1, rate: 0.3333 },
      ],
      timeInStep: { medianMs: 2 * HOUR, p90Ms: 2 * HOUR },
      committed: [{ currency: 'EUR', total: '250.50', investors: 1 }],
      pendingEditRequests: 1,
    });
    assert.deepEqual(stepOf(funnel, s('kyc')).committed, [{ currency: 'EUR', total: '1000.00', investors: 1 }]);
    assert.deepEqual(stepOf(funnel, s('withdrawn')).committed, [{ currency: 'USD', total: '500.00', investors: 1 }]);
    assert.deepEqual(stepOf(funnel, s('kyc')).timeInStep, { medianMs: null, p90Ms: null });
    assert.equal(stepOf(funnel, s('complete')).entered, 0);

    // Approving the edit changes C's commitment: the money follows in the same transaction.
    assert.equal((await admin.post(`/deals/request-to-edit/${request.body.id}/approve`, {})).status, 200);
    const edited = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true`)).body;
    assert.deepEqual(stepOf(edited, s('commitment')).committed, [{ currency: 'EUR', total: '300.00', investors: 1 }]);
    assert.equal(stepOf(edited, s('commitment')).pendingEditRequests, 0);

    // Filters: classification, and entry into the deal (day 2: C and D).
    const professional = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true&classification=professional`)).body;
    assert.equal(professional.investors, 1);
    assert.deepEqual([stepOf(professional, s('interest')).standing, stepOf(professional, s('interest')).entered], [1, 1]);
    const day2 = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true&enteredFrom=2026-01-02&enteredTo=2026-01-02`)).body;
    assert.equal(day2.investors, 2);
    assert.deepEqual(stepOf(day2, s('interest')).timeInStep, { medianMs: 4 * HOUR, p90Ms: 4 * HOUR });
    assert.deepEqual(stepOf(day2, s('commitment')).committed, [{ currency: 'EUR', total: '300.00', investors: 1 }]);
    // A filter that keeps everyone computes from the stays what the kept sums say.
    const everyone = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true&enteredFrom=2000-01-01`)).body;
    assert.deepEqual(everyone.steps, edited.steps);

    // The daily series: standing at the end of each day, entered and left that day.
    const daily = await admin.get(`/deals/deal/${deal.dealId}/funnel/daily?fresh=true&from=2025-12-31&to=2026-01-03`);
    assert.equal(daily.status, 200, JSON.stringify(daily.body));
    const day = (date: string, stepId: string) => daily.body.days.find((x: any) => x.date === date).steps.find((x: any) => x.stepId === stepId);
    assert.deepEqual(
      daily.body.days.map((x: any) => x.date),
      ['2025-12-31', '2026-01-01', '2026-01-02', '2026-01-03'],
    );
    assert.deepEqual(day('2025-12-31', s('interest')), { stepId: s('interest'), standing: 0, entered: 0, left: 0 });
    assert.deepEqual(day('2026-01-01', s('interest')), { stepId: s('interest'), standing: 0, entered: 1, left: 1 });
    assert.deepEqual(day('2026-01-01', s('commitment')), { stepId: s('commitment'), standing: 0, entered: 2, left: 2 });
    assert.deepEqual(day('2026-01-01', s('kyc')), { stepId: s('kyc'), standing: 1, entered: 1, left: 0 });
    assert.deepEqual(day('2026-01-02', s('interest')), { stepId: s('interest'), standing: 1, entered: 2, left: 1 });
    assert.deepEqual(day('2026-01-02', s('commitment')), { stepId: s('commitment'), standing: 1, entered: 1, left: 0 });
    assert.deepEqual(day('2026-01-03', s('withdrawn')), { stepId: s('withdrawn'), standing: 1, entered: 0, left: 0 });
    // Only from day 2 on: what stood before is carried in.
    const later = (await admin.get(`/deals/deal/${deal.dealId}/funnel/daily?fresh=true&from=2026-01-02&to=2026-01-02`)).body;
    assert.deepEqual(
      later.days[0].steps.find((x: any) => x.stepId === s('kyc')),
      { stepId: s('kyc'), standing: 1, entered: 0, left: 0 },
    );

    // CSV, one row per step.
    const csv = await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true`, { accept: 'text/csv' });
    assert.equal(csv.status, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    assert.equal(lines[0], 'stepId,label,type,current,standing,entered,left,medianMs,p90Ms,pendingEditRequests,committed,conversions');
    assert.equal(
      lines[2],
      `${s('commitment')},Commitment,default,true,1,3,2,7200000,7200000,0,EUR 300.00 (1),${s('kyc')} 1 (0.3333); ${s('withdrawn')} 1 (0.3333)`,
    );
    const dailyCsv = await admin.get(`/deals/deal/${deal.dealId}/funnel/daily?fresh=true&from=2026-01-01&to=2026-01-01`, { accept: 'text/csv' });
    assert.equal(dailyCsv.text.split('\r\n')[0], 'date,stepId,standing,entered,left');
  });

  test('journeys written in bulk (seed: many investors, events and deals in one statement) are counted as moves one by one are', async () => {
    now = T0;
    const { dealIds } = await seedScale({ db: t.database.db, clock: () => new Date(now), newId: newUuid }, { investors: 60, deals: 2 });
    for (const dealId of dealIds) {
      const kept = (await admin.get(`/deals/deal/${dealId}/funnel?fresh=true`)).body;
      assert.equal(kept.investors, 60);
      assert.ok(
        kept.steps.some((s: any) => s.committed.length > 0),
        'commitments are counted',
      );
      assert.equal(kept.steps.reduce((n: number, s: any) => n + s.committed.reduce((m: number, c: any) => m + c.investors, 0), 0) > 30, true);
      const recount = (await admin.get(`/deals/deal/${dealId}/funnel?fresh=true&enteredFrom=2000-01-01`)).body;
      assert.deepEqual(recount.steps, kept.steps);
      await rebuildFunnel(t.database.db, dealId);
      assert.deepEqual((await admin.get(`/deals/deal/${dealId}/funnel?fresh=true`)).body.steps, kept.steps);
    }
  });

  test('a long backlog is taken in by recomputing the deals it names: the same figures as the upkeep batch by batch, the cursor past it', async () => {
    await catchUpFunnel(t.database, 'now');
    now = T0;
    const { dealIds } = await seedScale({ db: t.database.db, clock: () => new Date(now), newId: newUuid }, { investors: 40, deals: 2 });
    const deal = await createDeal(admin);
    const a = await deal.addInvestor();
    const event = await deal.move(a, 'commitment', { committed_amount: '100.00', currency: 'EUR' });
    await deal.move(a, 'kyc', { kyc_ref: 'K-1' });
    assert.equal((await admin.post(`/deals/event/${event.id}/edit`, { committed_amount: '250.00', currency: 'EUR' })).status, 200);
    const deals = [...dealIds, deal.dealId];
    const figures = async () => Promise.all(deals.map(async (id) => (await admin.get(`/deals/deal/${id}/funnel`)).body.steps));
    assert.equal(await catchUpFunnelByRebuild(t.database.db, 1_000_000), 0, 'fewer entries wait than asked for: nothing done');
    // The upkeep batch by batch, to the log's end: one run stops below any transaction still running
    // on the server that may write this database (another test file's, on a shared PostgreSQL), so
    // it runs until the cursor is past every entry; the catch-up below then has every writer behind
    // its horizon too, and passes every entry.
    await followWholeLog(t.database.db);
    const followed = await figures();
    const rows = async () => Promise.all(deals.map((id) => keptFunnel(t.database.db, id, { asRead: true })));
    const followedRows = await rows();
    // The same log taken in again from its start, by recomputing.
    await t.database.db.transaction().execute(async (trx) => {
      await sql`select set_config('dealflow.funnel_rebuilding', 'on', true)`.execute(trx);
      for (const table of keptTables) await sql`delete from ${sql.table(table)}`.execute(trx);
      await sql`update funnel_upkeep set followed_xid = '0', followed_position = 0 where id = 1`.execute(trx);
    });
    assert.ok((await catchUpFunnelByRebuild(t.database.db, 1)) > 0);
    assert.equal((await findFunnelBacklog(t.database.db)).waiting, false, 'the cursor is past every entry');
    assert.deepEqual(await figures(), followed);
    assert.deepEqual(await rows(), followedRows);
    assert.equal(stepOf({ steps: (await figures())[2] }, deal.step('kyc')).committed[0].total, '250.00', 'the edit counts');
  });

  test('the kept tables row by row: recomputing a deal (a rebuild, the catch-up) writes what the upkeep writes, move by move or batch by batch', async () => {
    await catchUpFunnel(t.database, 'now');
    const db = t.database.db;
    const deal = await createDeal(admin);
    const a = await deal.addInvestor({ classes: ['professional'] });
    const b = await deal.addInvestor({ classes: ['professional', 'sophisticated'] });
    const c = await deal.addInvestor({ classes: [] });
    const d = await deal.addInvestor({ classes: ['sophisticated'] });
    const at = (days: number, hours = 0) => {
      now = T0 + days * 24 * HOUR + hours * HOUR;
    };
    // Forward, back and again to a step already left (a's kyc, c's commitment), on several days and
    // in entry days of several blocks of 8 and 64 days (d enters 70 days after the others), one
    // commitment in USD and an edit of another (to fewer decimals); upkeeps of one entry between some.
    at(0);
    await deal.move(a, 'interest');
    const committed = await deal.move(a, 'commitment', { committed_amount: '100.25', currency: 'EUR' });
    at(0, 5);
    await deal.move(b, 'commitment', { committed_amount: '300', currency: 'USD' });
    await applyPendingFunnel(db, 1);
    at(1);
    await deal.move(a, 'kyc', { kyc_ref: 'K-1' });
    await deal.move(c, 'interest');
    at(3, 2);
    await deal.move(a, 'commitment', { committed_amount: '100.25', currency: 'EUR' });
    await deal.move(c, 'commitment', { committed_amount: '50.00', currency: 'EUR' });
    await applyPendingFunnel(db, 1);
    at(9);
    await deal.move(a, 'kyc', { kyc_ref: 'K-2' });
    await deal.move(c, 'interest');
    await deal.move(b, 'withdrawn');
    assert.equal((await admin.post(`/deals/event/${committed.id}/edit`, { committed_amount: '250.5', currency: 'EUR' })).status, 200);
    at(10);
    await deal.move(c, 'commitment', { committed_amount: '75.00', currency: 'EUR' });
    await deal.move(a, 'documents', { signed: 'yes' });
    await catchUpFunnel(t.database, 'now');
    // A change of classes (b's journey recounted under its new ones) and a workflow migration (every
    // journey gets an event that keeps its step: no stay, a new last event).
    assert.equal((await admin.put(`/investors/${b}`, investorBody({ classes: ['retail'] }))).status, 200);
    at(70);
    await deal.move(d, 'interest');
    at(71);
    await deal.move(d, 'commitment', { committed_amount: '10', currency: 'EUR' });
    await applyPendingFunnel(db, 1);
    const changed = { ...workflowBody(deal.dealId), description: 'Migrated' };
    assert.equal((await admin.put(`/deals/deal/${deal.dealId}/workflow`, changed)).status, 200);
    assert.equal((await admin.post(`/deals/deal/${deal.dealId}/workflow/migrate`, {})).body.migrated, 4);
    // Everything taken in (a fresh read gives up after a few seconds behind another writer), and
    // the catch-up below finds every writer behind its horizon.
    await followWholeLog(db);

    // Move by move (the upkeep as it went), against the same deal computed again batch by batch:
    // the same rows, but for the sums the upkeep took back to zero.
    const followed = await keptFunnel(db, deal.dealId, { asRead: true });
    assert.deepEqual(
      Object.entries(followed).filter(([, rows]) => rows.length === 0),
      [],
      'every kept table has rows',
    );
    assert.ok((await keptFunnel(db, deal.dealId)).funnel_money!.length > followed.funnel_money!.length, 'the upkeep left sums of zero');
    await applyDealByUpkeep(db, deal.dealId);
    const batch = await keptFunnel(db, deal.dealId);
    assert.deepEqual(await keptFunnel(db, deal.dealId, { asRead: true }), followed);
    // Recomputed: the rows the upkeep batch writes, every one.
    await rebuildFunnel(db, deal.dealId);
    assert.deepEqual(await keptFunnel(db, deal.dealId), batch);
    // The catch-up of the whole log from its start, this deal's rows emptied first.
    await emptyKeptFunnel(db, deal.dealId);
    await sql`update funnel_upkeep set followed_xid = '0', followed_position = 0 where id = 1`.execute(db);
    assert.ok((await catchUpFunnelByRebuild(db, 1)) > 0);
    assert.deepEqual(await keptFunnel(db, deal.dealId), batch);
    const stays = batch.funnel_stays!.map((row) => JSON.parse(row));
    assert.equal(stays.filter((s) => s.investor_user_id === a).length, 6, "a's stays: interest, commitment, kyc, commitment, kyc, documents");
    assert.equal(new Set(stays.map((s) => s.entry_day)).size, 3, 'three entry days');
  });

  /** What the kept tables hold for a deal, straight from the database (no upkeep first), and what waits for the funnel. */
  const keptNow = async (dealId: string) => {
    const { rows } = await sql<{ standing: string | null; pending: string }>`select
        (select sum(standing) from funnel_counts where deal_id = ${dealId} and class = '') as standing,
        (select count(*) from funnel_pending where deal_id = ${dealId}) as pending`.execute(t.database.db);
    return { standing: Number(rows[0]!.standing ?? 0), pending: Number(rows[0]!.pending), waiting: (await findFunnelBacklog(t.database.db)).waiting };
  };

  test('a move (and an edit of its data) writes nothing for the funnel; the upkeep takes it from the audit log, a plain read reports the lag, a fresh read catches up', async () => {
    now = T0;
    await catchUpFunnel(t.database, 'now');
    const deal = await createDeal(admin);
    const a = await deal.addInvestor();
    const event = await deal.move(a, 'commitment', { committed_amount: '100.00', currency: 'EUR' });
    assert.deepEqual(await keptNow(deal.dealId), { standing: 0, pending: 0, waiting: true }, 'the move noted nothing: its audit entry waits');
    // A plain read answers with the figures as kept, and says how far behind they are.
    now = T0 + 1500;
    const stale = (await admin.get(`/deals/deal/${deal.dealId}/funnel`)).body;
    assert.equal(stale.investors, 0);
    assert.equal(stale.lag, 1.5, 'the oldest waiting move was made 1.5 s ago');
    assert.ok((await catchUpFunnel(t.database, 'now')) > 0);
    assert.deepEqual(await keptNow(deal.dealId), { standing: 1, pending: 0, waiting: false });
    assert.equal(await catchUpFunnel(t.database, 'now'), 0, 'nothing left to apply');
    const current = (await admin.get(`/deals/deal/${deal.dealId}/funnel`)).body;
    assert.equal(current.lag, 0);
    assert.equal(current.investors, 1);

    await deal.move(a, 'kyc', { kyc_ref: 'K-1' });
    const edited = await admin.post(`/deals/event/${event.id}/edit`, { committed_amount: '250.00', currency: 'EUR' });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual(await keptNow(deal.dealId), { standing: 1, pending: 0, waiting: true });
    // A fresh read applies both first: the investor stands at KYC with the edited commitment.
    const funnel = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true`)).body;
    assert.equal(funnel.lag, 0);
    assert.equal(stepOf(funnel, deal.step('kyc')).standing, 1);
    assert.equal(stepOf(funnel, deal.step('commitment')).left, 1);
    assert.deepEqual(stepOf(funnel, deal.step('kyc')).committed, [{ currency: 'EUR', total: '250.00', investors: 1 }]);
    assert.deepEqual(await keptNow(deal.dealId), { standing: 1, pending: 0, waiting: false });
  });

  test('moves of one deal in opposite directions and upkeeps all at once: no move waits or fails, and the kept figures equal a rebuild (PostgreSQL)', {
    skip: skipUnlessPostgres,
  }, async () => {
    const deal = await createDeal(admin);
    const investors: string[] = [];
    for (let i = 0; i < 40; i++) investors.push(await deal.addInvestor());
    for (const [i, id] of investors.entries()) {
      await deal.move(id, 'commitment', { committed_amount: `${i + 1}.00`, currency: 'EUR' });
      if (i % 2) await deal.move(id, 'kyc', { kyc_ref: `K-${i}` });
    }
    // Half go forward to KYC, half back to the commitment, in three rounds of 40 moves at once,
    // while three upkeeps (as three instances would) apply whatever has committed. Moves never
    // touch the kept tables, so none is a deadlock victim or waits for an upkeep: every one is a
    // 201 at the first try. After the first round the test waits until an upkeep has applied
    // some of it, so that the later rounds race upkeeps that are at work.
    let moving = true;
    let upkept = 0;
    const upkeeps = [1, 2, 3].map(async () => {
      while (moving) {
        const applied = await catchUpFunnel(t.database); // (not `upkept += await …`: that reads upkept before the await)
        upkept += applied;
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    for (const round of [0, 1, 2]) {
      await Promise.all(
        investors.map(async (id, i) => {
          const back = (i + round) % 2 === 1;
          const body = back
            ? { investorUserId: id, targetStepId: deal.step('commitment'), data: {} }
            : { investorUserId: id, targetStepId: deal.step('kyc'), data: { kyc_ref: `K-${i}` } };
          const response = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, body);
          assert.equal(response.status, 201, JSON.stringify(response.body));
        }),
      );
      for (let waited = 0; round === 0 && upkept === 0; waited += 10) {
        assert.ok(waited < 30_000, 'an upkeep applies the first round');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    moving = false;
    await Promise.all(upkeeps);
    const kept = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true`)).body;
    assert.equal(stepOf(kept, deal.step('kyc')).standing, 20);
    assert.equal(stepOf(kept, deal.step('commitment')).standing, 20);
    assert.equal(stepOf(kept, deal.step('kyc')).entered, 40);
    await rebuildFunnel(t.database.db, deal.dealId);
    assert.deepEqual((await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true`)).body.steps, kept.steps);
  });

  test('bad filters are 400s naming the parameter; investors get 403; unknown deals 404', async () => {
    const deal = await createDeal(admin);
    const a = await deal.addInvestor();
    await deal.move(a, 'interest');
    for (const query of ['enteredFrom=2026-02-30', 'enteredFrom=yesterday', 'enteredFrom=2026-03-02&enteredTo=2026-03-01', 'classification=']) {
      expectProblem(await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true&${query}`), 400);
    }
    expectProblem(await admin.get(`/deals/deal/${deal.dealId}/funnel/daily?fresh=true&from=2024-01-01&to=2026-01-01`), 400);
    expectProblem(await admin.get(`/deals/deal/${deal.dealId}/funnel/daily?fresh=true&from=2026-01-02&to=2026-01-01`), 400);
    expectProblem(await admin.get('/deals/deal/no-such-deal/funnel'), 404);
    const investor = client(t.app, await t.investorToken(a));
    expectProblem(await investor.get(`/deals/deal/${deal.dealId}/funnel?fresh=true`), 403);
    expectProblem(await investor.get(`/deals/deal/${deal.dealId}/funnel/daily?fresh=true`), 403);
  });

  test("property: after random moves and changes of investors' classes, with upkeeps anywhere between them, standing sums to the deal's investors, and the kept figures (all, and per class) equal a recount and a rebuild", async () => {
    const names = ['interest', 'commitment', 'kyc', 'documents', 'payment', 'complete', 'withdrawn'];
    const data: Record<string, Record<string, string>> = {
      commitment: { committed_amount: '100.25', currency: 'EUR' },
      kyc: { kyc_ref: 'K' },
      documents: { signed: 'yes' },
    };
    const classSets = [[], ['professional'], ['sophisticated'], ['professional', 'sophisticated']];
    const classes = ['professional', 'sophisticated', 'retail'];
    let applied = 0;
    let reclassified = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            investor: fc.nat(3),
            // A move (to a step after some minutes) or a change of the investor's classes.
            change: fc.oneof(
              { weight: 3, arbitrary: fc.record({ step: fc.nat(names.length - 1), minutes: fc.integer({ min: 1, max: 3000 }) }) },
              { weight: 1, arbitrary: fc.record({ classes: fc.nat(classSets.length - 1) }) },
            ),
            // Whether an upkeep runs right after it: none (the next one, or the read, applies it), one
            // transaction of one pending row (an upkeep that takes part of what is pending), or all.
            upkeep: fc.constantFrom('none', 'one', 'all'),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        async (actions) => {
          const deal = await createDeal(admin);
          const investors: string[] = [];
          for (let i = 0; i < 6; i++) investors.push(await deal.addInvestor({ classes: [i % 2 ? 'professional' : 'sophisticated'] }));
          now = T0;
          for (const { investor, change, upkeep } of actions) {
            if ('classes' in change) {
              const put = await admin.put(`/investors/${investors[investor]}`, investorBody({ classes: classSets[change.classes] }));
              assert.equal(put.status, 200, JSON.stringify(put.body));
              reclassified += 1;
            } else {
              now += change.minutes * 60_000;
              const name = names[change.step]!;
              const moved = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
                investorUserId: investors[investor],
                targetStepId: deal.step(name),
                data: data[name] ?? {},
              });
              if (moved.status === 201) applied += 1;
            }
            if (upkeep === 'one') await applyPendingFunnel(t.database.db, 1);
            if (upkeep === 'all') await catchUpFunnel(t.database, 'now');
          }
          const journeys = (await admin.get(`/deals/deal/${deal.dealId}/all-investor-workflows?limit=100`)).body.output.filter(
            (o: any) => o.journey.length > 0,
          );
          const kept = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true`)).body;
          assert.equal(kept.investors, journeys.length);
          assert.equal(
            kept.steps.reduce((n: number, st: any) => n + st.standing, 0),
            journeys.length,
          );
          for (const j of journeys) {
            const at = j.journey.at(-1).toStepId;
            assert.ok(stepOf(kept, at).standing > 0);
          }
          const recount = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true&enteredFrom=2000-01-01`)).body;
          assert.deepEqual(recount.steps, kept.steps);
          // Per class: the kept sums of the class against a recount from the stays of the investors holding it now.
          const byClass = async () => {
            const figures: Record<string, unknown> = {};
            for (const c of classes) {
              const keptClass = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true&classification=${c}`)).body;
              const recountClass = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true&classification=${c}&enteredFrom=2000-01-01`)).body;
              assert.deepEqual(keptClass.steps, recountClass.steps, `class ${c}`);
              figures[c] = keptClass.steps;
            }
            return figures;
          };
          const keptByClass = await byClass();
          await rebuildFunnel(t.database.db, deal.dealId);
          const rebuilt = (await admin.get(`/deals/deal/${deal.dealId}/funnel?fresh=true`)).body;
          assert.deepEqual(rebuilt.steps, kept.steps);
          assert.deepEqual(await byClass(), keptByClass);
        },
      ),
      { numRuns: 12 },
    );
    assert.ok(applied > 12, `only ${applied} moves were applied`);
    assert.ok(reclassified > 0, 'no investor changed classes');
  });
});
