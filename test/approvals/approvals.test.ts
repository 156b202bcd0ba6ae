// Four-eyes approvals through the HTTP edge: a change of the payee's IBAN and (with the deal's rule
// on) a payment decision answer 202 with a proposal and change nothing; a second person with the
// write's role approves (applied by the same operation) or rejects; the proposer never decides;
// an approval whose basis moved is refused (409, recorded); audit chain and feed carry each step.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { StaffRole } from '../../src/domain/principal.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { verify } from '../support/audit.ts';
import { createDeal } from '../support/deals.ts';
import { feedCaughtUp } from '../support/webhooks.ts';
import { payingDeal, postStatement, type PayingDeal } from '../support/payments.ts';

const IBAN = { first: 'DE89370400440532013000', second: 'BE71096123456769', third: 'GB82WEST12345698765432' };

describe('four-eyes approvals', () => {
  const t = startApp();
  const admin = t.admin;
  const as = async (role: StaffRole, name = `${role} key`) => client(t.app, (await createToken(t.database.db, { name, role })).token);
  let deal: { dealId: string; step: (name: string) => string };
  const settingsUrl = () => `/deals/deal/${deal.dealId}/payment-settings`;
  const settings = (iban: string) => ({ paymentStepId: deal.step('payment'), amountFieldKey: 'amount_received', dateFieldKey: 'received_on', iban });
  const auditTypes = async (dealId: string) =>
    (await admin.get(`/deals/deal/${dealId}/audit?limit=100`)).body.output
      .map((e: { type: string }) => e.type)
      .filter((x: string) => x.startsWith('approval.'));

  before(async () => {
    deal = await createDeal(admin, { workflow: 'paying' });
  });

  test('the first IBAN is set at once; changing it is a 202 proposal, the settings unchanged, until a second admin approves', async () => {
    assert.equal((await admin.put(settingsUrl(), settings(IBAN.first))).status, 201);
    const proposed = await admin.put(settingsUrl(), settings(IBAN.second));
    assert.equal(proposed.status, 202, proposed.text);
    assert.deepEqual([proposed.body.action, proposed.body.status, proposed.body.neededRole], ['payee-change', 'pending', 'admin']);
    assert.deepEqual(proposed.body.basis.iban, IBAN.first);
    assert.equal(proposed.body.proposedByName, 'test admin');
    assert.equal((await admin.get(settingsUrl())).body.iban, IBAN.first, 'nothing changed');
    const id = proposed.body.id;
    assert.match(expectProblem(await admin.post(`/approvals/${id}/approve`), 403).detail, /second person/);
    assert.match(expectProblem(await (await as('approver')).post(`/approvals/${id}/approve`), 403).detail, /needs the admin role/);
    assert.match(expectProblem(await (await as('viewer')).post(`/approvals/${id}/approve`), 403).detail, /needs the operator role/);
    assert.match(expectProblem(await (await as('operator')).post(`/approvals/${id}/approve`), 403).detail, /needs the admin role/);
    const pending = (await (await as('viewer')).get(`/approvals?status=pending&dealId=${deal.dealId}`)).body.output;
    assert.deepEqual(
      pending.map((p: { id: string }) => p.id),
      [id],
    );
    const other = await as('admin', 'second admin');
    const approved = await other.post(`/approvals/${id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.deepEqual([approved.body.status, approved.body.decision.outcome, approved.body.decision.decidedByName], ['approved', 'approved', 'second admin']);
    assert.equal(approved.body.decision.result.iban, IBAN.second);
    assert.equal((await admin.get(settingsUrl())).body.iban, IBAN.second, 'applied');
    expectProblem(await other.post(`/approvals/${id}/approve`), 409);
    expectProblem(await other.post(`/approvals/${id}/reject`, { reason: 'too late' }), 409);
    assert.deepEqual(await auditTypes(deal.dealId), ['approval.proposed', 'approval.approved']);
    await feedCaughtUp(t.database.db); // the feed shows an entry once every transaction begun before it has ended
    const feed = (await admin.get(`/deals/deal/${deal.dealId}/events`)).body.output.map((e: { type: string }) => e.type);
    assert.deepEqual(
      feed.filter((x: string) => x.startsWith('approval.')),
      ['approval.proposed', 'approval.decided'],
    );
    assert.equal((await other.get(`/approvals?status=decided&dealId=${deal.dealId}`)).body.output[0].id, id);
  });

  test('two proposals from the same IBAN: once one is approved, the other is refused (409 naming the IBAN), recorded so', async () => {
    const other = await as('admin', 'third admin');
    const a = (await admin.put(settingsUrl(), settings(IBAN.third))).body;
    const b = (await admin.put(settingsUrl(), settings(IBAN.first))).body;
    assert.equal((await other.post(`/approvals/${a.id}/approve`)).status, 200);
    const refused = expectProblem(await other.post(`/approvals/${b.id}/approve`), 409);
    assert.match(refused.detail, /iban was "GB82WEST12345698765432"|iban was "BE71096123456769"/);
    assert.ok(
      (refused.changed as { field: string }[]).some((c) => c.field === 'iban'),
      JSON.stringify(refused),
    );
    const stored = (await admin.get(`/approvals/${b.id}`)).body;
    assert.deepEqual([stored.status, stored.decision.decidedByName], ['refused', 'third admin']);
    assert.equal((await admin.get(settingsUrl())).body.iban, IBAN.third, 'the refused one applied nothing');
    expectProblem(await other.post(`/approvals/${b.id}/approve`), 409);
    assert.ok((await auditTypes(deal.dealId)).includes('approval.refused'));
  });

  test('a held write with an Idempotency-Key: the repeat gets the same proposal, replayed; two approvals at once: one applies, the other 409', async () => {
    const key = { 'idempotency-key': `payee-${deal.dealId}` };
    const first = await admin.put(settingsUrl(), settings(IBAN.second), key);
    assert.equal(first.status, 202, first.text);
    const again = await admin.put(settingsUrl(), settings(IBAN.second), key);
    assert.deepEqual([again.status, again.body.id, again.headers['idempotent-replayed']], [202, first.body.id, 'true']);
    const [x, y] = [await as('admin', 'admin x'), await as('admin', 'admin y')];
    const answers = await Promise.all([x.post(`/approvals/${first.body.id}/approve`), y.post(`/approvals/${first.body.id}/approve`)]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], JSON.stringify(answers.map((a) => a.body)));
    assert.equal((await admin.get(settingsUrl())).body.iban, IBAN.second);
    const pending = (await admin.get(`/approvals?status=pending&dealId=${deal.dealId}`)).body.output;
    assert.deepEqual(pending, [], 'one proposal for the two requests, decided');
  });

  describe('payment decisions under the rule', () => {
    let paying: PayingDeal;
    let lines: { id: string }[];
    before(async () => {
      paying = await payingDeal(admin, { letters: ['A', 'B'] });
      const csv = [
        'date,amount,currency,reference,bank_reference',
        ...[1, 2, 3].map((n) => `2026-11-24,25000.00,EUR,no reference given,FE-${paying.dealId}-${n}`),
      ];
      const statement = await postStatement(t, `${csv.join('\n')}\n`, 'text/csv', '?bankReferenceColumn=bank_reference');
      assert.equal(statement.status, 201, JSON.stringify(statement.body));
      lines = (await admin.get(`/payments/lines?statementId=${statement.body.statement.id}`)).body.output;
      assert.equal(lines.length, 3);
    });
    const rule = (on: boolean) => admin.put(`/deals/deal/${paying.dealId}/four-eyes`, { paymentDecisions: on });

    test('the rule: admin sets it, a viewer reads it; an approver may not set it', async () => {
      const viewer = await as('viewer');
      assert.equal((await viewer.get(`/deals/deal/${paying.dealId}/four-eyes`)).body.paymentDecisions, false);
      expectProblem(await (await as('approver')).put(`/deals/deal/${paying.dealId}/four-eyes`, { paymentDecisions: true }), 403);
      const set = await rule(true);
      assert.equal(set.status, 200, set.text);
      assert.deepEqual([set.body.paymentDecisions, set.body.payeeChange], [true, true]);
      assert.equal((await viewer.get(`/deals/deal/${paying.dealId}/four-eyes`)).body.paymentDecisions, true);
      expectProblem(await admin.get('/deals/deal/no-such-deal/four-eyes'), 404);
    });

    test('an assignment is a 202 proposal, the line still queued; another approver approves and the line is assigned', async () => {
      const [first, second] = [await as('approver', 'approver one'), await as('approver', 'approver two')];
      const line = lines[0]!;
      const proposed = await first.post(`/payments/lines/${line.id}/assign`, { dealId: paying.dealId, investorUserId: paying.investors['A'] });
      assert.equal(proposed.status, 202, proposed.text);
      assert.deepEqual([proposed.body.action, proposed.body.neededRole, proposed.body.basis.status], ['payment-assign', 'approver', 'queued']);
      assert.equal((await admin.get(`/payments/lines/${line.id}`)).body.status, 'queued');
      expectProblem(await first.post(`/approvals/${proposed.body.id}/approve`), 403);
      const approved = await second.post(`/approvals/${proposed.body.id}/approve`);
      assert.equal(approved.status, 200, approved.text);
      assert.equal(approved.body.decision.result.status, 'matched');
      const now = (await admin.get(`/payments/lines/${line.id}`)).body;
      assert.deepEqual([now.status, now.investorUserId], ['matched', paying.investors['A']]);
    });

    test('a held decision that would be refused now is refused now, not held: an investor without a journey 404, shares that do not add up 422', async () => {
      const approver = await as('approver');
      const before = (await admin.get(`/approvals?status=pending&dealId=${paying.dealId}`)).body.output.length;
      expectProblem(await approver.post(`/payments/lines/${lines[1]!.id}/assign`, { dealId: paying.dealId, investorUserId: 'nobody-here' }), 404);
      const short = [{ dealId: paying.dealId, investorUserId: paying.investors['A'], amount: '100.00' }];
      expectProblem(await approver.post(`/payments/lines/${lines[1]!.id}/split`, { shares: short }), 422);
      assert.equal((await admin.get(`/approvals?status=pending&dealId=${paying.dealId}`)).body.output.length, before, 'nothing held');
      const line = (await admin.get(`/payments/lines/${lines[1]!.id}`)).body;
      assert.deepEqual([line.status, line.decisions.length], ['queued', 1], 'the try left nothing on the line');
    });

    test('a split rejected with a reason: the line stays queued', async () => {
      const [first, second] = [await as('approver'), await as('approver')];
      const shares = [
        { dealId: paying.dealId, investorUserId: paying.investors['A'], amount: '12500.00' },
        { dealId: paying.dealId, investorUserId: paying.investors['B'], amount: '12500.00' },
      ];
      const proposed = await first.post(`/payments/lines/${lines[1]!.id}/split`, { shares });
      assert.equal(proposed.status, 202, proposed.text);
      assert.equal(proposed.body.action, 'payment-split');
      expectProblem(await second.post(`/approvals/${proposed.body.id}/reject`, {}), 400);
      const rejected = await second.post(`/approvals/${proposed.body.id}/reject`, { reason: 'it is a subscription' });
      assert.equal(rejected.status, 200, rejected.text);
      assert.deepEqual([rejected.body.status, rejected.body.decision.reason], ['rejected', 'it is a subscription']);
      assert.equal((await admin.get(`/payments/lines/${lines[1]!.id}`)).body.status, 'queued');
    });

    test('approving after the line was decided meanwhile: 409 naming the line, recorded as refused', async () => {
      const [first, second] = [await as('approver'), await as('approver')];
      const line = lines[2]!;
      const proposed = await first.post(`/payments/lines/${line.id}/assign`, { dealId: paying.dealId, investorUserId: paying.investors['B'] });
      assert.equal(proposed.status, 202);
      await rule(false);
      assert.equal((await admin.post(`/payments/lines/${line.id}/dismiss`, { reason: 'returned to sender' })).status, 200);
      const refused = expectProblem(await second.post(`/approvals/${proposed.body.id}/approve`), 409);
      assert.match(refused.detail, new RegExp(`Payment line ${line.id} changed`));
      assert.deepEqual(
        (refused.changed as { field: string }[]).map((c) => c.field),
        ['status', 'decisions'],
      );
      assert.equal((await admin.get(`/approvals/${proposed.body.id}`)).body.status, 'refused');
      assert.equal((await admin.get(`/payments/lines/${line.id}`)).body.status, 'dismissed');
      await rule(true);
    });

    test('unknown proposal 404; a malformed id 400; investors 403; the audit chain verifies', async () => {
      expectProblem(await admin.get('/approvals/00000000-0000-4000-8000-000000000000'), 404);
      expectProblem(await (await as('approver')).post('/approvals/00000000-0000-4000-8000-000000000000/approve'), 404);
      expectProblem(await admin.get('/approvals/not-a-uuid'), 400);
      const investor = client(t.app, await t.investorToken(paying.investors['A']!));
      expectProblem(await investor.get('/approvals'), 403);
      expectProblem(await investor.post('/approvals/00000000-0000-4000-8000-000000000000/approve'), 403);
      expectProblem(await investor.put(`/deals/deal/${paying.dealId}/four-eyes`, { paymentDecisions: false }), 403);
      const checked = await verify(t.database.db);
      assert.equal(checked.code, 0, checked.output);
    });

    test('history is append-only: a proposal, a decision or a rule cannot be changed nor deleted', async () => {
      for (const statement of [
        `update proposals set proposed_by = 'someone else'`,
        'delete from proposal_decisions',
        'update four_eyes_rules set enabled = false',
        'delete from four_eyes_rules',
      ]) {
        await assert.rejects(sql.raw(statement).execute(t.database.db), (err: { code?: string }) => err.code === '42501', statement);
      }
    });
  });
});
