// Four-eyes on workflow changes: with the deal's rule workflowChanges on, replacing its workflow and
// migrating its journeys answer 202 with a proposal and change nothing; another admin approves
// (applied through the same operation: a new version, the journeys moved) or the approval is
// refused when the workflow's version moved meanwhile. The first workflow and the check are never held.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createToken } from '../../src/operations/tokens.ts';
import { type Client, client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { payingWorkflow } from '../support/workflows.ts';

describe('four-eyes workflow changes', () => {
  const t = startApp();
  const admin = t.admin;
  let second: Client;

  /** The deal's workflow with the link to payment opened to investors (a change to hold). */
  const opened = (dealId: string, label = 'Paying, opened') => {
    const body = payingWorkflow(dealId);
    return { ...body, label, links: body.links.map((l) => (l.toStepId === `${dealId}.payment` ? { ...l, investorMay: true } : l)) };
  };
  const versionOf = async (dealId: string) => (await admin.get(`/deals/deal/${dealId}/workflow-status`)).body.version as number;
  const ruleOn = async (dealId: string) => {
    const set = await admin.put(`/deals/deal/${dealId}/four-eyes`, { paymentDecisions: false, workflowChanges: true });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual([set.body.workflowChanges, set.body.bulkMovesFrom], [true, null]);
  };

  before(async () => {
    second = client(t.app, (await createToken(t.database.db, { name: 'second admin', role: 'admin' })).token);
  });

  test('the rule off (the default): a replacement is applied at once', async () => {
    const { dealId } = await createDeal(admin, { workflow: 'paying' });
    assert.equal((await admin.get(`/deals/deal/${dealId}/four-eyes`)).body.workflowChanges, false);
    const v = await versionOf(dealId);
    assert.equal((await admin.put(`/deals/deal/${dealId}/workflow`, opened(dealId))).status, 200);
    assert.equal(await versionOf(dealId), v + 1);
  });

  test('the rule on: a replacement is a 202 proposal that changes nothing until another admin approves it', async () => {
    const { dealId } = await createDeal(admin, { workflow: 'paying' });
    await ruleOn(dealId);
    const v = await versionOf(dealId);
    const check = await admin.post(`/console/deals/${dealId}/workflow/check`, opened(dealId));
    assert.equal(check.status, 200, 'the check is never held');
    const held = await admin.put(`/deals/deal/${dealId}/workflow`, opened(dealId));
    assert.equal(held.status, 202, held.text);
    assert.deepEqual([held.body.action, held.body.neededRole, held.body.status, held.body.basis], ['workflow-change', 'admin', 'pending', { version: v }]);
    assert.equal(await versionOf(dealId), v, 'nothing changed');
    assert.match(expectProblem(await admin.post(`/approvals/${held.body.id}/approve`), 403).detail, /second person/);
    const operator = client(t.app, (await createToken(t.database.db, { name: 'an operator', role: 'operator' })).token);
    assert.match(expectProblem(await operator.post(`/approvals/${held.body.id}/approve`), 403).detail, /needs the admin role/);
    const approved = await second.post(`/approvals/${held.body.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.deepEqual([approved.body.status, approved.body.decision.result.version], ['approved', v + 1]);
    const now = (await admin.get(`/deals/deal/${dealId}/workflow-status`)).body;
    assert.deepEqual([now.version, now.label], [v + 1, 'Paying, opened']);
  });

  test('a replacement that would be refused now is refused at once, not held', async () => {
    const { dealId } = await createDeal(admin, { workflow: 'paying' });
    await ruleOn(dealId);
    const body = opened(dealId);
    const broken = { ...body, links: [...body.links, { fromStepId: `${dealId}.nowhere`, toStepId: `${dealId}.payment` }] };
    expectProblem(await admin.put(`/deals/deal/${dealId}/workflow`, broken), 400);
    assert.equal((await admin.get(`/approvals?status=pending&dealId=${dealId}`)).body.output.length, 0);
  });

  test('the first workflow of a deal is set at once, whatever the rule', async () => {
    const dealId = uniqueId('deal');
    assert.equal((await admin.put(`/deals/deal/${dealId}`, { name: 'First workflow', currency: 'EUR' })).status < 300, true);
    await ruleOn(dealId);
    const first = await admin.put(`/deals/deal/${dealId}/workflow`, payingWorkflow(dealId));
    assert.equal(first.status, 201, first.text);
  });

  test('the version moved since the proposal: the approval is refused with 409 naming it, nothing applied', async () => {
    const { dealId } = await createDeal(admin, { workflow: 'paying' });
    await ruleOn(dealId);
    const v = await versionOf(dealId);
    const one = await admin.put(`/deals/deal/${dealId}/workflow`, opened(dealId, 'First proposal'));
    const two = await admin.put(`/deals/deal/${dealId}/workflow`, opened(dealId, 'Second proposal'));
    assert.deepEqual([one.status, two.status], [202, 202]);
    assert.equal((await second.post(`/approvals/${one.body.id}/approve`)).status, 200);
    const refused = expectProblem(await second.post(`/approvals/${two.body.id}/approve`), 409);
    assert.deepEqual(refused.changed, [{ field: 'version', was: v, now: v + 1 }]);
    assert.match(refused.detail, /workflow of deal .* changed since the proposal \(version was/);
    assert.equal((await admin.get(`/deals/deal/${dealId}/workflow-status`)).body.label, 'First proposal');
    assert.equal((await admin.get(`/approvals/${two.body.id}`)).body.status, 'refused');
  });

  test('a migration is held (its dry run is not) and applied when another admin approves it', async () => {
    const { dealId, step } = await createDeal(admin, { workflow: 'paying' });
    const ids: string[] = [];
    for (const name of ['Ada', 'Grace']) {
      const { id } = await createInvestor(admin, { forename: name, surname: 'Held' });
      await jump(admin, dealId, id, step('commitment'), { committed_amount: '1000.00', currency: 'EUR' });
      ids.push(id);
    }
    assert.equal((await admin.put(`/deals/deal/${dealId}/workflow`, opened(dealId))).status, 200);
    await ruleOn(dealId);
    const dry = await admin.post(`/deals/deal/${dealId}/workflow/migrate?dryRun=true`, {});
    assert.deepEqual([dry.status, dry.body.migrated], [200, 2]);
    const held = await admin.post(`/deals/deal/${dealId}/workflow/migrate`, {});
    assert.equal(held.status, 202, held.text);
    assert.deepEqual([held.body.action, held.body.neededRole, held.body.basis], ['workflow-migration', 'admin', { version: await versionOf(dealId) }]);
    assert.equal((await admin.post(`/deals/deal/${dealId}/workflow/migrate?dryRun=true`, {})).body.journeys, 2, 'no journey moved');
    const approved = await second.post(`/approvals/${held.body.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.deepEqual([approved.body.decision.result.dryRun, approved.body.decision.result.migrated], [false, 2]);
    assert.equal((await admin.post(`/deals/deal/${dealId}/workflow/migrate?dryRun=true`, {})).body.journeys, 0);
  });
});
