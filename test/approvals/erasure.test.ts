// Four-eyes on erasure: with a deal's rule `erasure` on, erasing an investor who has a journey in
// that deal answers 202 with a proposal and erases nothing; a second admin approves (the erasure
// applied as proposed, the investor's keys revoked) or rejects. An erasure the retention rule
// refuses is refused at once, not held; an investor of no such deal is erased at once.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { StaffRole } from '../../src/domain/principal.ts';
import { SYSTEM_PRINCIPAL } from '../../src/operations/audit-entries.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { eraseFromCommandLine } from '../../src/operations/erasure.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { verify } from '../support/audit.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, type TestDeal } from '../support/deals.ts';

describe('four-eyes erasure', () => {
  // No retention period: every investor may be erased at once.
  const t = startApp({ env: { ERASURE_RETENTION_YEARS: '0' } });
  const admin = t.admin;
  const as = async (role: StaffRole, name = `${role} key`) => client(t.app, (await createToken(t.database.db, { name, role })).token);
  let held: TestDeal;
  let open: TestDeal;
  const nameOf = async (investorUserId: string) => (await admin.get(`/investors/${investorUserId}`)).body.contact.fullName;

  before(async () => {
    [held, open] = [await createDeal(admin), await createDeal(admin)];
    const set = await admin.put(`/deals/deal/${held.dealId}/four-eyes`, { paymentDecisions: false, erasure: true });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.erasure, true);
    assert.equal((await admin.get(`/deals/deal/${open.dealId}/four-eyes`)).body.erasure, false);
  });

  test('an investor of a deal that holds erasure: a 202 proposal, nothing erased, until a second admin approves', async () => {
    const investor = await held.addInvestor({ forename: 'Ada', surname: 'Held' });
    await held.move(investor, 'interest');
    const investorKey = client(t.app, await t.investorToken(investor));
    const proposed = await admin.post(`/investors/${investor}/erasure`, {});
    assert.equal(proposed.status, 202, proposed.text);
    assert.deepEqual([proposed.body.action, proposed.body.dealId, proposed.body.neededRole], ['erasure', held.dealId, 'admin']);
    assert.equal(proposed.body.input.investorUserId, investor);
    assert.notEqual(await nameOf(investor), 'Erased investor', 'nothing erased');
    assert.equal((await investorKey.get(`/deals/deal/${held.dealId}/investor-data/${investor}`)).status, 200, 'their key still works');
    assert.match(expectProblem(await admin.post(`/approvals/${proposed.body.id}/approve`), 403).detail, /second person/);
    assert.match(expectProblem(await (await as('approver')).post(`/approvals/${proposed.body.id}/approve`), 403).detail, /needs the admin role/);
    const approved = await (await as('admin', 'second admin')).post(`/approvals/${proposed.body.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.decision.result.investorUserId, investor);
    assert.equal(await nameOf(investor), 'Erased investor');
    expectProblem(await investorKey.get(`/deals/deal/${held.dealId}/investor-data/${investor}`), 401);
    const verified = await verify(t.database.db);
    assert.equal(verified.code, 0, verified.output);
  });

  test('rejected: nothing erased; erasing again proposes again', async () => {
    const investor = await held.addInvestor();
    await held.move(investor, 'interest');
    const proposed = await admin.post(`/investors/${investor}/erasure`, {});
    assert.equal(proposed.status, 202, proposed.text);
    const rejected = await (await as('admin')).post(`/approvals/${proposed.body.id}/reject`, { reason: 'still in a dispute' });
    assert.equal(rejected.status, 200, rejected.text);
    assert.notEqual(await nameOf(investor), 'Erased investor');
    assert.equal((await admin.post(`/investors/${investor}/erasure`, {})).status, 202);
  });

  test('an investor of no deal that holds erasure is erased at once; one already erased answers that erasure', async () => {
    const investor = await open.addInvestor();
    await open.move(investor, 'interest');
    const done = await admin.post(`/investors/${investor}/erasure`, {});
    assert.equal(done.status, 200, done.text);
    assert.equal(await nameOf(investor), 'Erased investor');
    await held.move(investor, 'interest');
    const again = await admin.post(`/investors/${investor}/erasure`, {});
    assert.equal(again.status, 200, 'erased before: not held, whatever deal they are in now');
    assert.equal(again.body.erasedAt, done.body.erasedAt);
  });

  test('erased meanwhile (the rule switched off and on): the approval is refused, naming what changed', async () => {
    const investor = await held.addInvestor();
    await held.move(investor, 'interest');
    const proposed = await admin.post(`/investors/${investor}/erasure`, {});
    assert.equal(proposed.status, 202, proposed.text);
    assert.equal((await admin.put(`/deals/deal/${held.dealId}/four-eyes`, { paymentDecisions: false, erasure: false })).status, 200);
    assert.equal((await admin.post(`/investors/${investor}/erasure`, {})).status, 200);
    assert.equal((await admin.put(`/deals/deal/${held.dealId}/four-eyes`, { paymentDecisions: false, erasure: true })).status, 200);
    const refused = expectProblem(await (await as('admin')).post(`/approvals/${proposed.body.id}/approve`), 409);
    assert.deepEqual(
      (refused.changed as { field: string }[]).map((c) => c.field),
      ['erasedAt'],
    );
    assert.equal((await admin.get(`/approvals/${proposed.body.id}`)).body.status, 'refused');
  });

  test('refusals are answered at once, not held: an unknown investor, an override without a reason, an operator', async () => {
    expectProblem(await admin.post('/investors/no-such-investor/erasure', {}), 404);
    const investor = await held.addInvestor();
    await held.move(investor, 'interest');
    expectProblem(await admin.post(`/investors/${investor}/erasure`, { overrideRetention: true }), 400);
    expectProblem(await (await as('operator')).post(`/investors/${investor}/erasure`, {}), 403);
    const pending = (await admin.get(`/approvals?status=pending&dealId=${held.dealId}`)).body.output;
    assert.ok(!pending.some((p: { input: { investorUserId?: string } }) => p.input.investorUserId === investor), 'no proposal for a refused erasure');
  });

  test('the command line (dealflow erase investor) is held the same way, and a second admin approves what it proposed', async () => {
    const investor = await held.addInvestor();
    await held.move(investor, 'interest');
    const outcome = await eraseFromCommandLine({ db: t.database.db, clock: systemClock, newId: newUuid }, SYSTEM_PRINCIPAL, investor, {}, 0);
    assert.ok('proposal' in outcome, 'held, not erased');
    assert.equal(outcome.proposal.dealId, held.dealId);
    assert.notEqual(await nameOf(investor), 'Erased investor');
    assert.equal((await admin.post(`/approvals/${outcome.proposal.id}/approve`)).status, 200);
    assert.equal(await nameOf(investor), 'Erased investor');
  });
});
