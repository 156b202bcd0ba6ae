// Investors' categories over HTTP: an approver records the statement an investor signed; it counts
// for 12 months; a step may require a current one (`investor-category`), and while the newest has
// expired the deal's payment step is closed to the investor until a renewed statement is recorded.
// Staff read every investor's statements, an investor their own, and anyone else's id is a 404 as
// an unknown one is. An erasure clears the evidence and keeps the rest.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor, jump } from '../support/deals.ts';
import { payingDeal } from '../support/payments.ts';
import { payingWorkflow } from '../support/workflows.ts';
import { rowCounts } from '../support/row-counts.ts';

describe('investor categories', () => {
  let now = Date.parse('2026-03-15T10:00:00.000Z');
  const t = startApp({ clock: () => new Date(now) });

  const STATEMENT = 'I declare that I am a certified high net worth individual for the purposes of the Financial Promotion Order.';
  const statement = (overrides: Record<string, unknown> = {}) => ({
    category: 'certified-high-net-worth',
    statementText: STATEMENT,
    signedOn: '2026-03-15',
    evidence: 'Signed statement, scanned, file HNW-2026-017',
    ...overrides,
  });

  const staffClient = async (role: 'viewer' | 'operator' | 'approver') =>
    client(t.app, (await createToken(t.database.db, { name: `${role} key`, role })).token);

  describe('investor categories', () => {
    test('an approver records a statement; it counts 12 months; staff and the investor read it, anyone else gets 404', async () => {
      const { id } = await createInvestor(t.admin);
      const approver = await staffClient('approver');
      const recorded = await approver.post(`/investors/${id}/category-statements`, statement());
      assert.equal(recorded.status, 201, recorded.text);
      assert.deepEqual(
        { category: recorded.body.category, signedOn: recorded.body.signedOn, expiresOn: recorded.body.expiresOn, evidence: recorded.body.evidence },
        { category: 'certified-high-net-worth', signedOn: '2026-03-15', expiresOn: '2027-03-15', evidence: 'Signed statement, scanned, file HNW-2026-017' },
      );

      const viewer = await staffClient('viewer');
      const read = await viewer.get(`/investors/${id}/category-statements`);
      assert.equal(read.status, 200);
      assert.equal(read.body.current.id, recorded.body.id);
      assert.equal(read.body.current.standing, 'valid');
      assert.equal(read.body.statements.length, 1);

      const own = await client(t.app, await t.investorToken(id)).get(`/investors/${id}/category-statements`);
      assert.equal(own.status, 200);
      assert.equal(own.body.current.statementText, STATEMENT);

      const { id: other } = await createInvestor(t.admin);
      const stranger = client(t.app, await t.investorToken(other));
      const theirs = expectProblem(await stranger.get(`/investors/${id}/category-statements`), 404);
      const unknown = expectProblem(await stranger.get('/investors/inv-nobody-at-all/category-statements'), 404);
      assert.equal(theirs.title, unknown.title, 'another investor’s id reads as an unknown one');

      // Recording is the approver's: an operator and an investor are refused, and nothing changes.
      const operator = await staffClient('operator');
      const investor = client(t.app, await t.investorToken(id));
      const before = await rowCounts(t);
      expectProblem(await operator.post(`/investors/${id}/category-statements`, statement()), 403);
      expectProblem(await investor.post(`/investors/${id}/category-statements`, statement()), 403);
      assert.deepEqual(await rowCounts(t), before);
    });

    test('bad input is a 400 naming the field, an unknown investor a 404, and nothing is stored', async () => {
      const { id } = await createInvestor(t.admin);
      const before = await rowCounts(t);
      const cases: [Record<string, unknown>, string][] = [
        [{ category: 'rich' }, 'category'],
        [{ signedOn: '2026-02-30' }, 'signedOn'],
        [{ signedOn: '2026-03-16' }, 'signedOn'],
        [{ statementText: '   ' }, 'statementText'],
        [{ statementText: '' }, 'statementText'],
        [{ surprise: true }, 'surprise'],
      ];
      for (const [overrides, field] of cases) {
        const problem = expectProblem(await t.admin.post(`/investors/${id}/category-statements`, statement(overrides)), 400);
        assert.ok(
          problem.errors?.some((e: { field: string }) => e.field.includes(field)) || problem.detail.includes(field),
          `${JSON.stringify(overrides)}: ${JSON.stringify(problem)}`,
        );
      }
      expectProblem(await t.admin.post('/investors/inv-nobody-at-all/category-statements', statement()), 404);
      assert.deepEqual(await rowCounts(t), before);
    });

    test('a step requiring a current category: refused without one, entered with one, refused again once it expired', async () => {
      const deal = await createDeal(t.admin, { workflow: 'paying' });
      const body = payingWorkflow(deal.dealId);
      const commitment = body.steps[1] as (typeof body.steps)[1] & { requirements?: unknown[] };
      commitment.requirements = [{ kind: 'investor-category', categories: ['certified-high-net-worth', 'certified-sophisticated'] }];
      const bad = structuredClone(body);
      (bad.steps[1] as typeof commitment).requirements = [{ kind: 'investor-category', categories: ['rich'] }];
      const refusedWorkflow = expectProblem(await t.admin.put(`/deals/deal/${deal.dealId}/workflow`, bad), 400);
      assert.ok(
        refusedWorkflow.errors?.some((e: { field: string }) => e.field.endsWith('.categories')),
        JSON.stringify(refusedWorkflow),
      );
      const set = await t.admin.put(`/deals/deal/${deal.dealId}/workflow`, body);
      assert.ok([200, 201].includes(set.status), set.text);

      const { id } = await createInvestor(t.admin);
      const commit = { committed_amount: '25000.00', currency: 'EUR' };
      const move = () => t.admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: id, targetStepId: deal.step('commitment'), data: commit });
      const none = expectProblem(await move(), 422);
      assert.match(JSON.stringify(none), /no category statement/);

      await t.admin.post(`/investors/${id}/category-statements`, statement({ category: 'self-certified-sophisticated' }));
      assert.match(JSON.stringify(expectProblem(await move(), 422)), /category is self-certified-sophisticated/);

      assert.equal((await t.admin.post(`/investors/${id}/category-statements`, statement())).status, 201);
      const saved = now;
      try {
        now = Date.parse('2027-03-15T00:00:01.000Z'); // the day it expires
        assert.equal((await t.admin.get(`/investors/${id}/category-statements`)).body.current.standing, 'expired');
        assert.match(JSON.stringify(expectProblem(await move(), 422)), /expired on 2027-03-15/);
        now = Date.parse('2027-03-14T12:00:00.000Z'); // the last day it counts
        assert.equal((await t.admin.get(`/investors/${id}/category-statements`)).body.current.standing, 'expiring');
        assert.equal((await move()).status, 201);
      } finally {
        now = saved;
      }
    });

    test('an expired statement closes the payment step until a renewed one is recorded; other steps stay open', async () => {
      const deal = await payingDeal(t.admin, { letters: [] });
      const { id } = await createInvestor(t.admin);
      const { id: never } = await createInvestor(t.admin);
      assert.equal((await t.admin.post(`/investors/${id}/category-statements`, statement({ signedOn: '2025-03-01' }))).status, 201);
      for (const investor of [id, never])
        await jump(t.admin, deal.dealId, investor, deal.step('commitment'), { committed_amount: '25000.00', currency: 'EUR' });

      const payment = { amount_received: '25000.00', received_on: '2026-03-15' };
      const before = await rowCounts(t);
      const refused = expectProblem(
        await t.admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: id, targetStepId: deal.step('payment'), data: payment }),
        422,
      );
      assert.match(refused.detail, /category statement \(certified-high-net-worth\) expired on 2026-03-01; steps that take money are blocked/);
      assert.deepEqual(await rowCounts(t), before, 'a refused move changes nothing');
      // An investor who never had a statement is this gate's none of business (the workflow's requirements decide).
      await jump(t.admin, deal.dealId, never, deal.step('payment'), payment);

      assert.equal((await t.admin.post(`/investors/${id}/category-statements`, statement({ signedOn: '2026-03-10' }))).status, 201);
      await jump(t.admin, deal.dealId, id, deal.step('payment'), payment);
      const history = (await t.admin.get(`/investors/${id}/category-statements`)).body;
      assert.deepEqual(
        history.statements.map((s: { signedOn: string }) => s.signedOn),
        ['2026-03-10', '2025-03-01'],
        'both statements kept, newest first',
      );
    });

    test('an erasure clears the evidence and keeps the statement; nothing more is recorded of the erased investor', async () => {
      const { id } = await createInvestor(t.admin);
      assert.equal((await t.admin.post(`/investors/${id}/category-statements`, statement())).status, 201);
      const erased = await t.admin.post(`/investors/${id}/erasure`, { overrideRetention: true, reason: 'asked to be forgotten' });
      assert.equal(erased.status, 200, erased.text);
      const kept = (await t.admin.get(`/investors/${id}/category-statements`)).body;
      assert.equal(kept.statements.length, 1);
      assert.equal(kept.statements[0].evidence, null);
      assert.equal(kept.statements[0].category, 'certified-high-net-worth');
      expectProblem(await t.admin.post(`/investors/${id}/category-statements`, statement()), 409);
    });

    test('the renewals to chase: expired and expiring within 30 days, soonest first; by deal, how many an expired one holds back', async () => {
      const record = async (signedOn: string) => {
        const { id } = await createInvestor(t.admin);
        assert.equal((await t.admin.post(`/investors/${id}/category-statements`, statement({ signedOn }))).status, 201);
        return id;
      };
      const expiring = await record('2025-03-20'); // until 2026-03-20: 5 days left
      const expired = await record('2025-03-01'); // expired on 2026-03-01
      const valid = await record('2026-03-01');
      const renewed = await record('2025-03-02');
      assert.equal((await t.admin.post(`/investors/${renewed}/category-statements`, statement({ signedOn: '2026-03-02' }))).status, 201);

      const viewer = await staffClient('viewer');
      const all = await viewer.get('/investor-categories/expiring?limit=100');
      assert.equal(all.status, 200, all.text);
      const ids = all.body.output.map((r: { investorUserId: string }) => r.investorUserId);
      assert.ok(ids.indexOf(expired) !== -1 && ids.indexOf(expired) < ids.indexOf(expiring), 'soonest first');
      assert.ok(!ids.includes(valid) && !ids.includes(renewed), 'a statement with more than 30 days left, or renewed, is not listed');
      const row = all.body.output.find((r: { investorUserId: string }) => r.investorUserId === expiring);
      assert.deepEqual([row.standing, row.expiresOn, row.category], ['expiring', '2026-03-20', 'certified-high-net-worth']);

      const onlyExpired = (await viewer.get('/investor-categories/expiring?within=0&limit=100')).body.output.map(
        (r: { investorUserId: string }) => r.investorUserId,
      );
      assert.ok(onlyExpired.includes(expired) && !onlyExpired.includes(expiring));

      const deal = await createDeal(t.admin);
      for (const id of [expired, valid]) await jump(t.admin, deal.dealId, id, deal.step('interest'), {});
      const held = await viewer.get(`/investor-categories/expiring?within=0&dealId=${deal.dealId}`);
      assert.deepEqual([held.body.total, held.body.output.map((r: { investorUserId: string }) => r.investorUserId)], [1, [expired]]);

      expectProblem(await client(t.app, await t.investorToken(expired)).get('/investor-categories/expiring'), 403);
      expectProblem(await viewer.get('/investor-categories/expiring?within=400'), 400);
    });
  });
});
