// A deal's KYC settings and an investor's KYC over HTTP: the settings (admin) name the KYC step, the
// documents and the level; the investor sees the requests once their journey enters the step; they
// confirm a category statement (at once for self-certified sophisticated, after staff accept its
// certificate for a certified category); an accepted level counts KYC_VALID_MONTHS, staff see it in
// the expiring list 30 days before, and once it has expired the documents are asked for again and
// moves that need the level are refused. Anyone but the investor and staff gets 404.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createInvestor, jump } from '../support/deals.ts';
import { files, kycDeal, uploadKyc } from '../support/kyc.ts';
import { payingDeal } from '../support/payments.ts';
import { rowCounts } from '../support/row-counts.ts';

describe('kyc', () => {
  let now = Date.parse('2026-03-15T10:00:00.000Z');
  const t = startApp({ clock: () => new Date(now), env: { KYC_VALID_MONTHS: '6' } });
  const staff = async (role: 'viewer' | 'operator') => client(t.app, (await createToken(t.database.db, { name: `${role} key`, role })).token);

  async function investorAt(deal: Awaited<ReturnType<typeof kycDeal>>, step = 'kyc') {
    const { id } = await createInvestor(t.admin, { kycCheckLevel: null });
    await jump(t.admin, deal.dealId, id, deal.step('interest'));
    if (step === 'kyc') await jump(t.admin, deal.dealId, id, deal.step('kyc'));
    const token = await t.investorToken(id);
    return { id, token, investor: client(t.app, token), target: { dealId: deal.dealId, investorUserId: id } };
  }

  describe('KYC settings and status', () => {
    test('settings: set by an admin, read by staff; bad input 400, an unknown step or deal 404, an operator 403, nothing changed', async () => {
      const deal = await kycDeal(t.admin);
      const read = await (await staff('viewer')).get(`/deals/deal/${deal.dealId}/kyc-settings`);
      assert.equal(read.status, 200);
      assert.deepEqual(
        { stepId: read.body.stepId, level: read.body.level, documents: read.body.documents },
        {
          stepId: deal.step('kyc'),
          level: 2,
          documents: ['identity', 'proof-of-address'],
        },
      );
      const operator = await staff('operator');
      const before = await rowCounts(t);
      const put = (body: unknown, dealId = deal.dealId) => t.admin.put(`/deals/deal/${dealId}/kyc-settings`, body);
      const good = { stepId: deal.step('kyc'), level: 3, documents: ['identity', 'register-extract', 'beneficial-owners'] };
      expectProblem(await put({ ...good, documents: ['selfie'] }), 400);
      expectProblem(await put({ ...good, documents: [] }), 400);
      expectProblem(await put({ ...good, documents: ['identity', 'identity'] }), 400);
      expectProblem(await put({ ...good, level: 0 }), 400);
      expectProblem(await put({ ...good, extra: true }), 400);
      expectProblem(await put({ ...good, stepId: 'no-such-step' }), 404);
      expectProblem(await put(good, 'deal-nobody'), 404);
      expectProblem(await operator.put(`/deals/deal/${deal.dealId}/kyc-settings`, good), 403);
      expectProblem(await t.admin.get('/deals/deal/deal-nobody/kyc-settings'), 404);
      assert.deepEqual(await rowCounts(t), before);
      assert.equal((await put(good)).body.level, 3);
    });

    test('the requests open when the journey enters the KYC step; another investor, or one not in the deal, gets 404', async () => {
      const deal = await kycDeal(t.admin);
      const early = await investorAt(deal, 'interest');
      const status = (await early.investor.get(`/deals/deal/${deal.dealId}/kyc/${early.id}`)).body;
      assert.equal(status.open, false);
      assert.deepEqual(
        status.categories.map((c: { category: string; needsCertificate: boolean }) => [c.category, c.needsCertificate]),
        [
          ['self-certified-sophisticated', false],
          ['certified-high-net-worth', true],
        ],
      );
      assert.match(status.categories[0].statementText, /self-certified sophisticated investor/);
      await jump(t.admin, deal.dealId, early.id, deal.step('kyc'));
      const open = (await early.investor.get(`/deals/deal/${deal.dealId}/kyc/${early.id}`)).body;
      assert.equal(open.open, true);
      assert.deepEqual(open.requests, [
        { kind: 'identity', state: 'requested', reason: null },
        { kind: 'proof-of-address', state: 'requested', reason: null },
      ]);
      const other = await investorAt(deal);
      const theirs = expectProblem(await other.investor.get(`/deals/deal/${deal.dealId}/kyc/${early.id}`), 404);
      const unknown = expectProblem(await other.investor.get(`/deals/deal/${deal.dealId}/kyc/inv-nobody`), 404);
      assert.equal(theirs.title, unknown.title);
      const { id: outsider } = await createInvestor(t.admin);
      expectProblem(await client(t.app, await t.investorToken(outsider)).get(`/deals/deal/${deal.dealId}/kyc/${outsider}`), 404);
      expectProblem(await other.investor.get('/kyc/reviews'), 403);
      expectProblem(await other.investor.get('/kyc/expiring'), 403);
    });

    test('confirming self-certified sophisticated records the statement at once, with the confirmation’s time and address', async () => {
      const deal = await kycDeal(t.admin);
      const { id, investor } = await investorAt(deal);
      const confirmed = await investor.post(`/deals/deal/${deal.dealId}/kyc/${id}/category-confirmations`, {
        category: 'self-certified-sophisticated',
        confirmed: true,
      });
      assert.equal(confirmed.status, 201, confirmed.text);
      assert.equal(confirmed.body.needsReview, false);
      assert.equal(confirmed.body.recorded, true);
      const statements = (await investor.get(`/investors/${id}/category-statements`)).body;
      assert.equal(statements.current.category, 'self-certified-sophisticated');
      assert.equal(statements.current.confirmationId, confirmed.body.id);
      assert.equal(statements.current.signedOn, '2026-03-15');
      assert.equal(statements.current.expiresOn, '2027-03-15');
      const { rows } = await sql<{ ip: string }>`select ip from category_confirmations where id = ${confirmed.body.id}`.execute(t.database.db);
      assert.equal(rows[0]!.ip, '127.0.0.1');

      const other = await investorAt(deal);
      const before = await rowCounts(t);
      const confirm = (body: unknown, as = investor) => as.post(`/deals/deal/${deal.dealId}/kyc/${id}/category-confirmations`, body);
      expectProblem(await confirm({ category: 'professional', confirmed: true }), 422);
      expectProblem(await confirm({ category: 'self-certified-sophisticated', confirmed: false }), 400);
      expectProblem(await confirm({ category: 'self-certified-sophisticated' }), 400);
      expectProblem(await confirm({ category: 'self-certified-sophisticated', confirmed: true }, t.admin), 403);
      expectProblem(await confirm({ category: 'self-certified-sophisticated', confirmed: true }, other.investor), 404);
      assert.deepEqual(await rowCounts(t), before);
    });

    test('a certified category waits for its certificate: staff accept the evidence and the statement is recorded', async () => {
      const deal = await kycDeal(t.admin);
      const { id, token, investor, target } = await investorAt(deal);
      const confirmed = await investor.post(`/deals/deal/${deal.dealId}/kyc/${id}/category-confirmations`, {
        category: 'certified-high-net-worth',
        confirmed: true,
      });
      assert.equal(confirmed.status, 201, confirmed.text);
      assert.deepEqual([confirmed.body.needsReview, confirmed.body.recorded], [true, false]);
      assert.equal((await investor.get(`/investors/${id}/category-statements`)).body.current, null, 'nothing counts yet');
      const evidence = await uploadKyc(t.app, token, target, 'category-evidence', files.pdf('accountant certificate'));
      assert.equal(evidence.status, 201, evidence.text);
      const operator = await staff('operator');
      assert.equal((await operator.post(`/deals/deal/${deal.dealId}/kyc/${id}/documents/${evidence.body.id}/accept`, {})).status, 200);
      const status = (await investor.get(`/deals/deal/${deal.dealId}/kyc/${id}`)).body;
      assert.equal(status.confirmation.recorded, true);
      assert.deepEqual([status.category.category, status.category.confirmationId], ['certified-high-net-worth', confirmed.body.id]);
    });

    test('an accepted level counts the configured months: expiring in the list 30 days before, then asked again and refused', async () => {
      const deal = await kycDeal(t.admin);
      const { id, token, investor, target } = await investorAt(deal);
      const operator = await staff('operator');
      await investor.post(`/deals/deal/${deal.dealId}/kyc/${id}/category-confirmations`, { category: 'self-certified-sophisticated', confirmed: true });
      for (const kind of ['identity', 'proof-of-address']) {
        const doc = (await uploadKyc(t.app, token, target, kind, files.pdf(kind))).body;
        assert.equal((await operator.post(`/deals/deal/${deal.dealId}/kyc/${id}/documents/${doc.id}/accept`, {})).status, 200);
      }
      const level = (await investor.get(`/deals/deal/${deal.dealId}/kyc/${id}`)).body.level;
      assert.deepEqual([level.acceptedOn, level.expiresOn, level.standing], ['2026-03-15', '2026-09-15', 'valid']);
      const expiring = async () => (await operator.get('/kyc/expiring?limit=100')).body.output.find((r: { investorUserId: string }) => r.investorUserId === id);
      assert.equal(await expiring(), undefined, 'not within 30 days');
      const saved = now;
      try {
        now = Date.parse('2026-08-20T09:00:00.000Z');
        assert.equal((await expiring())?.standing, 'expiring');
        now = Date.parse('2026-09-15T09:00:00.000Z');
        assert.equal((await expiring())?.standing, 'expired');
        const again = (await investor.get(`/deals/deal/${deal.dealId}/kyc/${id}`)).body;
        assert.equal(again.satisfied, false);
        assert.deepEqual(
          again.requests.map((r: { state: string }) => r.state),
          ['requested', 'requested'],
          'the documents are asked for again',
        );
        const commit = await investor.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
          investorUserId: id,
          targetStepId: deal.step('commitment'),
          data: { committed_amount: '1000.00', currency: 'EUR' },
        });
        assert.match(JSON.stringify(expectProblem(commit, 422)), /KYC \(level 2\) expired on 2026-09-15/);
      } finally {
        now = saved;
      }
    });

    test('an expired level closes the payment step (the checks before money), whatever the workflow requires', async () => {
      const deal = await payingDeal(t.admin, { letters: [] });
      assert.equal(
        (await t.admin.put(`/deals/deal/${deal.dealId}/kyc-settings`, { stepId: deal.step('interest'), level: 1, documents: ['identity'] })).status,
        200,
      );
      const { id } = await createInvestor(t.admin, { kycCheckLevel: null });
      await jump(t.admin, deal.dealId, id, deal.step('interest'));
      const token = await t.investorToken(id);
      const doc = (await uploadKyc(t.app, token, { dealId: deal.dealId, investorUserId: id }, 'identity', files.pdf())).body;
      assert.equal((await t.admin.post(`/deals/deal/${deal.dealId}/kyc/${id}/documents/${doc.id}/accept`, {})).status, 200);
      await jump(t.admin, deal.dealId, id, deal.step('commitment'), { committed_amount: '1000.00', currency: 'EUR' });
      const pay = () =>
        t.admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
          investorUserId: id,
          targetStepId: deal.step('payment'),
          data: { amount_received: '1000.00', received_on: '2026-09-15' },
        });
      const saved = now;
      try {
        now = Date.parse('2026-09-15T09:00:00.000Z');
        const before = await rowCounts(t);
        assert.match(expectProblem(await pay(), 422).detail, /KYC \(level 1\) expired on 2026-09-15; steps that take money are blocked/);
        assert.deepEqual(await rowCounts(t), before);
        now = Date.parse('2026-09-14T09:00:00.000Z');
        assert.equal((await pay()).status, 201, 'on its last day the level still counts');
      } finally {
        now = saved;
      }
    });
  });
});
