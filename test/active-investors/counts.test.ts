// The kept counts behind all-transactions and the deal search of all-investor-workflows (migration
// 0014): every writer of a journey's position keeps them right, and the no-search total is exact.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { mulberry32 } from '../../src/domain/random.ts';
import { rebuildListCounts } from '../../src/store/active-investors.ts';
import { startApp } from '../support/app.ts';
import { commit, createDeal, createInvestor, jump, type SubscriptionDeal } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

const URL = '/deals/deal/all-transactions';

describe('kept counts of active investors', () => {
  const t = startApp();
  const admin = t.admin;

  const family = () => uniqueId('Cnt').replace('-', '');
  const counts = async (surname: string) =>
    (await admin.post(`${URL}?limit=100`, { nameOrEmail: surname })).body.output.map((e: any) => [
      e.investor.id,
      e.dealsCompletedCount,
      e.dealsInProgressCount,
      e.dealsTotal,
    ]);
  /** Without a search, limit=1 makes totalPages the number of listed investors. */
  const listed = async () => (await admin.post(`${URL}?limit=1`, {})).body.totalPages as number;

  test('an approved withdrawal moves a journey from in progress to withdrawn', async () => {
    const surname = family();
    const investor = await createInvestor(admin, { forename: 'Wil', surname });
    const deal = await createDeal(admin, { workflow: 'subscription' });
    const event = await commit(admin, deal, investor.id);
    assert.deepEqual(await counts(surname), [[investor.id, '0', '1', '1']]);
    const request = await admin.post('/deals/request-to-edit', { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'changed my mind' });
    assert.equal(request.status, 201, JSON.stringify(request.body));
    const approved = await admin.post(`/deals/request-to-edit/${request.body.id}/approve`, {});
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.deepEqual(await counts(surname), [[investor.id, '0', '0', '1']]);
  });

  test('a re-applied workflow that changes a step type moves its journeys between the counts', async () => {
    const surname = family();
    const investor = await createInvestor(admin, { forename: 'Ria', surname });
    const dealId = uniqueId('deal');
    assert.equal((await admin.put(`/deals/deal/${dealId}`, { name: dealId })).status, 201);
    const workflow = (lastType: string) => ({
      label: 'Two steps',
      description: 'a then b',
      investorEngagementEnabled: true,
      steps: [
        { id: `${dealId}.a`, label: 'A', type: 'default', stepFields: [] },
        { id: `${dealId}.b`, label: 'B', type: lastType, stepFields: [] },
      ],
      links: [{ fromStepId: `${dealId}.a`, toStepId: `${dealId}.b` }],
    });
    assert.equal((await admin.put(`/deals/deal/${dealId}/workflow`, workflow('default'))).status, 201);
    await jump(admin, dealId, investor.id, `${dealId}.b`);
    assert.deepEqual(await counts(surname), [[investor.id, '0', '1', '1']]);
    const reapplied = await admin.put(`/deals/deal/${dealId}/workflow`, workflow('complete'));
    assert.equal(reapplied.status, 200, JSON.stringify(reapplied.body));
    assert.deepEqual(await counts(surname), [[investor.id, '1', '0', '1']]);
  });

  test('the total without a search follows status changes and first journeys only', async () => {
    const surname = family();
    const before = await listed();
    const investor = await createInvestor(admin, { forename: 'Tia', surname });
    assert.equal(await listed(), before, 'no journey yet');
    const [d1, d2] = [await createDeal(admin, { workflow: 'subscription' }), await createDeal(admin, { workflow: 'subscription' })];
    await jump(admin, d1.dealId, investor.id, d1.steps.interest);
    assert.equal(await listed(), before + 1);
    await jump(admin, d2.dealId, investor.id, d2.steps.interest);
    await jump(admin, d1.dealId, investor.id, d1.steps.commit, { committed_amount: '1.00', currency: 'EUR' });
    assert.equal(await listed(), before + 1, 'a second journey and later moves add nobody');
    const inactive = await admin.put(`/investors/${investor.id}`, { ...investor.body, contact: { ...investor.body.contact, status: 'inactive' } });
    assert.equal(inactive.status, 200);
    assert.equal(await listed(), before);
    assert.deepEqual(await counts(surname), []);
    await admin.put(`/investors/${investor.id}`, investor.body);
    assert.equal(await listed(), before + 1);
    assert.deepEqual(await counts(surname), [[investor.id, '0', '2', '2']]);
  });

  test('a renamed investor is found under the new name in both lists, and no longer under the old', async () => {
    const [old, renamed] = [family(), family()];
    const investor = await createInvestor(admin, { forename: 'Ned', surname: old });
    const deal = await createDeal(admin, { workflow: 'subscription' });
    await jump(admin, deal.dealId, investor.id, deal.steps.interest);
    const contact = {
      ...investor.body.contact,
      fullName: `Ned ${renamed}`,
      name: `Ned ${renamed}`,
      contact: { ...investor.body.contact.contact, surname: renamed, email: `ned@${renamed.toLowerCase()}.example` },
    };
    assert.equal((await admin.put(`/investors/${investor.id}`, { ...investor.body, contact })).status, 200);
    assert.deepEqual(
      (await counts(renamed)).map((r: string[]) => r[0]),
      [investor.id],
    );
    assert.deepEqual(await counts(old), []);
    const journeys = async (query: string) =>
      (await admin.get(`/deals/deal/${deal.dealId}/all-investor-workflows?query=${encodeURIComponent(query)}`)).body.output.map((e: any) => e.investor.id);
    assert.deepEqual(await journeys(renamed.toUpperCase()), [investor.id]);
    assert.deepEqual(await journeys(`@${renamed.toLowerCase()}.exa`), [investor.id], 'the new e-mail');
    assert.deepEqual(await journeys(old), []);
  });

  test('after many random moves the kept counts equal a recount of the journeys', async () => {
    const random = mulberry32(20261123);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const surname = family();
    const deals: SubscriptionDeal[] = [
      await createDeal(admin, { workflow: 'subscription' }),
      await createDeal(admin, { workflow: 'subscription' }),
      await createDeal(admin, { workflow: 'subscription' }),
    ];
    const investors = [];
    for (let i = 0; i < 6; i++) investors.push(await createInvestor(admin, { forename: `F${i}`, surname }));
    const data: Record<string, Record<string, string>> = { commit: { committed_amount: '10.00', currency: 'EUR' } };
    let applied = 0;
    for (let i = 0; i < 80; i++) {
      const deal = pick(deals);
      const step = pick(['interest', 'commit', 'pay', 'done', 'out'] as const);
      const response = await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
        investorUserId: pick(investors).id,
        targetStepId: deal.steps[step],
        data: data[step] ?? {},
      });
      assert.ok([201, 409, 422].includes(response.status), JSON.stringify(response.body));
      if (response.status === 201) applied++;
    }
    assert.ok(applied > 20, `only ${applied} moves applied`);
    const { rows: recount } = await sql<{ id: string; completed: string; in_progress: string; total: string }>`
      select j.investor_user_id as id,
        (count(*) filter (where s.type = 'complete'))::text as completed,
        (count(*) filter (where s.type = 'default'))::text as in_progress,
        count(*)::text as total
      from journeys j join workflow_steps s on s.id = j.current_step_id
      where j.event_count > 0 and j.investor_user_id = any(${investors.map((i) => i.id)})
      group by j.investor_user_id order by j.investor_user_id`.execute(t.database.db);
    const listedNow = (await counts(surname)).map((r: string[]) => r).sort((a: string[], b: string[]) => (a[0]! < b[0]! ? -1 : 1));
    assert.deepEqual(
      listedNow,
      recount.map((r) => [r.id, r.completed, r.in_progress, r.total]),
    );
    const { rows } = await sql<{ kept: string; counted: string }>`
      select (select coalesce(sum(investors), 0) from listed_investor_counts)::text as kept,
        (select count(*) from investors i where i.status = 'active'
           and exists (select 1 from journeys j where j.investor_user_id = i.id and j.event_count > 0))::text as counted`.execute(t.database.db);
    assert.equal(rows[0]!.kept, rows[0]!.counted);
    // The bulk rebuild (bench/scale-seed.ts) arrives at what the triggers kept.
    const total = await listed();
    await rebuildListCounts(t.database.db);
    assert.deepEqual(
      (await counts(surname)).sort((a: string[], b: string[]) => (a[0]! < b[0]! ? -1 : 1)),
      listedNow,
    );
    assert.equal(await listed(), total);
  });
});
