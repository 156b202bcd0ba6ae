// What the workflow editor relies on: the check says how many investors the deal has (the editor
// asks "apply to the investors already on this deal?" only when there are some); a saved change
// reaches current investors only through the migration, whose dry run writes nothing; and the
// migration keeps each investor's time at their step.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { startApp } from '../support/app.ts';
import { createDeal, createInvestor, jump } from '../support/deals.ts';
import { payingWorkflow } from '../support/workflows.ts';

describe('a workflow change reaching the investors already on the deal', () => {
  const t = startApp();
  const api = t.admin;

  const opened = (dealId: string) => {
    const body = payingWorkflow(dealId);
    return { ...body, links: body.links.map((l) => (l.toStepId === `${dealId}.payment` ? { ...l, investorMay: true } : l)) };
  };

  it('the check counts the investors: none on a new deal', async () => {
    const { dealId } = await createDeal(api, { workflow: 'paying' });
    const check = await api.post(`/console/deals/${dealId}/workflow/check`, opened(dealId));
    assert.equal(check.status, 200, JSON.stringify(check.body));
    assert.equal(check.body.investors, 0);
    assert.ok(check.body.changes.some((c: any) => c.kind === 'link-opened-to-investors'));
  });

  it('opening a link reaches current investors after the migration, which keeps their time at the step', async () => {
    const { dealId, step } = await createDeal(api, { workflow: 'paying' });
    const ids = [];
    for (const name of ['Ada', 'Grace']) {
      const { id } = await createInvestor(api, { forename: name, surname: 'Migrated' });
      await jump(api, dealId, id, step('commitment'), { committed_amount: '1000.00', currency: 'EUR' });
      ids.push(id);
    }
    const entered = async (id: string) => (await api.get(`/console/deals/${dealId}/investors/${id}`)).body.enteredStepAt as string;
    const may = async (id: string) =>
      (await api.get(`/investors/${id}/deals/${dealId}`)).body.nextSteps.find((s: any) => s.id === step('payment')).investorMay as boolean;
    const before = await Promise.all(ids.map(entered));
    assert.equal(await may(ids[0]!), false);

    const check = await api.post(`/console/deals/${dealId}/workflow/check`, opened(dealId));
    assert.equal(check.body.investors, 2);
    assert.equal((await api.put(`/deals/deal/${dealId}/workflow`, opened(dealId))).status, 200);
    // Saved: new investors get the open link, the two already there stay on the version they started.
    assert.equal(await may(ids[0]!), false);

    await sleep(20);
    const dry = await api.post(`/deals/deal/${dealId}/workflow/migrate?dryRun=true`, {});
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.deepEqual([dry.body.dryRun, dry.body.journeys, dry.body.migrated, dry.body.notFitting.length], [true, 2, 2, 0]);
    assert.equal(await may(ids[0]!), false, 'the dry run wrote nothing');

    const run = await api.post(`/deals/deal/${dealId}/workflow/migrate`, {});
    assert.deepEqual([run.body.dryRun, run.body.migrated], [false, 2]);
    assert.equal(await may(ids[0]!), true);
    assert.deepEqual(await Promise.all(ids.map(entered)), before, 'each investor keeps the time they entered their step');
    const card = (await api.get(`/console/deals/${dealId}/board/cards?stepId=${encodeURIComponent(step('commitment'))}`)).body;
    assert.deepEqual(card.output.map((c: any) => c.enteredStepAt).sort(), [...before].sort());
    // Nothing is left to migrate.
    const again = await api.post(`/deals/deal/${dealId}/workflow/migrate?dryRun=true`, {});
    assert.equal(again.body.journeys, 0);
  });
});
